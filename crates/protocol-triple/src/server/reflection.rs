//! gRPC server reflection (`grpc.reflection.v1` and `v1alpha`) on every Triple server, so that
//! grpcurl, grpcui or Postman list, describe and call its services with no `.proto` at hand.
//!
//! Services are listed from what the server routes: IDL services, interface-mode exports (by
//! interface name) and the server's own health and reflection services. Descriptors come from
//! the services themselves ([`IdlService::file_descriptor_set`], which `dubbo-build` fills in
//! from the compiled `.proto` files); an interface-mode service has no protobuf schema (its
//! calls carry Hessian or JSON inside Triple's wrapper messages), so it is listed but asking
//! for its file is `NOT_FOUND`. Both versions of the protocol carry the same messages and are
//! answered alike.

use std::collections::HashSet;
use std::sync::{Arc, Weak};

use prost::Message;
use prost_types::{DescriptorProto, FileDescriptorProto, FileDescriptorSet};

use super::routing::{IdlService, MethodKind, ServerCall, ServerReply};
use super::{BoxFuture, ServerShared};
use crate::codegen;
use crate::message::{Request, Response};
use crate::status::{Code, Status};
use crate::streaming::Streaming;

/// The reflection service's full name, version 1.
pub const REFLECTION_V1: &str = "grpc.reflection.v1.ServerReflection";
/// The reflection service's full name, the older `v1alpha` that many clients still ask first.
pub const REFLECTION_V1ALPHA: &str = "grpc.reflection.v1alpha.ServerReflection";

/// `ServerReflectionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ServerReflectionRequest {
    /// The host the client asked (unused).
    #[prost(string, tag = "1")]
    pub host: String,
    /// What is asked.
    #[prost(oneof = "ReflectionQuery", tags = "3, 4, 5, 6, 7")]
    pub message_request: Option<ReflectionQuery>,
}

/// `ServerReflectionRequest.message_request`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum ReflectionQuery {
    /// The file of this name, with its imports.
    #[prost(string, tag = "3")]
    FileByFilename(String),
    /// The file that defines this fully qualified symbol, with its imports.
    #[prost(string, tag = "4")]
    FileContainingSymbol(String),
    /// The file that defines an extension.
    #[prost(message, tag = "5")]
    FileContainingExtension(ExtensionRequest),
    /// Every extension number of a message type.
    #[prost(string, tag = "6")]
    AllExtensionNumbersOfType(String),
    /// The names of the services (the field's value is ignored).
    #[prost(string, tag = "7")]
    ListServices(String),
}

/// `ExtensionRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExtensionRequest {
    /// The extended message type.
    #[prost(string, tag = "1")]
    pub containing_type: String,
    /// The extension's field number.
    #[prost(int32, tag = "2")]
    pub extension_number: i32,
}

/// `ServerReflectionResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ServerReflectionResponse {
    /// The host the request named.
    #[prost(string, tag = "1")]
    pub valid_host: String,
    /// The request this answers.
    #[prost(message, optional, tag = "2")]
    pub original_request: Option<ServerReflectionRequest>,
    /// The answer.
    #[prost(oneof = "ReflectionAnswer", tags = "4, 5, 6, 7")]
    pub message_response: Option<ReflectionAnswer>,
}

/// `ServerReflectionResponse.message_response`.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum ReflectionAnswer {
    /// Encoded `FileDescriptorProto`s.
    #[prost(message, tag = "4")]
    FileDescriptorResponse(FileDescriptorResponse),
    /// Extension numbers of a type.
    #[prost(message, tag = "5")]
    AllExtensionNumbersResponse(ExtensionNumberResponse),
    /// Service names.
    #[prost(message, tag = "6")]
    ListServicesResponse(ListServiceResponse),
    /// What went wrong.
    #[prost(message, tag = "7")]
    ErrorResponse(ErrorResponse),
}

/// `FileDescriptorResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct FileDescriptorResponse {
    /// Each an encoded `google.protobuf.FileDescriptorProto`.
    #[prost(bytes = "vec", repeated, tag = "1")]
    pub file_descriptor_proto: Vec<Vec<u8>>,
}

/// `ExtensionNumberResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExtensionNumberResponse {
    /// The message type.
    #[prost(string, tag = "1")]
    pub base_type_name: String,
    /// Its extension numbers.
    #[prost(int32, repeated, tag = "2")]
    pub extension_number: Vec<i32>,
}

/// `ListServiceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ListServiceResponse {
    /// One entry per service.
    #[prost(message, repeated, tag = "1")]
    pub service: Vec<ServiceResponse>,
}

