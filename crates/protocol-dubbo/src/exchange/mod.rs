//! The exchange layer: request/response matching over long-lived connections, heartbeats,
//! readonly events, dispatch and graceful shutdown.
//!
//! Each connection has one writer task that owns the socket's write half. Whoever produces a
//! frame (a caller, a handler task, the reader answering a heartbeat) encodes it completely and
//! queues it; the writer drains everything queued into one buffer and writes it with one
//! `write_all`, so many small frames in flight become few syscalls. When it finds only one
//! frame it first steps behind the other ready tasks once (`tokio::task::yield_now`), which turns the
//! one-`send`-per-response pattern of a busy provider into one `send` per batch.

pub(crate) mod availability;
pub(crate) mod backoff;
pub mod client;
pub(crate) mod handle;
pub mod pending;
pub mod server;

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Frames queued per connection before producers wait.
pub(crate) const WRITE_QUEUE: usize = 1024;
/// Most bytes gathered into one socket write.
const MAX_BATCH: usize = 256 * 1024;
/// How long a closing connection keeps trying to flush frames already queued.
const CLOSE_FLUSH: Duration = Duration::from_secs(1);

/// Writes queued frames until every sender is gone or `close` fires, then flushes what is
/// still queued (bounded by [`CLOSE_FLUSH`]) and shuts the write half down.
pub(crate) async fn write_loop<W>(
    mut wr: W,
    mut rx: mpsc::Receiver<Bytes>,
    close: CancellationToken,
) where
    W: AsyncWrite + Unpin,
{
    let mut buf = BytesMut::new();
    loop {
        let first = tokio::select! {
            biased;
            f = rx.recv() => match f {
                Some(f) => f,
                None => break,
            },
            _ = close.cancelled() => break,
        };
        // A batch already taken off the queue is finished even when the close comes in the
        // middle of it (a graceful shutdown's last responses); only a peer that stops reading
        // for a second after the close loses it.
        let res = tokio::select! {
            r = write_batch(&mut wr, &mut rx, &mut buf, first) => r,
            _ = async {
                close.cancelled().await;
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            } => break,
        };
        if let Err(e) = res {
            tracing::debug!(error = %e, "write failed; closing connection");
            close.cancel();
            return;
        }
    }
    // Flush what producers queued before the close (e.g. the last responses of a graceful
    // shutdown), without waiting on a peer that does not read.
    let _ = tokio::time::timeout(CLOSE_FLUSH, async {
        while let Ok(f) = rx.try_recv() {
            if write_batch(&mut wr, &mut rx, &mut buf, f).await.is_err() {
                return;
            }
        }
        let _ = wr.shutdown().await;
    })
    .await;
}

async fn write_batch<W>(
    wr: &mut W,
    rx: &mut mpsc::Receiver<Bytes>,
    buf: &mut BytesMut,
    first: Bytes,
) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    let second = match rx.try_recv() {
        Ok(f) => Some(f),
        Err(_) => {
            // Flush coalescing: the producer that just woke this task is usually one of several
            // that are ready to run (handlers finishing on a provider, callers sending their
            // next request after a batch of responses). Step behind them once, so their frames
            // join this write instead of costing a syscall each. No syscall, no timer: just one
            // more trip through the run queue.
            tokio::task::yield_now().await;
            rx.try_recv().ok()
        }
    };
    match second {
        // One frame alone: write it as is, without copying.
        None => wr.write_all(&first).await,
        Some(second) => {
            buf.clear();
            buf.extend_from_slice(&first);
            buf.extend_from_slice(&second);
            while buf.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(f) => buf.extend_from_slice(&f),
                    Err(_) => break,
                }
            }
            let r = wr.write_all(buf).await;
            buf.clear();
            if buf.capacity() > 4 * MAX_BATCH {
                *buf = BytesMut::new();
            }
            r
        }
    }
}
