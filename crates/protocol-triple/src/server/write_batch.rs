//! One socket write for the answers of every stream that is ready, not one per answer.
//!
//! Each HTTP/2 stream is served by its own task; when a task hands h2 its answer it wakes the
//! connection task, and the runtime runs that task next (it was woken last), so without help
//! the connection writes each answer alone: one `writev`, one TCP segment (the port sets
//! `TCP_NODELAY`) and one wake-up of the client per answer, while the other streams' answers
//! are moments away. [`BatchedWrites`] lets those streams finish first: the first write of a
//! flush, while other streams of the connection are still in flight, is put off by one turn of
//! the runtime's queue (the connection task wakes itself and steps back), and then one write
//! carries every answer h2 has gathered meanwhile. With no other stream in flight the write is
//! immediate, so a lone call pays nothing.
//!
//! Measured (docs/performance.md, "The h2load rows"): `GET /users/7` over h2c with 32 streams
//! on one connection went from 0.86 TCP segments per answer to 0.03 and the server's
//! kernel time from 5.0–5.5 µs to about 0.5 µs per answer.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The streams of one connection whose task has not finished yet.
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    /// Counts one more stream until the returned guard is dropped (when its task ends).
    pub(crate) fn enter(&self) -> InFlightGuard {
        self.0.fetch_add(1, Ordering::Relaxed);
        InFlightGuard(self.0.clone())
    }

    fn any(&self) -> bool {
        self.0.load(Ordering::Relaxed) > 0
    }
}

/// Holds one stream in [`InFlight`] while it lives.
#[derive(Debug)]
pub(crate) struct InFlightGuard(Arc<AtomicUsize>);

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Streams accepted in a row before the connection task steps behind them.
///
/// One write per batch of ready answers saves writes and wake-ups, but a batch as large as the
/// client's whole window makes server and client take turns: the client gets every answer at
/// once, sends every next request at once, and each side waits while the other works. Stepping
/// behind the streams after every [`AcceptBurst::LIMIT`] accepted ones splits the window: the
/// first streams answer (one write) while the rest are still to be served, so the client is
/// already sending the next requests while the server works. Measured with h2load on one
/// connection (docs/performance.md, "The h2load rows"): at 32 streams, 1.0× the QPS of no limit
/// with 8, 1.4× with 12 and 16, 1.0× with 24 (its second batch of 8 leaves the server idle); at
/// 100 streams 1.2×–1.5× with 8 to 24. Fewer streams than the limit never step back.
#[derive(Debug, Default)]
pub(crate) struct AcceptBurst(usize);

impl AcceptBurst {
    const LIMIT: usize = 16;

    /// Counts one accepted stream; true when the connection task should step behind the
    /// streams it has spawned (`tokio::task::yield_now`) before accepting more.
    pub(crate) fn accepted(&mut self) -> bool {
        self.0 += 1;
        if self.0 < Self::LIMIT {
            return false;
        }
        self.0 = 0;
        true
    }
}

/// An I/O stream whose writes wait one turn of the runtime while other streams of the
/// connection may still add their answers (see the module docs).
#[derive(Debug)]
pub(crate) struct BatchedWrites<T> {
    inner: T,
    in_flight: InFlight,
    /// This flush has already stepped back once; it writes now.
    deferred: bool,
}

impl<T> BatchedWrites<T> {
    pub(crate) fn new(inner: T, in_flight: InFlight) -> Self {
        Self {
            inner,
            in_flight,
            deferred: false,
        }
    }

    /// Whether this write steps back: the first of a flush while other streams are in flight.
    /// The task wakes itself, so the runtime polls it again after the tasks already queued.
    fn step_back(&mut self, cx: &mut Context<'_>) -> bool {
        if self.deferred || !self.in_flight.any() {
            return false;
        }
        self.deferred = true;
        cx.waker().wake_by_ref();
        true
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for BatchedWrites<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for BatchedWrites<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.step_back(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.step_back(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // h2 flushes after it has written out everything it had: the next write starts a
        // new batch.
        self.deferred = false;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::task::{Wake, Waker};

    use super::*;

    /// Counts the writes that reach the socket.
    #[derive(Default)]
    struct Socket {
        writes: usize,
        bytes: Vec<u8>,
    }

    impl AsyncWrite for Socket {
        fn poll_write(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            self.writes += 1;
            self.bytes.extend_from_slice(buf);
            Poll::Ready(Ok(buf.len()))
        }
        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    #[derive(Default)]
    struct Wakes(AtomicUsize);

    impl Wake for Wakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn write(io: &mut BatchedWrites<Socket>, cx: &mut Context<'_>, b: &[u8]) -> Poll<usize> {
        match Pin::new(io).poll_write(cx, b) {
            Poll::Ready(r) => Poll::Ready(r.unwrap_or(0)),
            Poll::Pending => Poll::Pending,
        }
    }

    #[test]
    fn accept_burst_steps_back_after_every_sixteen_streams() {
        let mut burst = AcceptBurst::default();
        let steps: Vec<usize> = (1..=40).filter(|_| burst.accepted()).collect();
        assert_eq!(steps, vec![16, 32]);
    }

    #[test]
    fn writes_at_once_without_other_streams() {
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let mut io = BatchedWrites::new(Socket::default(), InFlight::default());
        assert_eq!(write(&mut io, &mut cx, b"abc"), Poll::Ready(3));
        assert_eq!(io.inner.writes, 1);
        assert_eq!(wakes.0.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn steps_back_once_per_flush_while_streams_are_in_flight() {
        let wakes = Arc::new(Wakes::default());
        let waker = Waker::from(wakes.clone());
        let mut cx = Context::from_waker(&waker);
        let in_flight = InFlight::default();
        let stream = in_flight.enter();
        let mut io = BatchedWrites::new(Socket::default(), in_flight.clone());

        // The first write steps back and wakes the task, so it is polled again.
        assert_eq!(write(&mut io, &mut cx, b"one"), Poll::Pending);
        assert_eq!(wakes.0.load(Ordering::Relaxed), 1);
        assert_eq!(io.inner.writes, 0);
        // Polled again: the rest of the flush goes straight through.
        assert_eq!(write(&mut io, &mut cx, b"one"), Poll::Ready(3));
        assert_eq!(write(&mut io, &mut cx, b"two"), Poll::Ready(3));
        assert_eq!(io.inner.writes, 2);
        assert!(Pin::new(&mut io).poll_flush(&mut cx).is_ready());
        // The next flush steps back again, until no other stream is in flight.
        assert_eq!(write(&mut io, &mut cx, b"three"), Poll::Pending);
        assert_eq!(wakes.0.load(Ordering::Relaxed), 2);
        assert!(Pin::new(&mut io).poll_flush(&mut cx).is_ready());
        drop(stream);
        assert_eq!(write(&mut io, &mut cx, b"three"), Poll::Ready(5));
        assert_eq!(io.inner.bytes, b"onetwothree".to_vec());
        assert_eq!(wakes.0.load(Ordering::Relaxed), 2);
    }
}
