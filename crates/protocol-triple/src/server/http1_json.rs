//! HTTP/1.1 on the Triple port: the REST form and Dubbo 3.3's JSON form
//! (`POST /{interface}/{method}` with a JSON array body), so `curl` can call a service:
//!
//! ```text
//! curl -H 'Content-Type: application/json' -d '["world"]' \
//!      http://127.0.0.1:50051/org.apache.dubbo.interop.InteropService/sayHello
//! ```
//!
//! This file reads HTTP/1.1 connections and request bodies (up to `max_http1_body`, else
//! 413); what a request means is [`super::rest`]'s business, shared with HTTP/2.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use dubbo_core::ConnectionAddrs;
use http::StatusCode;
use http_body_util::{BodyExt, Full, Limited};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;

use super::ServerShared;

/// The HTTP status a framework error is answered with (see [`super::rest`]).
pub use super::rest::{http_status_of, http_status_of_grpc};

/// JSON and Hessian values, converted as the JSON form (and the QoS `invoke`) read and write
/// them.
pub use dubbo_hessian2::json::{json_to_value, value_to_json};

/// Serves one HTTP/1.1 connection; `tls`: inside TLS, so its requests' scheme is `https`
/// (an HTTP/1.1 request line names no scheme; HTTP/2's `:scheme` does).
pub(crate) async fn serve_http1<IO>(
    io: IO,
    shared: Arc<ServerShared>,
    remote: SocketAddr,
    tls: bool,
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
        async move { Ok::<_, std::convert::Infallible>(handle(req, shared, addrs, tls).await) }
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
    tls: bool,
) -> http::Response<Full<Bytes>> {
    let (mut parts, body) = req.into_parts();
    if tls {
        parts.extensions.insert(super::rest::OverTls);
    }
    let max = shared.config.max_http1_body;
    let body = Limited::new(body, max)
        .collect()
        .await
        .map(|b| b.to_bytes())
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
        });
    super::rest::handle(&shared, parts, body, addrs)
        .await
        .map(Full::new)
}
