//! Which handler serves a request: IDL services by their full name, then interface-mode
//! exporters by service key.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use arc_swap::ArcSwap;
use bytes::Bytes;
use futures::stream::BoxStream;
use http::HeaderMap;

use dubbo_core::{ConnectionAddrs, Invoker};

use super::idl::IdlEntry;
use crate::flow_control::InboundMessages;
use crate::status::Status;

/// A boxed future, as handlers return them.
pub type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'static>>;

/// The four kinds of gRPC call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MethodKind {
    /// One request, one response.
    Unary,
    /// A stream of requests, one response.
    ClientStreaming,
    /// One request, a stream of responses.
    ServerStreaming,
    /// Streams both ways.
    BidiStreaming,
}

/// One incoming call as a handler sees it: the request headers, the request messages (raw
/// payloads, decompressed) and where it came from.
#[derive(Debug)]
pub struct ServerCall {
    /// Request headers.
    pub metadata: HeaderMap,
    /// Request messages.
    pub messages: InboundMessages,
    /// The caller's address.
    pub remote_addr: Option<SocketAddr>,
    /// This server's end of the connection.
    pub local_addr: Option<SocketAddr>,
    /// Both ends, made once per connection and shared by its calls, for the invocation's
    /// context ([`CallContext::set_connection_addrs`](dubbo_core::CallContext::set_connection_addrs)).
    pub connection: Arc<ConnectionAddrs>,
    /// The caller's deadline, from `grpc-timeout`.
    pub deadline: Option<Instant>,
    /// The service path of the request (`:path` up to the last `/`, without the leading `/`).
    pub service: String,
    /// The method name (`:path` after the last `/`).
    pub method: String,
}

/// A handler's answer: extra response headers, the response payloads, extra trailers.
pub struct ServerReply {
    /// Extra response headers (the status line and content type are added by the server).
    pub headers: HeaderMap,
    /// Response payloads, each one message; an `Err` ends the call with that status.
    pub messages: BoxStream<'static, Result<Bytes, Status>>,
    /// Extra trailers sent with `grpc-status` (response attachments).
    pub trailers: HeaderMap,
}

impl std::fmt::Debug for ServerReply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerReply")
            .field("headers", &self.headers)
            .field("trailers", &self.trailers)
            .finish()
    }
}

impl ServerReply {
    /// A reply of one message.
    pub fn single(headers: HeaderMap, message: Bytes, trailers: HeaderMap) -> Self {
        Self {
            headers,
            messages: Box::pin(futures::stream::once(async move { Ok(message) })),
            trailers,
        }
    }
}

/// An IDL (protobuf) service: what `dubbo-build` generates a `...Server<T>` for.
pub trait IdlService: Send + Sync + 'static {
    /// The full service name as in `:path`, e.g. `org.apache.dubbo.interop.tri.Greeter`.
    fn service_name(&self) -> &str;

    /// The kind of `method`, or `None` if the service has no such method.
    fn method_kind(&self, method: &str) -> Option<MethodKind>;

    /// Handles one call of `method`.
    fn call(&self, method: &str, call: ServerCall) -> BoxFuture<Result<ServerReply, Status>>;

    /// The encoded `google.protobuf.FileDescriptorSet` of the file that defines this service and
    /// of every file it imports, which gRPC server reflection answers with; empty when the
    /// service has no schema to show. `dubbo-build` fills it in from the compiled `.proto`.
    fn file_descriptor_set(&self) -> &[u8] {
        &[]
    }
}

/// IDL services by full service name, looked up on every call: hashed with foldhash (its keys
/// are the server's own services, so HashDoS resistance is not needed).
type IdlTable = HashMap<String, IdlEntry, foldhash::fast::RandomState>;

/// The IDL services one server answers, by full service name.
#[derive(Clone, Default)]
pub(crate) struct Router {
    idl: Arc<ArcSwap<IdlTable>>,
}

impl Router {
    pub(crate) fn add_idl(&self, entry: IdlEntry) {
        let name = entry.service.service_name().to_owned();
        self.idl.rcu(|m| {
            let mut m = IdlTable::clone(m);
            m.insert(name.clone(), entry.clone());
            m
        });
    }

    /// Removes `name`; with `only` set, only while it is still served by that invoker.
    pub(crate) fn remove_idl(&self, name: &str, only: Option<&Arc<dyn Invoker>>) -> bool {
        let mut found = false;
        self.idl.rcu(|m| {
            let mut m = IdlTable::clone(m);
            found = match (m.get(name), only) {
                (Some(e), Some(inv)) => e
                    .invoker
                    .as_ref()
                    .is_some_and(|i| std::ptr::addr_eq(Arc::as_ptr(i), Arc::as_ptr(inv))),
                (Some(_), None) => true,
                (None, _) => false,
            };
            if found {
                m.remove(name);
            }
            m
        });
        found
    }

    pub(crate) fn idl(&self, name: &str) -> Option<IdlEntry> {
        self.idl.load().get(name).cloned()
    }

    /// Every IDL service routed, the server's own included.
    pub(crate) fn idl_services(&self) -> Vec<Arc<dyn IdlService>> {
        self.idl
            .load()
            .values()
            .map(|e| e.service.clone())
            .collect()
    }
}

/// Splits a `:path` at its last `/` into service path and method; a context path in front of
/// the service is kept as part of the service path, whose leading `/` is removed.
pub fn split_path(path: &str) -> Option<(&str, &str)> {
    let path = path.split('?').next().unwrap_or(path);
    let trimmed = path.strip_prefix('/')?;
    let (service, method) = trimmed.rsplit_once('/')?;
    if service.is_empty() || method.is_empty() {
        return None;
    }
    Some((service, method))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(split_path("/a.B/m"), Some(("a.B", "m")));
        assert_eq!(split_path("/ctx/a.B/m"), Some(("ctx/a.B", "m")));
        assert_eq!(split_path("/a.B/"), None);
        assert_eq!(split_path("a.B/m"), None);
        assert_eq!(split_path("/m"), None);
    }
}
