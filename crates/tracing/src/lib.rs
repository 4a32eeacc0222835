//! Distributed tracing of dubbo-rs calls, as Java Dubbo 3.3's `dubbo.tracing` does it.
//!
//! The [`TracingFilter`] records a client span around each consumer call (once per call, at
//! the cluster stage, as Java's `ObservationSenderFilter` is a cluster filter) and a server
//! span around each provider call, named `{service}/{method}` with OpenTelemetry's RPC
//! attributes. The caller's span travels as W3C `traceparent` / `tracestate` attachments
//! (Triple sends attachments as HTTP/2 headers); a provider continues the incoming trace, and
//! a consumer call made while a provider call is being served continues that call's trace.
//! Sampled spans are sent in batches to an OTLP/HTTP receiver by a [`SpanExporter`]; a call
//! never waits for export, and spans are dropped (and counted) rather than queued without
//! bound.
//!
//! ```
//! use dubbo_tracing::{SpanContext, TracerConfig, Tracer};
//!
//! let (tracer, exporter) = Tracer::new(TracerConfig::new("demo")).unwrap();
//! assert!(exporter.is_none()); // no OTLP endpoint: the context is propagated, nothing sent
//! let parent = SpanContext::from_traceparent(
//!     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", None).unwrap();
//! let child = tracer.child_of(Some(&parent));
//! assert_eq!(child.trace_id, parent.trace_id);
//! assert!(child.sampled);
//! ```

mod config;
mod current;
mod encode;
mod error;
mod exporter;
mod filter;
pub mod otlp;
mod otlp_http;
mod sampler;
mod span;
mod trace_context;
mod tracer;
mod tracers;

pub use config::{
    OtlpConfig, TracerConfig, DEFAULT_EXPORT_TIMEOUT, DEFAULT_MAX_EXPORT_BATCH_SIZE,
    DEFAULT_MAX_QUEUE_SIZE, DEFAULT_SAMPLING_PROBABILITY, DEFAULT_SCHEDULE_DELAY,
};
pub use current::{current_span, in_span};
pub use encode::export_request;
pub use error::TracingError;
pub use exporter::SpanExporter;
pub use filter::{TracingFilter, CLIENT_TRACING_FILTER_NAME, SERVER_TRACING_FILTER_NAME};
pub use sampler::Sampler;
pub use span::{AttributeValue, FinishedSpan, SpanKind};
pub use trace_context::{SpanContext, SpanId, TraceId, TRACEPARENT, TRACESTATE};
pub use tracer::Tracer;
pub use tracers::Tracers;
