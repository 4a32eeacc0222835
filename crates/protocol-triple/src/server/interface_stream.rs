//! [`StreamingInterface`]: a Java-style interface whose methods stream, served in wrapper mode
//! (Hessian 2 in `TripleRequestWrapper`/`TripleResponseWrapper`, one wrapper per message), as
//! Java Dubbo 3.3 serves a service whose methods take or return a `StreamObserver`.
//!
//! Nothing on the wire tells a stream from a unary call, so the service declares the shape of
//! each method, as Java's reflection reads it off the signature:
//!
//! | Java                                                | here                                          |
//! |-----------------------------------------------------|-----------------------------------------------|
//! | `void m(Req, StreamObserver<Resp>)`                 | [`server_streaming`](StreamingInterface::server_streaming): `Req` in, a stream of `Resp` out |
//! | `StreamObserver<Req> m(StreamObserver<Resp>)`       | [`bidi_streaming`](StreamingInterface::bidi_streaming): a [`Streaming<Req>`] in, a stream out |
//! | the same, answered once                             | [`client_streaming`](StreamingInterface::client_streaming): a [`Streaming<Req>`] in, one `Resp` out |
//!
//! The service is an [`IdlService`] at the byte level, so an application exports it like a
//! generated one (`export_idl`), through the provider's filters. A handler added with a
//! `*_with_context` builder gets the call's `RequestContext` first, as a unary method that
//! asks for one does: the attachments the provider's filters let through, the caller's
//! address, the service key and the deadline. An `Err` status from the
//! handler or from its stream ends the call with that status (Java's consumer sees it in its
//! response observer's `onError`); a consumer's cancel drops the handler's stream.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures::{Stream, StreamExt, TryStreamExt};
use http::HeaderMap;
use serde::de::DeserializeOwned;
use serde::Serialize;

use dubbo_core::{Attachments, RequestContext};
use dubbo_hessian2::java::JavaType;

use super::interface::request_service_key;
use super::routing::{BoxFuture, IdlService, MethodKind, ServerCall, ServerReply};
use crate::headers::core_attachments;
use crate::status::Status;
use crate::streaming::Streaming;
use crate::wrapper_stream::{boxed_java_type, decode_request, encode_response};

type Handler = Arc<dyn Fn(ServerCall) -> BoxFuture<Result<ServerReply, Status>> + Send + Sync>;

struct Method {
    kind: MethodKind,
    handler: Handler,
}

/// An interface-mode service of streaming methods, built method by method.
///
/// ```
/// use dubbo_protocol_triple::server::interface_stream::StreamingInterface;
/// use dubbo_protocol_triple::{IdlService, MethodKind, Status};
/// use futures::StreamExt;
///
/// let service = StreamingInterface::new("org.example.Counter")
///     // Java: void count(Integer n, StreamObserver<String> out)
///     .server_streaming("count", |n: i32| async move {
///         Ok(futures::stream::iter((0..n).map(|i| Ok::<_, Status>(i.to_string()))))
///     })
///     // Java: StreamObserver<String> echo(StreamObserver<String> out)
///     .bidi_streaming("echo", |requests| async move {
///         Ok(requests.map(|r: Result<String, Status>| r))
///     });
/// assert_eq!(service.method_kind("count"), Some(MethodKind::ServerStreaming));
/// ```
pub struct StreamingInterface {
    interface: String,
    methods: HashMap<String, Method>,
}

