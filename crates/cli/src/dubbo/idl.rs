//! The IDL form of `dubbo call tri://HOST:PORT pkg.Service.Method '{JSON}'`: the method's
//! protobuf messages are built at run time from the descriptors the server's gRPC reflection
//! answers, the JSON is turned into the request message by protobuf's JSON mapping, the call
//! goes over Triple as a gRPC client's would, and the answer is printed back as JSON, as
//! grpcurl does. Interface-mode services (no protobuf schema) keep the generic form.

use std::time::{Duration, Instant};

use bytes::Bytes;
use dubbo_rs::protocol_triple::{Request, TripleClient};
use http::{HeaderName, HeaderValue};
use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor, MethodDescriptor};

use crate::dubbo::call::CallRequest;
use crate::dubbo::reflection::{self, streaming_kind};
use crate::dubbo::tls::TlsFlags;
use crate::dubbo::CliError;

/// What an IDL call answered.
#[derive(Debug, Clone)]
pub struct IdlAnswer {
    /// The request message's full name.
    pub input: String,
    /// The response message's full name.
    pub output: String,
    /// `unary`, `server`, `client` or `bidi`.
    pub streaming: &'static str,
    /// The response as JSON; a stream of responses is an array of them.
    pub result: serde_json::Value,
    /// How long the call took, from the first byte sent to the last received.
    pub elapsed: Duration,
}

/// The method `request` names, when the server's reflection describes its service with a
/// protobuf schema; `None` (call it generically) when the target is not tri://, `--types` was
/// given, or reflection has no schema for the service (an interface-mode service, or a server
/// without reflection). A described service without that method is an error naming the ones
/// it has.
pub async fn method_of(
    request: &CallRequest,
    tls: &TlsFlags,
) -> Result<Option<MethodDescriptor>, CliError> {
    if !request.target.starts_with("tri://") || request.types.is_some() {
        return Ok(None);
    }
    let Ok(pool) = reflection::pool(&request.target, &request.service, tls).await else {
        return Ok(None);
    };
    find(&pool, &request.service, &request.method).map(Some)
}

/// `service.method` in `pool`.
pub fn find(
    pool: &DescriptorPool,
    service: &str,
    method: &str,
) -> Result<MethodDescriptor, CliError> {
    let Some(s) = pool.get_service_by_name(service) else {
        return Err(CliError::NotFound(format!(
            "reflection describes no service {service}"
        )));
    };
    let found = s.methods().find(|m| m.name() == method);
    found.ok_or_else(|| {
        let names: Vec<String> = s.methods().map(|m| m.name().to_owned()).collect();
        CliError::NotFound(format!(
            "{service} has no method {method}; it has {}",
            names.join(", ")
        ))
    })
}

/// The request messages of `method` from the JSON text: one object for a method the client
/// does not stream (`[]`, the default, is the empty message); an array of objects (or one
/// object) for a client stream.
pub fn requests(method: &MethodDescriptor, text: &str) -> Result<Vec<Bytes>, CliError> {
    let value: serde_json::Value = if text.trim().is_empty() {
        serde_json::Value::Array(Vec::new())
    } else {
        serde_json::from_str(text).map_err(|e| CliError::bad("JSON arguments", e.to_string()))?
    };
    let items = match value {
        serde_json::Value::Array(items) if method.is_client_streaming() => items,
        serde_json::Value::Array(items) if items.is_empty() => {
            vec![serde_json::Value::Object(Default::default())]
        }
        serde_json::Value::Array(mut items) if items.len() == 1 => vec![items.remove(0)],
        serde_json::Value::Array(_) => {
            return Err(CliError::bad(
                "JSON arguments",
                format!(
                    "{} takes one {} message: give one JSON object",
                    method.full_name(),
                    method.input().full_name()
                ),
            ))
        }
        other => vec![other],
    };
    items
        .into_iter()
        .map(|item| encode(&method.input(), item))
        .collect()
}

fn encode(desc: &MessageDescriptor, json: serde_json::Value) -> Result<Bytes, CliError> {
    let message = DynamicMessage::deserialize(desc.clone(), json).map_err(|e| {
        CliError::bad(
            "JSON arguments",
            format!("not a {} message: {e}", desc.full_name()),
        )
    })?;
    Ok(Bytes::from(message.encode_to_vec()))
}

/// A response payload as JSON (protobuf's JSON mapping: lowerCamelCase names, fields at their
/// default left out).
pub fn decode(desc: &MessageDescriptor, payload: &[u8]) -> Result<serde_json::Value, CliError> {
    let message = DynamicMessage::decode(desc.clone(), payload)
        .map_err(|e| CliError::io(format!("a {} from the server", desc.full_name()), &e))?;
    serde_json::to_value(&message).map_err(|e| CliError::io("JSON output", &e))
}