/// `ServiceResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ServiceResponse {
    /// The service's full name.
    #[prost(string, tag = "1")]
    pub name: String,
}

/// `ErrorResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ErrorResponse {
    /// A gRPC status code.
    #[prost(int32, tag = "1")]
    pub error_code: i32,
    /// Why.
    #[prost(string, tag = "2")]
    pub error_message: String,
}

/// The reflection service of one server, under one of the protocol's two names.
pub(crate) struct ReflectionService {
    name: &'static str,
    server: Weak<ServerShared>,
}

/// The reflection services (both versions) of `server`, which holds them weakly: the server
/// owns them through its routing table.
pub(crate) fn services(server: &Weak<ServerShared>) -> [Arc<dyn IdlService>; 2] {
    [REFLECTION_V1, REFLECTION_V1ALPHA].map(|name| {
        Arc::new(ReflectionService {
            name,
            server: server.clone(),
        }) as Arc<dyn IdlService>
    })
}

impl IdlService for ReflectionService {
    fn service_name(&self) -> &str {
        self.name
    }

    fn method_kind(&self, method: &str) -> Option<MethodKind> {
        (method == "ServerReflectionInfo").then_some(MethodKind::BidiStreaming)
    }

    fn call(&self, method: &str, call: ServerCall) -> BoxFuture<Result<ServerReply, Status>> {
        if method != "ServerReflectionInfo" {
            let (name, method) = (self.name, method.to_owned());
            return Box::pin(async move {
                Err(Status::unimplemented(format!(
                    "method {method} not found in service {name}"
                )))
            });
        }
        let server = self.server.clone();
        codegen::bidi_streaming(
            call,
            move |req: Request<Streaming<ServerReflectionRequest>>| async move {
                let requests = req.into_inner();
                let answers = futures::stream::unfold(requests, move |mut requests| {
                    let server = server.clone();
                    async move {
                        match requests.message().await {
                            Ok(Some(request)) => {
                                let answer = answer(&server, request);
                                Some((Ok(answer), requests))
                            }
                            Ok(None) => None,
                            Err(status) => Some((Err(status), requests)),
                        }
                    }
                });
                Ok(Response::new(Box::pin(answers)
                    as futures::stream::BoxStream<
                        'static,
                        Result<ServerReflectionResponse, Status>,
                    >))
            },
        )
    }
}

/// The answer to one reflection request; a question this server cannot answer is an
/// `ErrorResponse` in the stream, as the protocol asks, and the stream goes on.
fn answer(
    server: &Weak<ServerShared>,
    request: ServerReflectionRequest,
) -> ServerReflectionResponse {
    let catalog = Catalog::of(server);
    let outcome = match &request.message_request {
        Some(ReflectionQuery::ListServices(_)) => Ok(ReflectionAnswer::ListServicesResponse(
            ListServiceResponse {
                service: catalog
                    .names
                    .iter()
                    .map(|name| ServiceResponse { name: name.clone() })
                    .collect(),
            },
        )),
        Some(ReflectionQuery::FileContainingSymbol(symbol)) => catalog
            .files_where(|f| defines(f, symbol))
            .ok_or_else(|| not_found(format!("symbol {symbol} not found"))),
        Some(ReflectionQuery::FileByFilename(name)) => catalog
            .files_where(|f| f.name() == name)
            .ok_or_else(|| not_found(format!("file {name} not found"))),
        Some(ReflectionQuery::AllExtensionNumbersOfType(type_name)) => {
            if catalog.files_where(|f| defines(f, type_name)).is_some() {
                // Proto3 services declare no extensions.
                Ok(ReflectionAnswer::AllExtensionNumbersResponse(
                    ExtensionNumberResponse {
                        base_type_name: type_name.clone(),
                        extension_number: Vec::new(),
                    },
                ))
            } else {
                Err(not_found(format!("type {type_name} not found")))
            }
        }
        Some(ReflectionQuery::FileContainingExtension(e)) => Err(not_found(format!(
            "extension {} of {} not found",
            e.extension_number, e.containing_type
        ))),
        None => Err(ErrorResponse {
            error_code: Code::InvalidArgument as i32,
            error_message: "the request asks nothing".into(),
        }),
    };
    ServerReflectionResponse {
        valid_host: request.host.clone(),
        message_response: Some(outcome.unwrap_or_else(ReflectionAnswer::ErrorResponse)),
        original_request: Some(request),
    }
}

fn not_found(message: String) -> ErrorResponse {
    ErrorResponse {
        error_code: Code::NotFound as i32,
        error_message: message,
    }
}

