//! A finished span, as it waits for export.

use std::time::SystemTime;

use crate::trace_context::{SpanId, TraceId};

/// Whether a span is the caller's or the callee's side of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpanKind {
    /// The consumer's span (OTLP `SPAN_KIND_CLIENT`).
    Client,
    /// The provider's span (OTLP `SPAN_KIND_SERVER`).
    Server,
}

/// An attribute value.
#[derive(Debug, Clone, PartialEq)]
pub enum AttributeValue {
    /// Text.
    Text(String),
    /// A whole number (ports).
    Int(i64),
}

/// One recorded call, ready for export.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedSpan {
    /// The trace it belongs to.
    pub trace_id: TraceId,
    /// Its own id.
    pub span_id: SpanId,
    /// The span it was called from, if any (for a server span: the caller's client span).
    pub parent_span_id: Option<SpanId>,
    /// The `tracestate` in force, forwarded to the exporter.
    pub trace_state: Option<String>,
    /// `{service}/{method}`, as OpenTelemetry's RPC conventions name a span.
    pub name: String,
    /// Client or server.
    pub kind: SpanKind,
    /// When the call started.
    pub start: SystemTime,
    /// When it ended.
    pub end: SystemTime,
    /// `rpc.system`, `rpc.service`, `rpc.method`, peer address, ...
    pub attributes: Vec<(&'static str, AttributeValue)>,
    /// The failure's message when the call failed; `None` when it succeeded.
    pub error: Option<String>,
}

/// The attributes of OpenTelemetry's RPC conventions that every span carries.
pub(crate) fn rpc_attributes(service: &str, method: &str) -> Vec<(&'static str, AttributeValue)> {
    vec![
        ("rpc.system", AttributeValue::Text("apache_dubbo".into())),
        ("rpc.service", AttributeValue::Text(service.into())),
        ("rpc.method", AttributeValue::Text(method.into())),
    ]
}

/// The peer's address under both the older (`net.peer.*`, Java Dubbo's) and the current
/// (`server.*` / `client.*`) convention names.
pub(crate) fn peer_attributes(
    attributes: &mut Vec<(&'static str, AttributeValue)>,
    kind: SpanKind,
    host: &str,
    port: u16,
) {
    let (name_key, port_key) = match kind {
        SpanKind::Client => ("server.address", "server.port"),
        SpanKind::Server => ("client.address", "client.port"),
    };
    for (k, v) in [
        ("net.peer.name", AttributeValue::Text(host.into())),
        ("net.peer.port", AttributeValue::Int(port.into())),
        (name_key, AttributeValue::Text(host.into())),
        (port_key, AttributeValue::Int(port.into())),
    ] {
        attributes.push((k, v));
    }
}
