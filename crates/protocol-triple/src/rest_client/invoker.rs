//! [`RestInvoker`]: calls one HTTP base URL with the REST mapping of each call's method.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use bytes::Bytes;
use dubbo_core::{BoxFuture, ErrorCode, Invocation, Invoker, RpcError, RpcResult};
use dubbo_url::Url;
use http::{HeaderName, HeaderValue, Request};
use http_body_util::{BodyExt, Full, Limited};

use super::health::Health;
use super::request::{plan, Plan};
use super::response::{failure, success};
use super::HttpClient;

/// Java Dubbo's default consumer timeout.
const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1000);

/// The largest answer read by default (Java's `payload`, 8 MiB).
const DEFAULT_PAYLOAD: usize = 8 * 1024 * 1024;

/// Headers the client writes itself, or that describe one connection: attachments never
/// replace them.
const OWN_HEADERS: &[&str] = &[
    "host",
    "content-length",
    "content-type",
    "connection",
    "transfer-encoding",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
    "accept",
];

/// Invocation attachments that describe the call to Dubbo itself rather than to the service.
const DUBBO_KEYS: &[&str] = &["timeout", "version", "group", "interface", "path"];

/// Calls one base URL (`rest://host:port`, `contextpath` in front of every path) over a
/// connection pool shared by every invoker of the protocol.
///
/// A call's method is sent as its mapping says (verb, path template filled with the
/// path arguments, query, header, cookie and form arguments, a JSON or text body); a method
/// without a mapping as `POST /{interface}/{method}` with its arguments as a JSON array, as
/// Dubbo's default REST mapping reads it. The call's string attachments go as headers, the
/// service's group and version as `rest-service-group`/`rest-service-version`. The answer's
/// status and headers come back as response attachments; an error status as a typed error (see
/// [`failure`]).
pub struct RestInvoker {
    url: Url,
    scheme_and_authority: String,
    context_path: String,
    client: HttpClient,
    max_answer: usize,
    destroyed: AtomicBool,
    /// How connections to the base URL fare, for `is_available`.
    health: Health,
}

impl std::fmt::Debug for RestInvoker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestInvoker")
            .field("base", &self.scheme_and_authority)
            .field("context_path", &self.context_path)
            .finish_non_exhaustive()
    }
}

