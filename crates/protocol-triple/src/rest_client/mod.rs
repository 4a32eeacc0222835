//! `rest://`: a consumer of plain HTTP services. A reference whose service trait carries REST
//! attributes (`#[get("/users/{id}")]`...) calls any HTTP server with them, Dubbo or not,
//! through the cluster layer like any other protocol (several base URLs balanced, failover on
//! connection failures for idempotent verbs only, see [`dubbo_core::rest::may_retry_rest`]).
//!
//! URL keys of a `rest://host:port` provider URL:
//!
//! - `client`: `http1` (the default: HTTP/1.1 with keep-alive) or `h2c` (HTTP/2 with prior
//!   knowledge, one multiplexed connection per host; over TLS, HTTP/2 by ALPN `h2`);
//! - `ssl-enabled`: `true` dials `https` with the protocol's client TLS (`dubbo.ssl`'s
//!   `client-*` keys; refused without them), `false` plain `http`; unset, `https` when the
//!   protocol has client TLS (as every connection of an application with it uses TLS);
//! - `contextpath`: a path in front of every mapped path (Java's protocol key);
//! - `timeout` / `<method>.timeout` (ms; the call's own deadline first);
//! - `payload`: the largest answer read, in bytes (8 MiB by default).
//!
//! Connections are pooled per host by hyper's client, shared by every reference of the
//! protocol; idle ones close after 90 s.

mod connector;
mod health;
mod invoker;
mod request;
mod response;

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwapOption;
use bytes::Bytes;
use dubbo_core::{BoxFuture, ErrorCode, Exporter, Invoker, Protocol, RpcError};
use dubbo_url::Url;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};

pub use invoker::RestInvoker;
pub use response::STATUS_ATTACHMENT;

/// The port of a `rest://` URL that names none (443 over TLS).
pub const DEFAULT_PORT: u16 = 80;

/// The URL key of the path in front of every mapped path.
pub const CONTEXT_PATH: &str = "contextpath";

/// The URL key choosing HTTP/1.1 (`http1`) or h2c (`h2c`).
pub const CLIENT: &str = "client";

/// How long an idle pooled connection is kept.
const IDLE: Duration = Duration::from_secs(90);

/// The URL key turning TLS on (`true`) or off (`false`) for one base URL.
pub const SSL_ENABLED: &str = crate::protocol::SSL_ENABLED;

/// hyper's pooled client, as the invokers share it.
pub(crate) type HttpClient = Client<connector::RestConnector, Full<Bytes>>;

/// The two pools: HTTP/1.1 and h2c.
struct Pools {
    http1: HttpClient,
    h2c: HttpClient,
}

/// `rest://` as a core [`Protocol`]: `refer` only. Services are served as REST by the Triple
/// port (`tri`), so `export` is refused with a message saying so.
pub struct RestProtocol {
    pools: ArcSwapOption<Pools>,
    /// Whether the connector has client TLS (`https` base URLs by default).
    tls: bool,
}

impl Default for RestProtocol {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for RestProtocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RestProtocol").finish_non_exhaustive()
    }
}

impl RestProtocol {
    /// A protocol with empty pools, plaintext only (`ssl-enabled=true` is refused).
    pub fn new() -> Self {
        Self::with_tls(None)
    }

    /// A protocol with empty pools whose `https` base URLs use `tls` (the application's
    /// client TLS: the trust collection server certificates must chain to, and a client
    /// certificate for mutual TLS). With `tls`, base URLs are `https` unless they say
    /// `ssl-enabled=false`. The TLS handshake offers ALPN `http/1.1` (`client=http1`) or `h2`
    /// (`client=h2c`).
    pub fn with_tls(tls: Option<dubbo_tls::ClientTls>) -> Self {
        let build = |h2: bool| {
            let mut b = Client::builder(TokioExecutor::new());
            b.pool_timer(TokioTimer::new())
                .timer(TokioTimer::new())
                .pool_idle_timeout(IDLE)
                .http2_only(h2);
            let alpn = if h2 {
                dubbo_tls::ALPN_H2
            } else {
                dubbo_tls::ALPN_HTTP1
            };
            b.build(connector::RestConnector::new(tls.clone(), alpn))
        };
        Self {
            pools: ArcSwapOption::from_pointee(Pools {
                http1: build(false),
                h2c: build(true),
            }),
            tls: tls.is_some(),
        }
    }

    /// Whether a reference to `url` dials `https` (the Triple client's `ssl-enabled` rule).
    fn https(&self, url: &Url) -> Result<bool, RpcError> {
        crate::protocol::client_uses_tls(url, self.tls)
    }
}

impl Protocol for RestProtocol {
    fn name(&self) -> &'static str {
        "rest"
    }

    fn default_port(&self) -> u16 {
        DEFAULT_PORT
    }

    fn export(
        &self,
        url: Url,
        _invoker: Arc<dyn Invoker>,
    ) -> BoxFuture<'_, Result<Exporter, RpcError>> {
        Box::pin(async move {
            Err(RpcError::framework(
                ErrorCode::Config,
                format!(
                    "{url}: rest:// only calls HTTP services; export on the tri protocol, whose \
                     port serves every service's REST mapping"
                ),
            ))
        })
    }

    fn refer(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>> {
        Box::pin(async move {
            let pools = self.pools.load_full().ok_or_else(|| {
                RpcError::framework(ErrorCode::ShuttingDown, "the rest protocol is shut down")
            })?;
            let client = match url.parameter(CLIENT).map(str::trim) {
                None | Some("" | "http1" | "http") => pools.http1.clone(),
                Some("h2c" | "http2") => pools.h2c.clone(),
                Some(other) => {
                    return Err(RpcError::framework(
                        ErrorCode::Config,
                        format!("{url}: client={other}: expected http1 or h2c"),
                    ))
                }
            };
            let https = self.https(&url)?;
            let invoker: Arc<dyn Invoker> = Arc::new(RestInvoker::new(url, client, https)?);
            Ok(invoker)
        })
    }

    fn shutdown(&self, _grace: Duration) -> BoxFuture<'_, ()> {
        // Dropping the pools closes their idle connections once the invokers holding a
        // handle are gone; calls in flight finish on theirs.
        self.pools.store(None);
        Box::pin(async {})
    }
}
