//! `dubbo describe SERVICE --url tri://…`: a protobuf service as the server's gRPC reflection
//! describes it — each method's request and response types and streaming kind, and the fields
//! of every message the methods reach, which is what `dubbo call` takes and answers as JSON.

use std::collections::BTreeMap;

use prost_reflect::{DescriptorPool, Kind, MessageDescriptor};
use serde_json::json;

use crate::dubbo::output::{self, Format, Table};
use crate::dubbo::reflection::{self, streaming_kind, GrpcMethod};
use crate::dubbo::tls::TlsFlags;
use crate::dubbo::CliError;

/// One field of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRow {
    /// The field's name in the `.proto`.
    pub name: String,
    /// Its name in JSON (lowerCamelCase unless the `.proto` says otherwise).
    pub json_name: String,
    /// Its number.
    pub number: u32,
    /// `string`, `int32`, `.pkg.Message`, `repeated …`, `map<K, V>`.
    pub type_name: String,
}

/// A type's name as a `.proto` writes it.
fn kind_name(kind: &Kind) -> String {
    match kind {
        Kind::Message(m) => m.full_name().to_owned(),
        Kind::Enum(e) => e.full_name().to_owned(),
        other => format!("{other:?}").to_ascii_lowercase(),
    }
}

/// The fields of `message`, with repeated and map fields named as a `.proto` writes them.
pub fn fields(message: &MessageDescriptor) -> Vec<FieldRow> {
    message
        .fields()
        .map(|f| {
            let kind = f.kind();
            let type_name = match kind.as_message() {
                Some(entry) if f.is_map() => {
                    let key = entry.map_entry_key_field().kind();
                    let value = entry.map_entry_value_field().kind();
                    format!("map<{}, {}>", kind_name(&key), kind_name(&value))
                }
                _ if f.is_list() => format!("repeated {}", kind_name(&kind)),
                _ => kind_name(&kind),
            };
            FieldRow {
                name: f.name().to_owned(),
                json_name: f.json_name().to_owned(),
                number: f.number(),
                type_name,
            }
        })
        .collect()
}

/// Every message the methods of `service` reach, through their fields, by full name.
pub fn messages(pool: &DescriptorPool, service: &str) -> BTreeMap<String, Vec<FieldRow>> {
    let mut out = BTreeMap::new();
    let Some(s) = pool.get_service_by_name(service) else {
        return out;
    };
    let mut todo: Vec<MessageDescriptor> =
        s.methods().flat_map(|m| [m.input(), m.output()]).collect();
    while let Some(message) = todo.pop() {
        if out.contains_key(message.full_name()) {
            continue;
        }
        for f in message.fields() {
            if let Some(m) = f.kind().as_message() {
                if m.is_map_entry() {
                    todo.extend(m.map_entry_value_field().kind().as_message().cloned());
                } else {
                    todo.push(m.clone());
                }
            }
        }
        out.insert(message.full_name().to_owned(), fields(&message));
    }
    out
}

/// Runs `dubbo describe SERVICE --url tri://…`. A server whose reflection cannot give every
/// file the service imports still has its methods shown, without the messages' fields.
pub async fn run(
    target: &str,
    service: &str,
    tls: &TlsFlags,
    format: Format,
) -> Result<(), CliError> {
    let (methods, messages) = match reflection::pool(target, service, tls).await {
        Ok(pool) => {
            let Some(s) = pool.get_service_by_name(service) else {
                return Err(CliError::NotFound(format!(
                    "reflection describes no service {service}"
                )));
            };
            let methods: Vec<GrpcMethod> = s
                .methods()
                .map(|m| GrpcMethod {
                    name: m.name().to_owned(),
                    input: format!(".{}", m.input().full_name()),
                    output: format!(".{}", m.output().full_name()),
                    client_streaming: m.is_client_streaming(),
                    server_streaming: m.is_server_streaming(),
                })
                .collect();
            (methods, messages(&pool, service))
        }
        Err(_) => (
            reflection::methods_with(target, service, tls).await?,
            BTreeMap::new(),
        ),
    };
    match format {
        Format::Json => output::print_json(&json!({
            "service": service,
            "methods": methods.iter().map(|m| json!({
                "name": m.name,
                "input": m.input,
                "output": m.output,
                "clientStreaming": m.client_streaming,
                "serverStreaming": m.server_streaming,
            })).collect::<Vec<_>>(),
            "messages": messages.iter().map(|(name, fields)| json!({
                "name": name,
                "fields": fields.iter().map(|f| json!({
                    "name": f.name,
                    "jsonName": f.json_name,
                    "number": f.number,
                    "type": f.type_name,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })),
        Format::Table => {
            let mut t = Table::new(&["METHOD", "REQUEST", "RESPONSE", "STREAMING"]);
            for m in methods {
                t.row(vec![
                    m.name,
                    m.input.trim_start_matches('.').to_owned(),
                    m.output.trim_start_matches('.').to_owned(),
                    streaming_kind(m.client_streaming, m.server_streaming).to_owned(),
                ]);
            }
            let mut text = format!("{service}\n\n{}", t.render());
            if !messages.is_empty() {
                let mut f = Table::new(&["MESSAGE", "FIELD", "JSON", "NUMBER", "TYPE"]);
                for (name, fields) in &messages {
                    for field in fields {
                        f.row(vec![
                            name.clone(),
                            field.name.clone(),
                            field.json_name.clone(),
                            field.number.to_string(),
                            field.type_name.clone(),
                        ]);
                    }
                }
                text.push('\n');
                text.push_str(&f.render());
            }
            output::print(&text)
        }
    }
}
