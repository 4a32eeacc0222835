//! IDL (protobuf) services on the provider's common call path.
//!
//! An IDL call is handled by its generated service at the byte level (a [`ServerCall`] in, a
//! [`ServerReply`] out, streams both ways), which does not fit an [`Invocation`]'s Hessian
//! arguments. So that provider filters (token, limits, metrics, user filters) still see every
//! IDL call once, the server wraps the call in an invocation with no arguments and carries the
//! byte-level call and its reply through an [`IdlServerCall`] in the invocation's context;
//! [`IdlInvoker`], at the end of the filter chain, hands them to the service. A filter that
//! answers on its own (a refused token, a limit) never reaches the service, and its error goes
//! back as the call's gRPC status.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use dubbo_core::filters::ServerAttachments;
use dubbo_core::{
    Attachments, BoxFuture, ErrorCode, Invocation, Invoker, MethodSignature, RequestContext,
    RpcError, RpcResponse, RpcResult, ServiceKey,
};
use dubbo_url::Url;

use super::routing::{IdlService, ServerCall, ServerReply};
use crate::headers::{core_attachments, name};
use crate::status::Status;

/// The byte-level side of one IDL call, shared between the server and [`IdlInvoker`] through
/// the invocation's context.
#[derive(Debug, Default)]
pub struct IdlServerCall {
    call: Mutex<Option<ServerCall>>,
    reply: Mutex<Option<Result<ServerReply, Status>>>,
}

impl IdlServerCall {
    fn new(call: ServerCall) -> Self {
        Self {
            call: Mutex::new(Some(call)),
            reply: Mutex::new(None),
        }
    }

    /// Takes the call out, once.
    pub fn take_call(&self) -> Option<ServerCall> {
        self.call.lock().ok()?.take()
    }

    /// Stores what the service answered.
    pub fn set_reply(&self, reply: Result<ServerReply, Status>) {
        if let Ok(mut r) = self.reply.lock() {
            *r = Some(reply);
        }
    }

    fn take_reply(&self) -> Option<Result<ServerReply, Status>> {
        self.reply.lock().ok()?.take()
    }
}

/// The innermost provider stage of an IDL service: calls the generated service with the
/// byte-level call found in the invocation's context.
pub struct IdlInvoker {
    service: Arc<dyn IdlService>,
    url: Url,
}

impl IdlInvoker {
    /// Serves `service`, described by `url`.
    pub fn new(service: Arc<dyn IdlService>, url: Url) -> Self {
        Self { service, url }
    }
}

impl Invoker for IdlInvoker {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let slot = invocation.context().get_shared::<IdlServerCall>();
            let Some((slot, mut call)) = slot.and_then(|s| s.take_call().map(|c| (s, c))) else {
                return Err(RpcError::framework(
                    ErrorCode::BadRequest,
                    format!(
                        "IDL service {} can only be called over Triple",
                        self.service.service_name()
                    ),
                ));
            };
            // What the service may see of the call, as a unary service's invoker hands it
            // its `RequestContext` (the attachments the context filter chose).
            let mut parts = invocation.into_parts();
            call.context = Some(RequestContext {
                attachments: ServerAttachments::take(&mut parts.context, parts.attachments),
                service: Some(parts.service),
                response_attachments: Attachments::new(),
                remote_addr: parts.context.remote_addr(),
                deadline: parts.context.deadline(),
            });
            match self.service.call(parts.method.name(), call).await {
                Ok(reply) => {
                    slot.set_reply(Ok(reply));
                    Ok(RpcResponse::default())
                }
                Err(status) => {
                    let err = RpcError::from(status.clone());
                    slot.set_reply(Err(status));
                    Err(err)
                }
            }
        })
    }

    fn url(&self) -> &Url {
        &self.url
    }
}

/// One served IDL service: what it answers, and the chain its calls go through.
#[derive(Clone)]
pub(crate) struct IdlEntry {
    pub(crate) service: Arc<dyn IdlService>,
    /// The provider chain; `None` serves the service directly, with no filters.
    pub(crate) invoker: Option<Arc<dyn Invoker>>,
    /// The key of a call that names no group and no version, made once.
    key: ServiceKey,
    /// The key this entry is exported under (group and version of its URL); a request's
    /// headers select among the entries of one service name by it.
    pub(crate) export: ServiceKey,
    /// The signature of each method called so far, made on its first call: building one per
    /// call (strings, allocations) cost about 1 % of an Echo's instructions.
    signatures: Arc<ArcSwap<HashMap<String, Arc<MethodSignature>, foldhash::fast::RandomState>>>,
}

impl IdlEntry {
    /// `service`, exported under `export` (a key of its service name), called through
    /// `invoker` (`None`: directly).
    pub(crate) fn new(
        service: Arc<dyn IdlService>,
        invoker: Option<Arc<dyn Invoker>>,
        export: ServiceKey,
    ) -> Self {
        let key = ServiceKey::interface_only(service.service_name());
        Self {
            service,
            invoker,
            key,
            export,
            signatures: Arc::default(),
        }
    }

    /// The call's service key: the header-less one shared, others made for the call.
    fn key_of(&self, call: &ServerCall) -> ServiceKey {
        let (group, version) = super::interface::requested_group_version(&call.metadata);
        if group.is_none() && version.is_none() && call.service == self.key.interface() {
            return self.key.clone();
        }
        ServiceKey::new(call.service.as_str(), group, version)
    }

    fn signature(&self, method: &str) -> Arc<MethodSignature> {
        if let Some(s) = self.signatures.load().get(method) {
            return s.clone();
        }
        let made = Arc::new(MethodSignature::new::<&str>(method, &[], ""));
        // Only names the service answers are kept, so a client cannot grow the map.
        if self.service.method_kind(method).is_some() {
            self.signatures.rcu(|m| {
                let mut m = HashMap::clone(m);
                m.insert(method.to_owned(), made.clone());
                m
            });
        }
        made
    }
}

/// Runs one IDL call through `entry`'s chain and returns the service's reply, or the status of
/// the error a filter (or the service) ended it with.
pub(crate) async fn serve(entry: IdlEntry, call: ServerCall) -> Result<ServerReply, Status> {
    let Some(invoker) = entry.invoker.as_ref() else {
        let method = call.method.clone();
        return entry.service.call(&method, call).await;
    };
    let key = entry.key_of(&call);
    let method = entry.signature(&call.method);
    let mut attachments = Attachments::new();
    core_attachments(&call.metadata, &mut attachments);
    if let Some(app) = call
        .metadata
        .get(name::TRI_CONSUMER_APPNAME)
        .and_then(|v| v.to_str().ok())
    {
        attachments.insert("remote.application", app);
    }
    let deadline = call.deadline;
    let addrs = call.connection.clone();
    let slot = IdlServerCall::new(call);
    let mut inv = Invocation::new(key, method, Vec::new());
    *inv.attachments_mut() = attachments;
    if let Some(d) = deadline {
        inv.context_mut().set_deadline(d);
    }
    inv.context_mut().set_connection_addrs(addrs);
    inv.context_mut().insert(slot);
    let slot = inv.context().get_shared::<IdlServerCall>();
    let result = invoker.invoke(inv).await;
    let reply = slot.and_then(|s| s.take_reply());
    match (result, reply) {
        (_, Some(reply)) => reply,
        (Err(e), None) => Err(Status::from(e)),
        (Ok(_), None) => Err(Status::internal(
            "a provider filter answered an IDL call without calling the service",
        )),
    }
}
