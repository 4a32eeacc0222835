//! Finished spans as an OTLP export request.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::otlp::{
    any_value, AnyValue, ExportTraceServiceRequest, InstrumentationScope, KeyValue, Resource,
    ResourceSpans, ScopeSpans, Span, Status, SPAN_KIND_CLIENT, SPAN_KIND_SERVER, STATUS_CODE_ERROR,
};
use crate::span::{AttributeValue, FinishedSpan, SpanKind};

/// The instrumentation scope named in every export.
const SCOPE_NAME: &str = "org.apache.dubbo.rs";

/// One request carrying `spans` of the application `service_name` (the resource's
/// `service.name`, as Java Dubbo sets it from the application name).
pub fn export_request(service_name: &str, spans: &[FinishedSpan]) -> ExportTraceServiceRequest {
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![key_value(
                    "service.name",
                    &AttributeValue::Text(service_name.into()),
                )],
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: SCOPE_NAME.into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                }),
                spans: spans.iter().map(otlp_span).collect(),
            }],
        }],
    }
}

fn otlp_span(span: &FinishedSpan) -> Span {
    Span {
        trace_id: span.trace_id.0.to_vec(),
        span_id: span.span_id.0.to_vec(),
        trace_state: span.trace_state.clone().unwrap_or_default(),
        parent_span_id: span
            .parent_span_id
            .map(|p| p.0.to_vec())
            .unwrap_or_default(),
        name: span.name.clone(),
        kind: match span.kind {
            SpanKind::Client => SPAN_KIND_CLIENT,
            SpanKind::Server => SPAN_KIND_SERVER,
        },
        start_time_unix_nano: unix_nanos(span.start),
        end_time_unix_nano: unix_nanos(span.end),
        attributes: span
            .attributes
            .iter()
            .map(|(k, v)| key_value(k, v))
            .collect(),
        status: span.error.as_ref().map(|message| Status {
            message: message.clone(),
            code: STATUS_CODE_ERROR,
        }),
        // Only sampled spans are recorded.
        flags: 1,
    }
}

fn key_value(key: &str, value: &AttributeValue) -> KeyValue {
    let value = match value {
        AttributeValue::Text(t) => any_value::Value::StringValue(t.clone()),
        AttributeValue::Int(i) => any_value::Value::IntValue(*i),
    };
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(value) }),
    }
}

fn unix_nanos(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use prost::Message;

    use super::*;
    use crate::span::rpc_attributes;
    use crate::trace_context::{SpanId, TraceId};

    #[test]
    fn a_failed_server_span_round_trips() {
        let start = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let span = FinishedSpan {
            trace_id: TraceId([7; 16]),
            span_id: SpanId([2; 8]),
            parent_span_id: Some(SpanId([1; 8])),
            trace_state: Some("k=v".into()),
            name: "org.example.Greeter/sayHello".into(),
            kind: SpanKind::Server,
            start,
            end: start + Duration::from_millis(3),
            attributes: rpc_attributes("org.example.Greeter", "sayHello"),
            error: Some("boom".into()),
        };
        let bytes = export_request("demo", &[span]).encode_to_vec();
        let back = ExportTraceServiceRequest::decode(bytes.as_slice()).unwrap();
        let rs = &back.resource_spans[0];
        assert_eq!(
            rs.resource.as_ref().unwrap().attributes[0].key,
            "service.name"
        );
        let s = &rs.scope_spans[0].spans[0];
        assert_eq!(s.trace_id, vec![7; 16]);
        assert_eq!(s.parent_span_id, vec![1; 8]);
        assert_eq!(s.kind, SPAN_KIND_SERVER);
        assert_eq!(s.trace_state, "k=v");
        assert_eq!(s.end_time_unix_nano - s.start_time_unix_nano, 3_000_000);
        assert_eq!(s.status.as_ref().unwrap().code, STATUS_CODE_ERROR);
        let system = s
            .attributes
            .iter()
            .find(|kv| kv.key == "rpc.system")
            .unwrap();
        assert_eq!(
            system.value.as_ref().unwrap().value,
            Some(any_value::Value::StringValue("apache_dubbo".into()))
        );
    }
}
