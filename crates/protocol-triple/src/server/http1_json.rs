//! The HTTP/1.1 JSON form of Dubbo 3.3 on the Triple port:
//! `POST /{interface}/{method}` with a JSON array body, so `curl` can call a service:
//!
//! ```text
//! curl -H 'Content-Type: application/json' -d '["world"]' \
//!      http://127.0.0.1:50051/org.apache.dubbo.interop.InteropService/sayHello
//! ```
//!
//! The array holds the arguments in order (a single-parameter method also takes the bare
//! value). Group and version come from `tri-service-group`/`tri-service-version` (or the
//! `rest-service-*` forms), a timeout from `tri-service-timeout` (ms). The result is JSON with
//! HTTP 200; errors are an HTTP status with a JSON body `{"status": "...", "message": "..."}`:
//! 404 for an unknown service or method, 400 for a malformed body, 415 for another content type,
//! 413 for an oversized body, 500 for a business exception (with `"exception"`: its class),
//! 504 for a timeout.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use dubbo_core::{
    Attachments, ConnectionAddrs, ErrorCode, Invocation, MethodSignature, RpcError, ServiceKey,
};
use http::{HeaderValue, Method, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;

use super::routing::split_path;
use super::ServerShared;
use crate::headers::{
    core_attachments, put_core_attachments, REST_SERVICE_GROUP, REST_SERVICE_VERSION,
    TRI_SERVICE_GROUP, TRI_SERVICE_TIMEOUT, TRI_SERVICE_VERSION,
};

/// Serves one HTTP/1.1 connection.
pub(crate) async fn serve_http1<IO>(
    io: IO,
    shared: Arc<ServerShared>,
    remote: SocketAddr,
    mut shutdown: watch::Receiver<bool>,
) where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    // The peer's address is shared by the connection's calls rather than set on each.
    let addrs = Arc::new(ConnectionAddrs {
        remote: Some(remote),
        local: None,
    });
    let service = hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let shared = shared.clone();
        let addrs = addrs.clone();
        async move { Ok::<_, std::convert::Infallible>(handle(req, shared, addrs).await) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(hyper_util::rt::TokioIo::new(io), service);
    let mut conn = std::pin::pin!(conn);
    let mut shutting_down = *shutdown.borrow();
    if shutting_down {
        conn.as_mut().graceful_shutdown();
    }
    loop {
        tokio::select! {
            r = conn.as_mut() => {
                if let Err(e) = r {
                    tracing::debug!(%remote, "HTTP/1.1 connection error: {e}");
                }
                return;
            }
            changed = shutdown.changed(), if !shutting_down => {
                if changed.is_err() || *shutdown.borrow() {
                    shutting_down = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

async fn handle(
    req: http::Request<hyper::body::Incoming>,
    shared: Arc<ServerShared>,
    addrs: Arc<ConnectionAddrs>,
) -> http::Response<Full<Bytes>> {
    match handle_inner(req, shared, addrs).await {
        Ok(r) => r,
        Err((status, message)) => json_error(status, &message),
    }
}

type HttpError = (StatusCode, String);

async fn handle_inner(
    req: http::Request<hyper::body::Incoming>,
    shared: Arc<ServerShared>,
    addrs: Arc<ConnectionAddrs>,
) -> Result<http::Response<Full<Bytes>>, HttpError> {
    let (parts, body) = req.into_parts();
    if parts.method != Method::POST && parts.method != Method::GET {
        return Err((
            StatusCode::METHOD_NOT_ALLOWED,
            format!("method {} not allowed; use POST", parts.method),
        ));
    }
    let content_type = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    if let Some(ct) = &content_type {
        if ct != "application/json" && ct != "text/json" {
            return Err((
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!("unsupported content type {ct:?}; send application/json"),
            ));
        }
    }
    let path = parts.uri.path().to_owned();
    let Some((service, method)) = split_path(&path) else {
        return Err((StatusCode::NOT_FOUND, format!("no service at {path}")));
    };
    let header = |names: &[&str]| {
        names.iter().find_map(|n| {
            parts
                .headers
                .get(*n)
                .and_then(|v| v.to_str().ok())
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        })
    };
    let group = header(&[TRI_SERVICE_GROUP, REST_SERVICE_GROUP]);
    let version = header(&[TRI_SERVICE_VERSION, REST_SERVICE_VERSION]);
    let key = ServiceKey::new(service, group.as_deref(), version.as_deref());
    let invoker = shared.exporters.get_with_fallback(&key).or_else(|| {
        let (_, last) = service.rsplit_once('/')?;
        shared.exporters.get_with_fallback(&ServiceKey::new(
            last,
            group.as_deref(),
            version.as_deref(),
        ))
    });
    let Some(invoker) = invoker else {
        return Err((StatusCode::NOT_FOUND, format!("service {key} not found")));
    };
    let max = shared.config.max_http1_body;
    let body = Limited::new(body, max)
        .collect()
        .await
        .map_err(|e| {
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some()
            {
                (
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("request body over {max} bytes"),
                )
            } else {
                (StatusCode::BAD_REQUEST, format!("reading the body: {e}"))
            }
        })?
        .to_bytes();
    let args = if body.iter().all(u8::is_ascii_whitespace) {
        Vec::new()
    } else {
        match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(serde_json::Value::Array(items)) => items.iter().map(json_to_value).collect(),
            Ok(single) => vec![json_to_value(&single)],
            Err(e) => return Err((StatusCode::BAD_REQUEST, format!("invalid JSON body: {e}"))),
        }
    };
    let types = vec!["java.lang.Object"; args.len()];
    let signature = Arc::new(MethodSignature::new(method, &types, "java.lang.Object"));
    let mut inv = Invocation::new(key.clone(), signature, args);
    let mut attachments = Attachments::new();
    core_attachments(&parts.headers, &mut attachments);
    attachments.insert("interface", key.interface());
    attachments.insert("path", key.interface());
    *inv.attachments_mut() = attachments;
    inv.context_mut().set_connection_addrs(addrs);
    let timeout = header(&[TRI_SERVICE_TIMEOUT])
        .and_then(|t| t.trim().parse::<u64>().ok())
        .map(Duration::from_millis);
    if let Some(t) = timeout {
        inv.context_mut().set_timeout(t);
    }
    let call = invoker.invoke(inv);
    let result = match timeout {
        Some(t) => tokio::time::timeout(t, call).await.unwrap_or_else(|_| {
            Err(RpcError::framework(
                ErrorCode::Timeout,
                format!("call timed out after {t:?}"),
            ))
        }),
        None => call.await,
    };
    match result {
        Ok(resp) => {
            let json = match resp.value.to_value() {
                Ok(value) => value_to_json(&value).to_string(),
                Err(e) => {
                    return Err((
                        StatusCode::INTERNAL_SERVER_ERROR,
                        format!("the result does not convert to JSON: {e}"),
                    ))
                }
            };
            let mut r = http::Response::new(Full::new(Bytes::from(json)));
            r.headers_mut().insert(
                http::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            let mut extra = http::HeaderMap::new();
            put_core_attachments(&mut extra, &resp.attachments);
            for (k, v) in extra.iter() {
                r.headers_mut().append(k.clone(), v.clone());
            }
            Ok(r)
        }
        Err(RpcError::Business(b)) => {
            let body = serde_json::json!({
                "status": "500",
                "message": b.message.clone().unwrap_or_default(),
                "exception": b.class_name,
            });
            let mut r = http::Response::new(Full::new(Bytes::from(body.to_string())));
            *r.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            r.headers_mut().insert(
                http::header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            Ok(r)
        }
        Err(e) => Err((http_status_of(&e), e.message().to_owned())),
    }
}

/// The HTTP status a framework error is answered with.
pub fn http_status_of(e: &RpcError) -> StatusCode {
    match e.code() {
        Some(ErrorCode::ServiceNotFound | ErrorCode::MethodNotFound) => StatusCode::NOT_FOUND,
        Some(ErrorCode::BadRequest | ErrorCode::Codec) => StatusCode::BAD_REQUEST,
        Some(ErrorCode::Timeout) => StatusCode::GATEWAY_TIMEOUT,
        Some(ErrorCode::PayloadTooLarge) => StatusCode::PAYLOAD_TOO_LARGE,
        Some(ErrorCode::LimitExceeded) => StatusCode::TOO_MANY_REQUESTS,
        Some(ErrorCode::Forbidden) => StatusCode::FORBIDDEN,
        Some(ErrorCode::Unauthenticated) => StatusCode::UNAUTHORIZED,
        Some(
            ErrorCode::ThreadPoolExhausted
            | ErrorCode::ShuttingDown
            | ErrorCode::Network
            | ErrorCode::NoProvider,
        ) => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// JSON and Hessian values, converted as the JSON form (and the QoS `invoke`) read and write
/// them.
pub use dubbo_hessian2::json::{json_to_value, value_to_json};

/// An error response with Dubbo's JSON body `{"status": "...", "message": "..."}`.
pub(crate) fn json_error(status: http::StatusCode, message: &str) -> http::Response<Full<Bytes>> {
    let body = serde_json::json!({
        "status": status.as_u16().to_string(),
        "message": message,
    });
    let mut resp = http::Response::new(Full::new(Bytes::from(body.to_string())));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    // RFC 9110: a 401 names the scheme the client should answer with (HTTP Basic here, the
    // only credentials the HTTP forms take).
    if status == StatusCode::UNAUTHORIZED {
        resp.headers_mut().insert(
            http::header::WWW_AUTHENTICATE,
            http::HeaderValue::from_static("Basic realm=\"dubbo\""),
        );
    }
    resp
}
