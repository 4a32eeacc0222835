//! gRPC server reflection (`grpc.reflection.v1`) against a tri:// address: the services it
//! serves, and the methods of one of them from its file descriptors, for `dubbo ls tri://…` and
//! `dubbo describe SERVICE --url tri://…`.

use dubbo_rs::protocol_triple::server::reflection::{
    ReflectionAnswer, ReflectionQuery, ServerReflectionRequest, ServerReflectionResponse,
    REFLECTION_V1,
};
use dubbo_rs::protocol_triple::{Request, TripleChannel, TripleClient, TripleConfig};
use prost::Message;
use prost_types::FileDescriptorProto;

use crate::dubbo::CliError;

/// One method as reflection describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrpcMethod {
    /// The method name.
    pub name: String,
    /// The request message type (`.pkg.Request`).
    pub input: String,
    /// The response message type.
    pub output: String,
    /// Whether the client streams.
    pub client_streaming: bool,
    /// Whether the server streams.
    pub server_streaming: bool,
}

/// `host:port` of a `tri://host:port` target.
pub fn address(target: &str) -> Result<String, CliError> {
    let rest = target.strip_prefix("tri://").ok_or_else(|| {
        CliError::bad(
            "--url",
            format!("{target:?}: reflection needs tri://HOST:PORT"),
        )
    })?;
    Ok(rest.split(['/', '?']).next().unwrap_or(rest).to_owned())
}

/// Sends one reflection query and returns the answer.
async fn ask(target: &str, query: ReflectionQuery) -> Result<ReflectionAnswer, CliError> {
    let addr = address(target)?;
    let channel = TripleChannel::connect(addr.clone(), TripleConfig::default())
        .await
        .map_err(|s| CliError::io(format!("connecting to {addr}"), &s))?;
    let client = TripleClient::new(channel.clone());
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(query),
    };
    let path = format!("/{REFLECTION_V1}/ServerReflectionInfo");
    let answer = async {
        let mut replies = client
            .bidi_streaming::<_, ServerReflectionRequest, ServerReflectionResponse>(
                &path,
                Request::new(futures::stream::iter([request])),
            )
            .await?
            .into_inner();
        replies.message().await
    }
    .await;
    channel.close().await;
    let reply = answer.map_err(|s| CliError::io(format!("reflection at {addr}"), &s))?;
    match reply.and_then(|r| r.message_response) {
        Some(ReflectionAnswer::ErrorResponse(e)) => Err(CliError::NotFound(format!(
            "reflection at {addr}: {}",
            e.error_message
        ))),
        Some(answer) => Ok(answer),
        None => Err(CliError::io(
            format!("reflection at {addr}"),
            &"the server closed the stream without an answer",
        )),
    }
}

/// The services the server at `target` lists.
pub async fn services(target: &str) -> Result<Vec<String>, CliError> {
    match ask(target, ReflectionQuery::ListServices(String::new())).await? {
        ReflectionAnswer::ListServicesResponse(list) => {
            let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
            names.sort();
            Ok(names)
        }
        _ => Err(CliError::io("reflection", &"an answer of another kind")),
    }
}

/// The methods of `service` (its full name), from the file that defines it.
pub async fn methods(target: &str, service: &str) -> Result<Vec<GrpcMethod>, CliError> {
    let answer = ask(
        target,
        ReflectionQuery::FileContainingSymbol(service.to_owned()),
    )
    .await?;
    let ReflectionAnswer::FileDescriptorResponse(files) = answer else {
        return Err(CliError::io("reflection", &"an answer of another kind"));
    };
    for bytes in files.file_descriptor_proto {
        let file = FileDescriptorProto::decode(bytes.as_slice())
            .map_err(|e| CliError::io("a file descriptor from reflection", &e))?;
        let package = file.package.clone().unwrap_or_default();
        for s in &file.service {
            let name = s.name.clone().unwrap_or_default();
            let full = if package.is_empty() {
                name
            } else {
                format!("{package}.{name}")
            };
            if full != service {
                continue;
            }
            return Ok(s
                .method
                .iter()
                .map(|m| GrpcMethod {
                    name: m.name.clone().unwrap_or_default(),
                    input: m.input_type.clone().unwrap_or_default(),
                    output: m.output_type.clone().unwrap_or_default(),
                    client_streaming: m.client_streaming.unwrap_or(false),
                    server_streaming: m.server_streaming.unwrap_or(false),
                })
                .collect());
        }
    }
    Err(CliError::NotFound(format!(
        "reflection describes no service {service}"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(address("tri://127.0.0.1:50051").unwrap(), "127.0.0.1:50051");
        assert_eq!(address("tri://h:1/x?y=1").unwrap(), "h:1");
        assert!(address("dubbo://h:1").is_err());
    }
}
