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

use dubbo_core::{ConnectionAddrs, Invoker, RequestContext};

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
    /// The provider's view of the call as the provider's filters left it (the attachments the
    /// service may see, the service key, the caller's address, the deadline), set by
    /// [`IdlInvoker`](super::IdlInvoker) from the invocation as a unary service's invoker makes
    /// its `RequestContext`; `None` for a call served without filters.
    pub context: Option<RequestContext>,
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

/// IDL services by full service name, each name's exports in the order they were exported,
/// looked up on every call: hashed with foldhash (its keys are the server's own services, so
/// HashDoS resistance is not needed).
type IdlTable = HashMap<String, Arc<[IdlEntry]>, foldhash::fast::RandomState>;

/// The IDL services one server answers (generated services and the streaming methods of
/// interface-mode services), by full service name and, among the exports of one name, by
/// service key ([`route_select`](super::route_select) picks one for a request).
#[derive(Clone, Default)]
pub(crate) struct Router {
    idl: Arc<ArcSwap<IdlTable>>,
}

impl Router {
    /// Serves `entry`, replacing an earlier entry of the same service key.
    pub(crate) fn add_idl(&self, entry: IdlEntry) {
        let name = entry.service.service_name().to_owned();
        self.idl.rcu(|m| {
            let mut m = IdlTable::clone(m);
            let mut entries: Vec<IdlEntry> = m.get(&name).map(|e| e.to_vec()).unwrap_or_default();
            match entries.iter_mut().find(|e| e.export == entry.export) {
                Some(same) => *same = entry.clone(),
                None => entries.push(entry.clone()),
            }
            m.insert(name.clone(), entries.into());
            m
        });
    }

    /// Removes the exports of `name`: with `only` set, only the one served by that invoker
    /// (the other keys of the name keep theirs), else every one.
    pub(crate) fn remove_idl(&self, name: &str, only: Option<&Arc<dyn Invoker>>) -> bool {
        let mut found = false;
        self.idl.rcu(|m| {
            let mut m = IdlTable::clone(m);
            found = false;
            let Some(entries) = m.get(name) else {
                return m;
            };
            let kept: Vec<IdlEntry> = entries
                .iter()
                .filter(|e| {
                    let goes = match (&e.invoker, only) {
                        (Some(i), Some(inv)) => std::ptr::addr_eq(Arc::as_ptr(i), Arc::as_ptr(inv)),
                        (None, Some(_)) => false,
                        (_, None) => true,
                    };
                    found |= goes;
                    !goes
                })
                .cloned()
                .collect();
            if kept.is_empty() {
                m.remove(name);
            } else {
                m.insert(name.to_owned(), kept.into());
            }
            m
        });
        found
    }

    /// The export of `name` that answers a request with `headers` (its `tri-service-group` and
    /// `tri-service-version`, as Java selects).
    pub(crate) fn idl(&self, name: &str, headers: &HeaderMap) -> Option<IdlEntry> {
        let table = self.idl.load();
        let entries = table.get(name)?;
        // One export answers every request: no header to read.
        if let [only] = &entries[..] {
            return Some(only.clone());
        }
        let (group, version) = super::interface::requested_group_version(headers);
        super::route_select::select(entries, |e| &e.export, group, version).cloned()
    }

    /// Whether some export of `name` is served.
    pub(crate) fn serves(&self, name: &str) -> bool {
        self.idl.load().contains_key(name)
    }

    /// Every IDL service routed, the server's own included (one per export).
    pub(crate) fn idl_services(&self) -> Vec<Arc<dyn IdlService>> {
        self.idl
            .load()
            .values()
            .flat_map(|e| e.iter().map(|e| e.service.clone()))
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