impl std::fmt::Debug for StreamingInterface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamingInterface")
            .field("interface", &self.interface)
            .field("methods", &self.methods.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl StreamingInterface {
    /// A service answering `/{interface}/{method}` for the methods added next.
    pub fn new(interface: impl Into<String>) -> Self {
        Self {
            interface: interface.into(),
            methods: HashMap::new(),
        }
    }

    /// Java `void method(Req, StreamObserver<Resp>)`: one request value, a stream of
    /// responses. Each response message declares `Resp`'s Java type (boxed, as a type argument
    /// is: `i32` is `java.lang.Integer`).
    pub fn server_streaming<Req, Resp, F, Fut, S>(self, method: &str, f: F) -> Self
    where
        Req: DeserializeOwned + Send + 'static,
        Resp: Serialize + JavaType + Send + 'static,
        F: Fn(Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<S, Status>> + Send + 'static,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
    {
        self.server_streaming_with_context(method, move |_, req| f(req))
    }

    /// [`server_streaming`](Self::server_streaming) with the call's [`RequestContext`] (the
    /// request's attachments, the caller's address, the service key, the deadline) handed to
    /// `f` first, as a unary method that asks for it gets it.
    pub fn server_streaming_with_context<Req, Resp, F, Fut, S>(self, method: &str, f: F) -> Self
    where
        Req: DeserializeOwned + Send + 'static,
        Resp: Serialize + JavaType + Send + 'static,
        F: Fn(RequestContext, Req) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<S, Status>> + Send + 'static,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
    {
        let f = Arc::new(f);
        let handler: Handler = Arc::new(move |mut call: ServerCall| {
            let f = f.clone();
            Box::pin(async move {
                let first = match call.messages.message().await {
                    Some(m) => m?,
                    None => return Err(Status::internal("request had no message")),
                };
                let req = decode_request::<Req>(first)?;
                let ctx = request_context(&mut call);
                let out = f(ctx, req).await?;
                Ok(reply_stream(out))
            })
        });
        self.add(method, MethodKind::ServerStreaming, handler)
    }

    /// Java `StreamObserver<Req> method(StreamObserver<Resp>)` answered with a stream: the
    /// request messages as they come, a stream of responses.
    pub fn bidi_streaming<Req, Resp, F, Fut, S>(self, method: &str, f: F) -> Self
    where
        Req: DeserializeOwned + Send + 'static,
        Resp: Serialize + JavaType + Send + 'static,
        F: Fn(Streaming<Req>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<S, Status>> + Send + 'static,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
    {
        self.bidi_streaming_with_context(method, move |_, requests| f(requests))
    }

    /// [`bidi_streaming`](Self::bidi_streaming) with the call's [`RequestContext`] handed to
    /// `f` first.
    pub fn bidi_streaming_with_context<Req, Resp, F, Fut, S>(self, method: &str, f: F) -> Self
    where
        Req: DeserializeOwned + Send + 'static,
        Resp: Serialize + JavaType + Send + 'static,
        F: Fn(RequestContext, Streaming<Req>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<S, Status>> + Send + 'static,
        S: Stream<Item = Result<Resp, Status>> + Send + 'static,
    {
        let f = Arc::new(f);
        let handler: Handler = Arc::new(move |mut call: ServerCall| {
            let f = f.clone();
            Box::pin(async move {
                let ctx = request_context(&mut call);
                let requests = Streaming::new_request(call.messages, decode_request::<Req>);
                let out = f(ctx, requests).await?;
                Ok(reply_stream(out))
            })
        });
        self.add(method, MethodKind::BidiStreaming, handler)
    }

    /// Java `StreamObserver<Req> method(StreamObserver<Resp>)` answered once, after the
    /// request stream (Java declares a client stream with the bidirectional signature).
    pub fn client_streaming<Req, Resp, F, Fut>(self, method: &str, f: F) -> Self
    where
        Req: DeserializeOwned + Send + 'static,
        Resp: Serialize + JavaType + Send + 'static,
        F: Fn(Streaming<Req>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Resp, Status>> + Send + 'static,
    {
        self.client_streaming_with_context(method, move |_, requests| f(requests))
    }

    /// [`client_streaming`](Self::client_streaming) with the call's [`RequestContext`] handed
    /// to `f` first.
    pub fn client_streaming_with_context<Req, Resp, F, Fut>(self, method: &str, f: F) -> Self
    where
        Req: DeserializeOwned + Send + 'static,
        Resp: Serialize + JavaType + Send + 'static,
        F: Fn(RequestContext, Streaming<Req>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Resp, Status>> + Send + 'static,
    {
        let f = Arc::new(f);
        let handler: Handler = Arc::new(move |mut call: ServerCall| {
            let f = f.clone();
            Box::pin(async move {
                let ctx = request_context(&mut call);
                let requests = Streaming::new_request(call.messages, decode_request::<Req>);
                let resp = f(ctx, requests).await?;
                let payload = encode_response(&resp, boxed_java_type(&Resp::java_type_name()))?;
                Ok(ServerReply::single(
                    HeaderMap::new(),
                    payload,
                    HeaderMap::new(),
                ))
            })
        });
        self.add(method, MethodKind::ClientStreaming, handler)
    }

    /// The names of the methods added so far.
    pub fn method_names(&self) -> impl Iterator<Item = &str> {
        self.methods.keys().map(String::as_str)
    }

    fn add(mut self, method: &str, kind: MethodKind, handler: Handler) -> Self {
        self.methods
            .insert(method.to_owned(), Method { kind, handler });
        self
    }
}

/// The handler's view of `call`: the one the provider's filters left
/// ([`ServerCall::context`]), or, for a call served without filters, one made from the
/// request as received (every attachment of its headers, the key its path and headers name).
fn request_context(call: &mut ServerCall) -> RequestContext {
    if let Some(ctx) = call.context.take() {
        return ctx;
    }
    let mut attachments = Attachments::new();
    core_attachments(&call.metadata, &mut attachments);
    RequestContext {
        service: Some(request_service_key(&call.service, &call.metadata)),
        attachments,
        response_attachments: Attachments::new(),
        remote_addr: call.remote_addr,
        deadline: call.deadline,
    }
}

/// The reply of a streaming handler: each value a response wrapper declaring `Resp`.
fn reply_stream<Resp, S>(out: S) -> ServerReply
where
    Resp: Serialize + JavaType + Send + 'static,
    S: Stream<Item = Result<Resp, Status>> + Send + 'static,
{
    let type_name = boxed_java_type(&Resp::java_type_name()).to_owned();
    ServerReply {
        headers: HeaderMap::new(),
        messages: out
            .and_then(move |v| futures::future::ready(encode_response(&v, &type_name)))
            .boxed(),
        trailers: HeaderMap::new(),
    }
}

impl IdlService for StreamingInterface {
    fn service_name(&self) -> &str {
        &self.interface
    }

    fn method_kind(&self, method: &str) -> Option<MethodKind> {
        self.methods.get(method).map(|m| m.kind)
    }

    fn call(&self, method: &str, call: ServerCall) -> BoxFuture<Result<ServerReply, Status>> {
        match self.methods.get(method) {
            Some(m) => (m.handler)(call),
            None => {
                let msg = format!("method {method} not found in {}", self.interface);
                Box::pin(async move { Err(Status::unimplemented(msg)) })
            }
        }
    }
}
