//! gRPC server reflection against a tri:// address, `grpc.reflection.v1` first and
//! `grpc.reflection.v1alpha` when the server only knows the older name (as grpcurl does): the
//! services it serves, the methods of one of them, and the file descriptors that define a
//! service with everything they import, for `dubbo ls --url tri://…`,
//! `dubbo describe SERVICE --url tri://…` and the IDL form of `dubbo call`.

use std::collections::BTreeMap;

use dubbo_rs::protocol_triple::server::reflection::{
    ReflectionAnswer, ReflectionQuery, ServerReflectionRequest, ServerReflectionResponse,
    REFLECTION_V1, REFLECTION_V1ALPHA,
};
use dubbo_rs::protocol_triple::{Code, Request, Status, TripleChannel, TripleClient, TripleConfig};
use prost::Message;
use prost_reflect::DescriptorPool;
use prost_types::FileDescriptorProto;

use crate::dubbo::tls::TlsFlags;
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

/// A method's streaming kind as `describe` names it, from whether the client and the server
/// stream.
pub fn streaming_kind(client: bool, server: bool) -> &'static str {
    match (client, server) {
        (false, false) => "unary",
        (false, true) => "server",
        (true, false) => "client",
        (true, true) => "bidi",
    }
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

/// A Triple channel to `target` with the TLS of `tls`, and its `host:port`.
pub async fn open(target: &str, tls: &TlsFlags) -> Result<(TripleChannel, String), CliError> {
    let addr = address(target)?;
    let config: TripleConfig = tls.triple_config()?;
    let channel = TripleChannel::connect(addr.clone(), config)
        .await
        .map_err(|s| CliError::io(format!("connecting to {addr}"), &s))?;
    Ok((channel, addr))
}

/// Reflection queries over one connection; remembers which version of the service answers.
struct Session {
    client: TripleClient,
    addr: String,
    service: &'static str,
}

impl Session {
    fn new(channel: TripleChannel, addr: String) -> Self {
        Self {
            client: TripleClient::new(channel),
            addr,
            service: REFLECTION_V1,
        }
    }

    async fn exchange(
        &self,
        request: ServerReflectionRequest,
    ) -> Result<Option<ServerReflectionResponse>, Status> {
        let path = format!("/{}/ServerReflectionInfo", self.service);
        let mut replies = self
            .client
            .bidi_streaming::<_, ServerReflectionRequest, ServerReflectionResponse>(
                &path,
                Request::new(futures::stream::iter([request])),
            )
            .await?
            .into_inner();
        replies.message().await
    }

    /// Sends one query and returns the answer; a server without `v1` is asked again under
    /// `v1alpha`, and the session keeps to it.
    async fn ask(&mut self, query: ReflectionQuery) -> Result<ReflectionAnswer, CliError> {
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(query),
        };
        let mut reply = self.exchange(request.clone()).await;
        if self.service == REFLECTION_V1
            && matches!(&reply, Err(s) if s.code() == Code::Unimplemented)
        {
            self.service = REFLECTION_V1ALPHA;
            reply = self.exchange(request).await;
        }
        let addr = &self.addr;
        let reply = reply.map_err(|s| CliError::io(format!("reflection at {addr}"), &s))?;
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

    /// The file descriptors of an answer that should carry them.
    async fn files(
        &mut self,
        query: ReflectionQuery,
    ) -> Result<Vec<FileDescriptorProto>, CliError> {
        let ReflectionAnswer::FileDescriptorResponse(files) = self.ask(query).await? else {
            return Err(CliError::io("reflection", &"an answer of another kind"));
        };
        files
            .file_descriptor_proto
            .iter()
            .map(|bytes| {
                FileDescriptorProto::decode(bytes.as_slice())
                    .map_err(|e| CliError::io("a file descriptor from reflection", &e))
            })
            .collect()
    }
}

/// Runs `work` on a reflection session with `target`, closing the connection afterwards.
async fn with_session<T>(
    target: &str,
    tls: &TlsFlags,
    work: impl AsyncFnOnce(&mut Session) -> Result<T, CliError>,
) -> Result<T, CliError> {
    let (channel, addr) = open(target, tls).await?;
    let mut session = Session::new(channel.clone(), addr);
    let outcome = work(&mut session).await;
    channel.close().await;
    outcome
}

/// The services the server at `target` lists (plaintext).
pub async fn services(target: &str) -> Result<Vec<String>, CliError> {
    services_with(target, &TlsFlags::default()).await
}

