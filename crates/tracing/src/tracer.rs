//! One application's tracer: starts spans, decides sampling, hands finished spans to export.

use std::time::SystemTime;

use crate::config::TracerConfig;
use crate::error::TracingError;
use crate::exporter::{span_queue, SpanExporter, SpanQueue};
use crate::otlp_http::OtlpHttpClient;
use crate::sampler::Sampler;
use crate::span::{AttributeValue, FinishedSpan, SpanKind};
use crate::trace_context::{SpanContext, SpanId, TraceId};

/// The tracer of one application (Java: the `ObservationRegistry` of an `ApplicationModel`).
#[derive(Debug)]
pub struct Tracer {
    application: String,
    sampler: Sampler,
    queue: Option<SpanQueue>,
}

impl Tracer {
    /// A tracer for `config`, and the exporter to run when it has an OTLP endpoint.
    pub fn new(config: TracerConfig) -> Result<(Self, Option<SpanExporter>), TracingError> {
        let (queue, exporter) = match &config.otlp {
            Some(otlp) => {
                let client = OtlpHttpClient::new(otlp.clone())?;
                let (queue, exporter) = span_queue(&config, client);
                (Some(queue), Some(exporter))
            }
            None => (None, None),
        };
        let tracer = Tracer {
            application: config.application,
            sampler: Sampler::new(config.sampling_probability),
            queue,
        };
        Ok((tracer, exporter))
    }

    /// The application whose calls it records.
    pub fn application(&self) -> &str {
        &self.application
    }

    /// A new span's context: in `parent`'s trace if there is one, else in a new trace.
    pub fn child_of(&self, parent: Option<&SpanContext>) -> SpanContext {
        let trace_id = parent.map_or_else(TraceId::random, |p| p.trace_id);
        SpanContext {
            trace_id,
            span_id: SpanId::random(),
            sampled: self.sampler.should_sample(parent, trace_id),
            trace_state: parent.and_then(|p| p.trace_state.clone()),
        }
    }

    /// Starts recording the span `ctx`; it is exported when the returned guard finishes, or
    /// as abandoned when the guard is dropped first.
    pub(crate) fn record(
        &self,
        ctx: &SpanContext,
        parent: Option<&SpanContext>,
        kind: SpanKind,
        name: String,
        attributes: Vec<(&'static str, AttributeValue)>,
    ) -> RecordingSpan<'_> {
        RecordingSpan {
            queue: self.queue.as_ref(),
            span: Some(FinishedSpan {
                trace_id: ctx.trace_id,
                span_id: ctx.span_id,
                parent_span_id: parent.map(|p| p.span_id),
                trace_state: ctx.trace_state.as_deref().map(str::to_owned),
                name,
                kind,
                start: SystemTime::now(),
                end: SystemTime::now(),
                attributes,
                error: None,
            }),
        }
    }

    /// Waits until the spans finished so far have been sent or given up.
    pub async fn flush(&self) {
        if let Some(q) = &self.queue {
            q.flush().await;
        }
    }

    /// Spans dropped so far because the queue was full or the receiver failed.
    pub fn dropped_spans(&self) -> u64 {
        self.queue.as_ref().map_or(0, SpanQueue::dropped)
    }
}

/// A span being recorded; see [`Tracer::record`].
pub(crate) struct RecordingSpan<'t> {
    queue: Option<&'t SpanQueue>,
    span: Option<FinishedSpan>,
}

impl RecordingSpan<'_> {
    /// Ends the span, failed when `error` says why.
    pub(crate) fn finish(mut self, error: Option<String>) {
        self.end(error);
    }

    fn end(&mut self, error: Option<String>) {
        if let Some(mut span) = self.span.take() {
            span.end = SystemTime::now();
            span.error = error;
            if let Some(q) = self.queue {
                q.offer(span);
            }
        }
    }
}

impl Drop for RecordingSpan<'_> {
    fn drop(&mut self) {
        self.end(Some("the call was abandoned before it completed".into()));
    }
}
