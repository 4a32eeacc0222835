//! The span queue and the task that sends its spans in batches.
//!
//! A finished span is offered to a bounded queue and never waited for: when the queue is full
//! (the receiver is slow or gone) the span is dropped and counted. One task takes spans off
//! the queue and sends a batch when it is full or when the oldest span has waited the
//! schedule delay; a batch that cannot be delivered is dropped and counted too.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use prost::Message;
use tokio::sync::{mpsc, oneshot};

use crate::config::TracerConfig;
use crate::encode::export_request;
use crate::otlp_http::OtlpHttpClient;
use crate::span::FinishedSpan;

enum Command {
    Export(FinishedSpan),
    Flush(oneshot::Sender<()>),
}

/// The sending end: cheap to offer a span to, never blocking.
#[derive(Debug)]
pub(crate) struct SpanQueue {
    sender: mpsc::Sender<Command>,
    dropped: Arc<AtomicU64>,
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Command::Export(_) => "Export",
            Command::Flush(_) => "Flush",
        })
    }
}

impl SpanQueue {
    /// Queues `span`, or drops and counts it when the queue is full or the exporter stopped.
    pub(crate) fn offer(&self, span: FinishedSpan) {
        if self.sender.try_send(Command::Export(span)).is_err() {
            count_dropped(&self.dropped, 1, "the export queue is full or closed");
        }
    }

    /// Waits until every span queued before this call has been sent (or given up).
    pub(crate) async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        if self.sender.send(Command::Flush(done)).await.is_ok() {
            let _ = wait.await;
        }
    }

    /// Spans dropped so far.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// Counts `n` dropped spans and warns at the first drop and then at each power of two, so a
/// broken receiver is reported without flooding the log.
fn count_dropped(dropped: &AtomicU64, n: u64, why: &str) {
    let before = dropped.fetch_add(n, Ordering::Relaxed);
    let after = before + n;
    if before == 0 || (before + 1..=after).any(u64::is_power_of_two) {
        tracing::warn!(dropped_total = after, "tracing: spans dropped: {why}");
    }
}

/// The receiving end; [`run`](Self::run) it on the runtime.
#[derive(Debug)]
pub struct SpanExporter {
    receiver: mpsc::Receiver<Command>,
    client: OtlpHttpClient,
    application: String,
    max_batch: usize,
    schedule_delay: std::time::Duration,
    dropped: Arc<AtomicU64>,
}

pub(crate) fn span_queue(
    config: &TracerConfig,
    client: OtlpHttpClient,
) -> (SpanQueue, SpanExporter) {
    let (sender, receiver) = mpsc::channel(config.max_queue_size.max(1));
    let dropped = Arc::new(AtomicU64::new(0));
    (
        SpanQueue {
            sender,
            dropped: dropped.clone(),
        },
        SpanExporter {
            receiver,
            client,
            application: config.application.clone(),
            max_batch: config.max_export_batch_size.max(1),
            schedule_delay: config.schedule_delay,
            dropped,
        },
    )
}

impl SpanExporter {
    /// Sends queued spans until `shutdown` completes or every tracer handle is gone, then
    /// sends what is still queued once and returns.
    pub async fn run(mut self, shutdown: impl Future<Output = ()>) {
        tokio::pin!(shutdown);
        let mut batch: Vec<FinishedSpan> = Vec::with_capacity(self.max_batch);
        let mut ticker = tokio::time::interval(self.schedule_delay);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                command = self.receiver.recv() => match command {
                    Some(Command::Export(span)) => {
                        batch.push(span);
                        if batch.len() >= self.max_batch {
                            self.send(&mut batch).await;
                        }
                    }
                    Some(Command::Flush(done)) => {
                        self.send(&mut batch).await;
                        let _ = done.send(());
                    }
                    None => break,
                },
                _ = ticker.tick() => self.send(&mut batch).await,
                () = &mut shutdown => {
                    while let Ok(command) = self.receiver.try_recv() {
                        match command {
                            Command::Export(span) => batch.push(span),
                            Command::Flush(done) => { let _ = done.send(()); }
                        }
                    }
                    break;
                }
            }
        }
        for chunk in batch.chunks(self.max_batch) {
            self.send(&mut chunk.to_vec()).await;
        }
    }

    async fn send(&self, batch: &mut Vec<FinishedSpan>) {
        if batch.is_empty() {
            return;
        }
        let body = export_request(&self.application, batch).encode_to_vec();
        if let Err(e) = self.client.post(body).await {
            tracing::debug!(error = %e, "tracing: export failed");
            count_dropped(&self.dropped, batch.len() as u64, &e.to_string());
        }
        batch.clear();
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::config::OtlpConfig;
    use crate::span::{rpc_attributes, SpanKind};
    use crate::trace_context::{SpanId, TraceId};

    fn span() -> FinishedSpan {
        FinishedSpan {
            trace_id: TraceId::random(),
            span_id: SpanId::random(),
            parent_span_id: None,
            trace_state: None,
            name: "s/m".into(),
            kind: SpanKind::Client,
            start: SystemTime::now(),
            end: SystemTime::now(),
            attributes: rpc_attributes("s", "m"),
            error: None,
        }
    }

    /// A 127.0.0.1 endpoint where nothing listens.
    fn dead_endpoint() -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        format!("http://{addr}")
    }

    #[tokio::test]
    async fn a_full_queue_and_a_dead_receiver_drop_and_count_without_waiting() {
        let mut config = TracerConfig::new("demo");
        config.max_queue_size = 4;
        let mut otlp = OtlpConfig::new(dead_endpoint());
        otlp.timeout = Duration::from_secs(2);
        let client = OtlpHttpClient::new(otlp).unwrap();
        let (queue, exporter) = span_queue(&config, client);
        // Nothing takes spans off yet: the fifth and later are dropped at once.
        for _ in 0..10 {
            queue.offer(span());
        }
        assert_eq!(queue.dropped(), 6);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(exporter.run(async move {
            let _ = stopped.await;
        }));
        queue.flush().await;
        // The four queued ones could not be delivered.
        assert_eq!(queue.dropped(), 10);
        let _ = stop.send(());
        task.await.unwrap();
        // With the exporter gone, offering still returns at once.
        queue.offer(span());
        assert_eq!(queue.dropped(), 11);
    }
}