/// What one server serves, read when a request comes (services come and go while it runs).
struct Catalog {
    /// Full service names, sorted.
    names: Vec<String>,
    /// Each IDL service's descriptor set.
    sets: Vec<FileDescriptorSet>,
}

impl Catalog {
    fn of(server: &Weak<ServerShared>) -> Self {
        let Some(server) = server.upgrade() else {
            return Catalog {
                names: Vec::new(),
                sets: Vec::new(),
            };
        };
        let mut names = server.service_names();
        names.sort();
        names.dedup();
        let sets = server
            .router
            .idl_services()
            .iter()
            .filter_map(|s| FileDescriptorSet::decode(s.file_descriptor_set()).ok())
            .collect();
        Catalog { names, sets }
    }

    /// The first file for which `wanted` holds, then every file it imports (from the same
    /// set), each encoded: what reflection clients expect to resolve all the types they see.
    fn files_where(
        &self,
        wanted: impl Fn(&FileDescriptorProto) -> bool,
    ) -> Option<ReflectionAnswer> {
        for set in &self.sets {
            let Some(found) = set.file.iter().find(|f| wanted(f)) else {
                continue;
            };
            let mut out = Vec::new();
            let mut seen = HashSet::new();
            with_imports(found, set, &mut seen, &mut out);
            return Some(ReflectionAnswer::FileDescriptorResponse(
                FileDescriptorResponse {
                    file_descriptor_proto: out.iter().map(|f| f.encode_to_vec()).collect(),
                },
            ));
        }
        None
    }
}

fn with_imports<'a>(
    file: &'a FileDescriptorProto,
    set: &'a FileDescriptorSet,
    seen: &mut HashSet<&'a str>,
    out: &mut Vec<&'a FileDescriptorProto>,
) {
    if !seen.insert(file.name()) {
        return;
    }
    out.push(file);
    for import in &file.dependency {
        if let Some(dep) = set.file.iter().find(|f| f.name() == import) {
            with_imports(dep, set, seen, out);
        }
    }
}

/// Whether `file` defines `symbol`: a service, one of its methods, a message (nested ones
/// too) or an enum, by its fully qualified name.
fn defines(file: &FileDescriptorProto, symbol: &str) -> bool {
    let symbol = symbol.strip_prefix('.').unwrap_or(symbol);
    let local = match file.package() {
        "" => symbol,
        package => match symbol
            .strip_prefix(package)
            .and_then(|rest| rest.strip_prefix('.'))
        {
            Some(rest) => rest,
            None => return false,
        },
    };
    file.service.iter().any(|s| {
        local == s.name()
            || local
                .strip_prefix(s.name())
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|m| s.method.iter().any(|x| x.name() == m))
    }) || file.enum_type.iter().any(|e| e.name() == local)
        || file.message_type.iter().any(|m| message_defines(m, local))
}

fn message_defines(message: &DescriptorProto, local: &str) -> bool {
    if local == message.name() {
        return true;
    }
    let Some(inner) = local
        .strip_prefix(message.name())
        .and_then(|rest| rest.strip_prefix('.'))
    else {
        return false;
    };
    message.enum_type.iter().any(|e| e.name() == inner)
        || message
            .nested_type
            .iter()
            .any(|n| message_defines(n, inner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost_types::{EnumDescriptorProto, MethodDescriptorProto, ServiceDescriptorProto};

    fn file() -> FileDescriptorProto {
        FileDescriptorProto {
            name: Some("greeter.proto".into()),
            package: Some("org.example".into()),
            message_type: vec![DescriptorProto {
                name: Some("Reply".into()),
                nested_type: vec![DescriptorProto {
                    name: Some("Part".into()),
                    ..Default::default()
                }],
                enum_type: vec![EnumDescriptorProto {
                    name: Some("Kind".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            service: vec![ServiceDescriptorProto {
                name: Some("Greeter".into()),
                method: vec![MethodDescriptorProto {
                    name: Some("Greet".into()),
                    ..Default::default()
                }],
                options: None,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn symbols_are_found_by_their_full_names() {
        let f = file();
        for symbol in [
            "org.example.Greeter",
            "org.example.Greeter.Greet",
            ".org.example.Reply",
            "org.example.Reply.Part",
            "org.example.Reply.Kind",
        ] {
            assert!(defines(&f, symbol), "{symbol}");
        }
        for symbol in [
            "org.example.Greeter.Missing",
            "org.exampleX.Greeter",
            "Greeter",
            "org.example.Reply.Other",
            "other.Reply",
        ] {
            assert!(!defines(&f, symbol), "{symbol}");
        }
    }
}
