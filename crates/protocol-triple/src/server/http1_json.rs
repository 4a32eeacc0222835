//! The HTTP/1.1 JSON form of Dubbo 3.3 on the Triple port:
//! `POST /{interface}/{method}` with a JSON array body.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::Full;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;

use super::ServerShared;

/// Serves one HTTP/1.1 connection.
pub(crate) async fn serve_http1<IO>(
    io: IO,
    shared: Arc<ServerShared>,
    remote: SocketAddr,
    mut shutdown: watch::Receiver<bool>,
) where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let shared = shared.clone();
        async move { Ok::<_, std::convert::Infallible>(handle(req, shared, remote).await) }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo(io), service);
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
    _req: http::Request<hyper::body::Incoming>,
    _shared: Arc<ServerShared>,
    _remote: SocketAddr,
) -> http::Response<Full<Bytes>> {
    json_error(http::StatusCode::NOT_FOUND, "not found")
}

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
    resp
}

/// Adapts a tokio I/O object to hyper's I/O traits.
pub(crate) struct TokioIo<T>(pub(crate) T);

impl<T: AsyncRead + Unpin> hyper::rt::Read for TokioIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        // Read through a small stack buffer and copy: no unsafe, and this path (the JSON form)
        // is not the hot one.
        let mut tmp = [0u8; 8192];
        let cap = buf.remaining().min(tmp.len());
        let mut tbuf = tokio::io::ReadBuf::new(&mut tmp[..cap]);
        match Pin::new(&mut self.0).poll_read(cx, &mut tbuf) {
            Poll::Ready(Ok(())) => buf.put_slice(tbuf.filled()),
            other => return other,
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncWrite + Unpin> hyper::rt::Write for TokioIo<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<Result<usize, std::io::Error>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }
    fn poll_flush(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), std::io::Error>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }
    fn poll_shutdown(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), std::io::Error>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}
