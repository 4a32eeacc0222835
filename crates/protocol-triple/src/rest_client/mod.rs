//! `rest://`: a consumer of plain HTTP services. A reference whose service trait carries REST
//! attributes (`#[get("/users/{id}")]`...) calls any HTTP server with them, Dubbo or not,
//! through the cluster layer like any other protocol (several base URLs balanced, failover on
//! connection failures for idempotent verbs only, see [`dubbo_core::rest::may_retry_rest`]).
//!
//! URL keys of a `rest://host:port` provider URL:
//!
//! - `client`: `http1` (the default: HTTP/1.1 with keep-alive) or `h2c` (HTTP/2 over
//!   plaintext with prior knowledge, one multiplexed connection per host);
//! - `contextpath`: a path in front of every mapped path (Java's protocol key);
//! - `timeout` / `<method>.timeout` (ms; the call's own deadline first);
//! - `payload`: the largest answer read, in bytes (8 MiB by default).
//!
//! Connections are pooled per host by hyper's client, shared by every reference of the
//! protocol; idle ones close after 90 s.

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
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};

pub use invoker::RestInvoker;
pub use response::STATUS_ATTACHMENT;

/// The port of a `rest://` URL that names none.
pub const DEFAULT_PORT: u16 = 80;

/// The URL key of the path in front of every mapped path.
pub const CONTEXT_PATH: &str = "contextpath";

/// The URL key choosing HTTP/1.1 (`http1`) or h2c (`h2c`).
pub const CLIENT: &str = "client";

/// How long an idle pooled connection is kept.
const IDLE: Duration = Duration::from_secs(90);

/// hyper's pooled client, as the invokers share it.
pub(crate) type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// The two pools: HTTP/1.1 and h2c.
struct Pools {
    http1: HttpClient,
    h2c: HttpClient,
}

/// `rest://` as a core [`Protocol`]: `refer` only. Services are served as REST by the Triple
/// port (`tri`), so `export` is refused with a message saying so.
pub struct RestProtocol {
    pools: ArcSwapOption<Pools>,
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
    /// A protocol with empty pools.
    pub fn new() -> Self {
        let build = |h2: bool| {
            let mut b = Client::builder(TokioExecutor::new());
            b.pool_timer(TokioTimer::new())
                .timer(TokioTimer::new())
                .pool_idle_timeout(IDLE)
                .http2_only(h2);
            let mut connector = HttpConnector::new();
            // Calls are small request/answer exchanges: no Nagle delay.
            connector.set_nodelay(true);
            b.build(connector)
        };
        Self {
            pools: ArcSwapOption::from_pointee(Pools {
                http1: build(false),
                h2c: build(true),
            }),
        }
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
            let invoker: Arc<dyn Invoker> = Arc::new(RestInvoker::new(url, client)?);
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
