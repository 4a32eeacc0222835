//! Adapts tokio's I/O traits to hyper's, for the QoS port's connections.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite};

/// A tokio stream seen through hyper's `Read` and `Write`.
pub(crate) struct TokioIo<T>(pub(crate) T);

impl<T: AsyncRead + Unpin> hyper::rt::Read for TokioIo<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        // Through a stack buffer: no unsafe, and QoS requests are small and rare.
        let mut tmp = [0u8; 4096];
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

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}