impl RestInvoker {
    /// An invoker of the HTTP service at `url`'s host and port, sending through `client`,
    /// over TLS (`https`) when `https`.
    pub(crate) fn new(url: Url, client: HttpClient, https: bool) -> Result<Self, RpcError> {
        let host = url.host().filter(|h| !h.is_empty()).ok_or_else(|| {
            RpcError::framework(
                ErrorCode::Config,
                format!("the REST url {url} names no host"),
            )
        })?;
        let host = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host.to_owned()
        };
        let port = match url.port() {
            0 if https => 443,
            0 => super::DEFAULT_PORT,
            p => p,
        };
        let context_path = url
            .parameter(super::CONTEXT_PATH)
            .map(|p| p.trim().trim_matches('/'))
            .filter(|p| !p.is_empty())
            .map(|p| format!("/{p}"))
            .unwrap_or_default();
        let max_answer = url
            .parameter("payload")
            .and_then(|p| p.trim().parse::<usize>().ok())
            .filter(|p| *p > 0)
            .unwrap_or(DEFAULT_PAYLOAD);
        Ok(Self {
            scheme_and_authority: format!(
                "{}://{host}:{port}",
                if https { "https" } else { "http" }
            ),
            context_path,
            url,
            client,
            max_answer,
            destroyed: AtomicBool::new(false),
            health: Health::default(),
        })
    }

    fn timeout_for(&self, inv: &Invocation) -> Duration {
        if let Some(rem) = inv.context().remaining() {
            return rem;
        }
        self.url
            .method_parameter(inv.method_name(), "timeout")
            .or_else(|| self.url.parameter("timeout"))
            .and_then(|t| t.trim().parse::<u64>().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_TIMEOUT)
    }

    fn request(&self, inv: &Invocation, plan: Plan) -> Result<Request<Full<Bytes>>, RpcError> {
        let uri = format!("{}{}", self.scheme_and_authority, plan.path_and_query);
        let bad = |e: String| {
            RpcError::framework(
                ErrorCode::BadRequest,
                format!(
                    "{} of {}: {e}",
                    inv.method_name(),
                    inv.service().interface()
                ),
            )
        };
        let mut builder = Request::builder().method(plan.verb).uri(&uri);
        let headers = builder
            .headers_mut()
            .ok_or_else(|| bad(format!("{} {uri} is not a valid request", plan.verb)))?;
        for (k, v) in inv.attachments().iter() {
            let text = match v {
                dubbo_core::Value::String(s) => s,
                _ => continue,
            };
            if DUBBO_KEYS.contains(&k) || OWN_HEADERS.contains(&k.to_ascii_lowercase().as_str()) {
                continue;
            }
            if let (Ok(n), Ok(v)) = (
                HeaderName::try_from(k),
                HeaderValue::try_from(text.as_str()),
            ) {
                headers.append(n, v);
            }
        }
        let service = inv.service();
        for (name, value) in [
            ("rest-service-group", service.group()),
            ("rest-service-version", service.version()),
        ] {
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                if let Ok(v) = HeaderValue::try_from(v) {
                    headers.insert(name, v);
                }
            }
        }
        for (name, value) in plan.headers {
            let n = HeaderName::try_from(name.as_str())
                .map_err(|e| bad(format!("header name {name:?}: {e}")))?;
            let v = HeaderValue::try_from(value.as_str())
                .map_err(|e| bad(format!("header {name}: {e}")))?;
            // A header argument replaces an attachment of the same name.
            headers.insert(n, v);
        }
        let body = match plan.body {
            Some((bytes, content_type)) => {
                let v = HeaderValue::try_from(content_type.as_str())
                    .map_err(|e| bad(format!("content type {content_type:?}: {e}")))?;
                headers.insert(http::header::CONTENT_TYPE, v);
                bytes
            }
            None => Bytes::new(),
        };
        builder
            .body(Full::new(body))
            .map_err(|e| bad(format!("{} {uri}: {e}", plan.verb)))
    }

    async fn call(&self, inv: Invocation) -> RpcResult {
        if self.destroyed.load(Ordering::Acquire) {
            return Err(RpcError::framework(
                ErrorCode::Network,
                format!("the REST invoker of {} is destroyed", self.url.address()),
            ));
        }
        let timeout = self.timeout_for(&inv);
        let plan = plan(&inv, &self.context_path)?;
        let verb = plan.verb;
        let request = self.request(&inv, plan)?;
        let target = format!(
            "{verb} {}{}",
            self.scheme_and_authority,
            request.uri().path()
        );
        let exchange = async {
            let response = self.client.request(request).await.map_err(|e| {
                let message = format!("{target}: {}", error_chain(&e));
                if e.is_connect() {
                    self.health.failed(message.clone());
                }
                // Connection refused, reset, closed: the request may not have arrived, which
                // is what the cluster may retry (for idempotent verbs only).
                RpcError::framework(ErrorCode::Network, message)
            })?;
            self.health.answered();
            let (parts, body) = response.into_parts();
            let body = Limited::new(body, self.max_answer)
                .collect()
                .await
                .map_err(|e| {
                    let code = if e.is::<http_body_util::LengthLimitError>() {
                        ErrorCode::PayloadTooLarge
                    } else {
                        ErrorCode::Network
                    };
                    RpcError::framework(code, format!("{target}: reading the answer: {e}"))
                })?
                .to_bytes();
            Ok::<_, RpcError>((parts, body))
        };
        let (parts, body) = match tokio::time::timeout(timeout, exchange).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(RpcError::framework(
                    ErrorCode::Timeout,
                    format!("{target}: no answer within {} ms", timeout.as_millis()),
                ))
            }
        };
        let status = parts.status.as_u16();
        if parts.status.is_success() {
            Ok(success(status, &parts.headers, body))
        } else {
            Err(failure(status, &body))
        }
    }
}

/// An error and its sources (hyper's own message is only "client error (Connect)").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

impl Invoker for RestInvoker {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(self.call(invocation))
    }

    fn url(&self) -> &Url {
        &self.url
    }

    /// Not after `destroy`, nor while connections to the base URL fail: after a connection
    /// that could not be made, for a wait (100 ms, doubling with each failure in a row up to
    /// 3 s, as a Triple channel waits between connects); an answer makes it available again.
    fn is_available(&self) -> bool {
        !self.destroyed.load(Ordering::Acquire) && self.health.is_available()
    }

    fn destroy(&self) {
        // The pool is shared: its idle connections close by themselves (or with the
        // protocol); this invoker only stops taking calls.
        self.destroyed.store(true, Ordering::Release);
    }
}