/// Calls `method` at `request.target` with the JSON arguments of `request`.
pub async fn call(
    request: &CallRequest,
    method: &MethodDescriptor,
    tls: &TlsFlags,
) -> Result<IdlAnswer, CliError> {
    let payloads = requests(method, &request.args)?;
    let (channel, addr) = reflection::open(&request.target, tls).await?;
    let mut client = TripleClient::new(channel.clone());
    if let Some(v) = &request.version {
        client = client.with_version(v);
    }
    if let Some(g) = &request.group {
        client = client.with_group(g);
    }
    let mut carrier = Request::new(());
    for (k, v) in &request.attachments {
        let name = HeaderName::try_from(k.to_ascii_lowercase())
            .map_err(|e| CliError::bad("--attachment", format!("{k:?}: {e}")))?;
        let value = HeaderValue::try_from(v.as_str())
            .map_err(|e| CliError::bad("--attachment", format!("{v:?}: {e}")))?;
        carrier.metadata_mut().append(name, value);
    }
    let metadata = carrier.metadata();
    let path = format!("/{}/{}", method.parent_service().full_name(), method.name());
    let timeout = Some(Duration::from_millis(request.timeout_ms));
    let output = method.output();
    let started = Instant::now();
    let outcome: Result<Vec<Bytes>, dubbo_rs::protocol_triple::Status> = async {
        match (method.is_client_streaming(), method.is_server_streaming()) {
            (false, false) => {
                let one = payloads.into_iter().next().unwrap_or_default();
                Ok(vec![
                    client
                        .unary_raw(&path, metadata, one, timeout)
                        .await?
                        .payload,
                ])
            }
            (false, true) => {
                let one = payloads.into_iter().next().unwrap_or_default();
                let stream = client
                    .server_streaming_raw(&path, metadata, one, timeout)
                    .await?;
                collect(stream.into_inner()).await
            }
            (true, false) => {
                let stream = futures::stream::iter(payloads);
                Ok(vec![
                    client
                        .client_streaming_raw(&path, metadata, stream, timeout)
                        .await?
                        .payload,
                ])
            }
            (true, true) => {
                let stream = futures::stream::iter(payloads);
                let replies = client
                    .bidi_streaming_raw(&path, metadata, stream, timeout)
                    .await?;
                collect(replies.into_inner()).await
            }
        }
    }
    .await;
    let elapsed = started.elapsed();
    channel.close().await;
    let replies = outcome.map_err(|s| {
        CliError::Rpc(dubbo_rs::core::RpcError::framework(
            dubbo_rs::protocol_triple::status::error_code_of(s.code(), s.message()),
            format!("{path} at {addr}: {} {}", s.code(), s.message()),
        ))
    })?;
    let mut messages = replies
        .iter()
        .map(|p| decode(&output, p))
        .collect::<Result<Vec<_>, _>>()?;
    let result = if method.is_server_streaming() {
        serde_json::Value::Array(messages)
    } else {
        messages.pop().unwrap_or(serde_json::Value::Null)
    };
    Ok(IdlAnswer {
        input: method.input().full_name().to_owned(),
        output: output.full_name().to_owned(),
        streaming: streaming_kind(method.is_client_streaming(), method.is_server_streaming()),
        result,
        elapsed,
    })
}

async fn collect(
    mut stream: dubbo_rs::protocol_triple::Streaming<Bytes>,
) -> Result<Vec<Bytes>, dubbo_rs::protocol_triple::Status> {
    let mut out = Vec::new();
    while let Some(payload) = stream.message().await? {
        out.push(payload);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost_types::field_descriptor_proto::{Label, Type};
    use prost_types::{
        DescriptorProto, FieldDescriptorProto, FileDescriptorProto, MethodDescriptorProto,
        ServiceDescriptorProto,
    };

    /// `demo.Echo` with `Say(Msg) returns (Msg)` and `Collect(stream Msg) returns (Msg)`,
    /// `Msg { string text = 1; int64 count = 2; }`.
    fn pool() -> DescriptorPool {
        let field = |name: &str, number, kind: Type| FieldDescriptorProto {
            name: Some(name.into()),
            number: Some(number),
            label: Some(Label::Optional as i32),
            r#type: Some(kind as i32),
            json_name: None,
            ..Default::default()
        };
        let method = |name: &str, client_streaming| MethodDescriptorProto {
            name: Some(name.into()),
            input_type: Some(".demo.Msg".into()),
            output_type: Some(".demo.Msg".into()),
            client_streaming: Some(client_streaming),
            server_streaming: Some(false),
            options: None,
        };
        let file = FileDescriptorProto {
            name: Some("demo.proto".into()),
            package: Some("demo".into()),
            message_type: vec![DescriptorProto {
                name: Some("Msg".into()),
                field: vec![
                    field("text", 1, Type::String),
                    field("count", 2, Type::Int64),
                ],
                ..Default::default()
            }],
            service: vec![ServiceDescriptorProto {
                name: Some("Echo".into()),
                method: vec![method("Say", false), method("Collect", true)],
                options: None,
            }],
            syntax: Some("proto3".into()),
            ..Default::default()
        };
        let mut pool = DescriptorPool::new();
        pool.add_file_descriptor_protos([file]).unwrap();
        pool
    }

    #[test]
    fn json_becomes_messages_and_back() {
        let pool = pool();
        let say = find(&pool, "demo.Echo", "Say").unwrap();
        let payloads = requests(&say, r#"{"text": "hi", "count": 5000000000}"#).unwrap();
        assert_eq!(payloads.len(), 1);
        let back = decode(&say.output(), &payloads[0]).unwrap();
        assert_eq!(
            back,
            serde_json::json!({"text": "hi", "count": "5000000000"})
        );
        // The default `[]` is the empty message, which encodes to nothing.
        assert_eq!(requests(&say, "[]").unwrap(), vec![Bytes::new()]);
        assert!(requests(&say, r#"[{"text": "a"}, {"text": "b"}]"#).is_err());
        assert!(matches!(
            requests(&say, r#"{"txt": "typo"}"#),
            Err(CliError::BadArgument { .. })
        ));
        let collect = find(&pool, "demo.Echo", "Collect").unwrap();
        assert_eq!(
            requests(&collect, r#"[{"text": "a"}, {"text": "b"}]"#)
                .unwrap()
                .len(),
            2
        );
        assert_eq!(streaming_kind(true, false), "client");
        assert!(matches!(
            find(&pool, "demo.Echo", "Nope"),
            Err(CliError::NotFound(m)) if m.contains("Say, Collect")
        ));
        assert!(find(&pool, "demo.Other", "Say").is_err());
    }
}