/// The services the server at `target` lists, dialled with `tls`.
pub async fn services_with(target: &str, tls: &TlsFlags) -> Result<Vec<String>, CliError> {
    with_session(target, tls, async |s: &mut Session| {
        match s.ask(ReflectionQuery::ListServices(String::new())).await? {
            ReflectionAnswer::ListServicesResponse(list) => {
                let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
                names.sort();
                Ok(names)
            }
            _ => Err(CliError::io("reflection", &"an answer of another kind")),
        }
    })
    .await
}

/// The methods of `service` (its full name), from the file that defines it (plaintext).
pub async fn methods(target: &str, service: &str) -> Result<Vec<GrpcMethod>, CliError> {
    methods_with(target, service, &TlsFlags::default()).await
}

/// The methods of `service` (its full name), dialled with `tls`.
pub async fn methods_with(
    target: &str,
    service: &str,
    tls: &TlsFlags,
) -> Result<Vec<GrpcMethod>, CliError> {
    let files = with_session(target, tls, async |s: &mut Session| {
        s.files(ReflectionQuery::FileContainingSymbol(service.to_owned()))
            .await
    })
    .await?;
    for file in files {
        let package = file.package.clone().unwrap_or_default();
        for s in &file.service {
            if qualified(&package, s.name()) != service {
                continue;
            }
            return Ok(s
                .method
                .iter()
                .map(|m| GrpcMethod {
                    name: m.name().to_owned(),
                    input: m.input_type().to_owned(),
                    output: m.output_type().to_owned(),
                    client_streaming: m.client_streaming(),
                    server_streaming: m.server_streaming(),
                })
                .collect());
        }
    }
    Err(CliError::NotFound(format!(
        "reflection describes no service {service}"
    )))
}

fn qualified(package: &str, name: &str) -> String {
    if package.is_empty() {
        name.to_owned()
    } else {
        format!("{package}.{name}")
    }
}

/// At most this many files are fetched for one service: a bound on what a server can make the
/// tool download, far above any real schema.
const MAX_FILES: usize = 512;

/// The descriptors of `symbol` (a service's full name) and every file it imports, as a pool
/// that messages can be built from. Servers answer the defining file with some or all of its
/// imports; the missing ones are asked for by name.
pub async fn pool(target: &str, symbol: &str, tls: &TlsFlags) -> Result<DescriptorPool, CliError> {
    let files = with_session(target, tls, async |s: &mut Session| {
        let mut files: BTreeMap<String, FileDescriptorProto> = BTreeMap::new();
        let first = s
            .files(ReflectionQuery::FileContainingSymbol(symbol.to_owned()))
            .await?;
        add_files(&mut files, first);
        while let Some(missing) = missing_import(&files) {
            if files.len() >= MAX_FILES {
                return Err(CliError::io(
                    "reflection",
                    &format!("more than {MAX_FILES} files describe {symbol}"),
                ));
            }
            let more = s
                .files(ReflectionQuery::FileByFilename(missing.clone()))
                .await?;
            if !more.iter().any(|f| f.name() == missing) {
                return Err(CliError::NotFound(format!(
                    "reflection does not answer the file {missing}, which {symbol} needs"
                )));
            }
            add_files(&mut files, more);
        }
        Ok(files)
    })
    .await?;
    let mut pool = DescriptorPool::new();
    pool.add_file_descriptor_protos(files.into_values())
        .map_err(|e| CliError::io(format!("the descriptors of {symbol}"), &e))?;
    Ok(pool)
}

fn add_files(files: &mut BTreeMap<String, FileDescriptorProto>, more: Vec<FileDescriptorProto>) {
    for file in more {
        files.entry(file.name().to_owned()).or_insert(file);
    }
}

/// An import none of `files` is.
fn missing_import(files: &BTreeMap<String, FileDescriptorProto>) -> Option<String> {
    files
        .values()
        .flat_map(|f| f.dependency.iter())
        .find(|d| !files.contains_key(*d))
        .cloned()
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

    #[test]
    fn imports_not_yet_fetched_are_found() {
        let file = |name: &str, deps: &[&str]| FileDescriptorProto {
            name: Some(name.into()),
            dependency: deps.iter().map(|d| (*d).to_owned()).collect(),
            ..Default::default()
        };
        let mut files = BTreeMap::new();
        add_files(&mut files, vec![file("a.proto", &["b.proto"])]);
        assert_eq!(missing_import(&files).as_deref(), Some("b.proto"));
        add_files(&mut files, vec![file("b.proto", &[])]);
        assert_eq!(missing_import(&files), None);
        assert_eq!(qualified("", "S"), "S");
        assert_eq!(qualified("p.q", "S"), "p.q.S");
    }
}
