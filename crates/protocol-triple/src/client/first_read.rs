//! [`FirstRead`]: a connection's IO that tells its channel when the server first answers, so
//! that a connection refused right after it opened counts as a failed connect attempt.
//!
//! A server requiring mutual TLS lets a client without a certificate finish its side of the
//! TLS 1.3 handshake (and HTTP/2's, which does not wait for the server), then refuses it with an
//! alert, the first thing the client reads. Counted as connected, such a connection would reset
//! the reconnect backoff, and every call would open the next one at once.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::backoff::Backoff;

/// `io`, which at its first successful read of at least one byte resets `backoff` and sets
/// `answered`.
pub(crate) struct FirstRead<IO> {
    io: IO,
    /// Taken at the first read: `None` once the server has answered.
    backoff: Option<Arc<Mutex<Backoff>>>,
    answered: Arc<AtomicBool>,
}

impl<IO> FirstRead<IO> {
    pub(crate) fn new(io: IO, backoff: Arc<Mutex<Backoff>>, answered: Arc<AtomicBool>) -> Self {
        Self {
            io,
            backoff: Some(backoff),
            answered,
        }
    }
}

/// The guarded state is plain data that every writer leaves consistent.
pub(crate) fn lock(backoff: &Mutex<Backoff>) -> std::sync::MutexGuard<'_, Backoff> {
    backoff.lock().unwrap_or_else(|p| p.into_inner())
}

impl<IO: AsyncRead + Unpin> AsyncRead for FirstRead<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            if let Some(b) = self.backoff.take() {
                self.answered.store(true, Ordering::Release);
                lock(&b).succeeded();
            }
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for FirstRead<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
