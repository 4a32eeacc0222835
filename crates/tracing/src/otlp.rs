//! The OTLP trace messages (`opentelemetry/proto/collector/trace/v1` and the types it uses),
//! limited to the fields a span export writes. Field numbers are OTLP's; fields left out
//! (events, links, ...) are skipped by a decoder as unknown.

/// `ExportTraceServiceRequest`: the body of `POST /v1/traces`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExportTraceServiceRequest {
    /// Spans grouped by the process that recorded them.
    #[prost(message, repeated, tag = "1")]
    pub resource_spans: Vec<ResourceSpans>,
}

/// `ResourceSpans`: the spans of one resource (one application).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceSpans {
    /// The resource (`service.name`, ...).
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    /// Spans by instrumentation scope.
    #[prost(message, repeated, tag = "2")]
    pub scope_spans: Vec<ScopeSpans>,
}

/// `Resource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Resource {
    /// Its attributes.
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

/// `ScopeSpans`: the spans of one instrumentation scope.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeSpans {
    /// The instrumentation that recorded them.
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    /// The spans.
    #[prost(message, repeated, tag = "2")]
    pub spans: Vec<Span>,
}

/// `InstrumentationScope`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentationScope {
    /// Its name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its version.
    #[prost(string, tag = "2")]
    pub version: String,
}

/// `Span`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Span {
    /// 16 bytes.
    #[prost(bytes = "vec", tag = "1")]
    pub trace_id: Vec<u8>,
    /// 8 bytes.
    #[prost(bytes = "vec", tag = "2")]
    pub span_id: Vec<u8>,
    /// W3C `tracestate`.
    #[prost(string, tag = "3")]
    pub trace_state: String,
    /// 8 bytes, or empty for a root span.
    #[prost(bytes = "vec", tag = "4")]
    pub parent_span_id: Vec<u8>,
    /// `{service}/{method}`.
    #[prost(string, tag = "5")]
    pub name: String,
    /// [`SPAN_KIND_SERVER`] or [`SPAN_KIND_CLIENT`].
    #[prost(int32, tag = "6")]
    pub kind: i32,
    /// Start, in nanoseconds since the Unix epoch.
    #[prost(fixed64, tag = "7")]
    pub start_time_unix_nano: u64,
    /// End, in nanoseconds since the Unix epoch.
    #[prost(fixed64, tag = "8")]
    pub end_time_unix_nano: u64,
    /// Its attributes.
    #[prost(message, repeated, tag = "9")]
    pub attributes: Vec<KeyValue>,
    /// Success or failure.
    #[prost(message, optional, tag = "15")]
    pub status: Option<Status>,
    /// W3C trace flags (bit 0: sampled).
    #[prost(fixed32, tag = "16")]
    pub flags: u32,
}

/// OTLP `SPAN_KIND_SERVER`.
pub const SPAN_KIND_SERVER: i32 = 2;
/// OTLP `SPAN_KIND_CLIENT`.
pub const SPAN_KIND_CLIENT: i32 = 3;
/// OTLP `STATUS_CODE_ERROR`.
pub const STATUS_CODE_ERROR: i32 = 2;

/// `Status`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Status {
    /// The failure's description.
    #[prost(string, tag = "2")]
    pub message: String,
    /// Unset (0), ok (1) or [`STATUS_CODE_ERROR`].
    #[prost(int32, tag = "3")]
    pub code: i32,
}

/// `KeyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    /// The attribute's name.
    #[prost(string, tag = "1")]
    pub key: String,
    /// Its value.
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `AnyValue`, with the two kinds spans use.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyValue {
    /// The value.
    #[prost(oneof = "any_value::Value", tags = "1, 3")]
    pub value: Option<any_value::Value>,
}

/// The `value` one-of of [`AnyValue`].
pub mod any_value {
    /// A text or a whole number.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// `string_value`.
        #[prost(string, tag = "1")]
        StringValue(String),
        /// `int_value`.
        #[prost(int64, tag = "3")]
        IntValue(i64),
    }
}
