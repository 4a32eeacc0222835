//! The provider side of a typed service: dynamic dispatch from an invocation to the method.

use std::sync::Arc;

use dubbo_url::Url;

use crate::error::{ErrorCode, RpcError};
use crate::invocation::{Invocation, RpcResponse};
use crate::invoker::{BoxFuture, Invoker, RpcResult};
use crate::method::MethodSignature;
use crate::payload::Payload;
use crate::request_context::RequestContext;

/// A service implementation behind dynamic dispatch. The `#[dubbo_rs::service]` macro generates
/// one for every service trait; hand-written ones are fine too.
pub trait ServiceHandler: Send + Sync + 'static {
    /// The Java interface name the service is exported under.
    fn interface(&self) -> &str;

    /// Every method the service answers, with its Java signature.
    fn methods(&self) -> &[Arc<MethodSignature>];

    /// Calls `method` with `args`, each decoded into its parameter's type from whatever form
    /// it came in, and returns the result as the method's own value (typed, encoded by the
    /// protocol straight from it). Arguments that do not decode into the method's parameter
    /// types are a [`ErrorCode::BadRequest`]; an unknown method is [`ErrorCode::MethodNotFound`].
    fn call<'a>(
        &'a self,
        method: &'a MethodSignature,
        args: Vec<Payload>,
        ctx: &'a mut RequestContext,
    ) -> BoxFuture<'a, Result<Payload, RpcError>>;

    /// How the service is reached over HTTP (the REST form of Triple), if it says:
    /// `#[dubbo_rs::service]` answers for every service, from its methods' `#[get(...)]`-style
    /// attributes and the default `/{interface}/{method}` mapping of the others.
    fn rest(&self) -> Option<&'static crate::rest::RestService> {
        None
    }

    /// The service's streaming methods, as the protocol that streams them takes them: for
    /// Triple, a `dubbo_protocol_triple::server::interface_stream::StreamingInterface`, which
    /// `#[dubbo_rs::service]` builds from the trait's streaming methods. An application serves
    /// it next to the service on each tri:// port the service is exported on. `None` (the
    /// default): the service has no streaming method.
    fn streams(&self) -> Option<Arc<dyn std::any::Any + Send + Sync>> {
        None
    }

    /// Java's `FullServiceDefinition` of the service (methods and the types they reach), for
    /// the metadata report and the MetadataService. `None` (the default) publishes none.
    fn definition(&self) -> Option<crate::ServiceDefinition> {
        None
    }

    /// The declared signature of the method called `name` taking `arity` arguments, if any.
    fn find_method(&self, name: &str, arity: usize) -> Option<&Arc<MethodSignature>> {
        self.methods()
            .iter()
            .find(|m| m.name() == name && m.parameter_types().len() == arity)
    }
}

/// `args` as dynamic values, for a hand-written handler that works with trees; an argument
/// that does not decode is a [`ErrorCode::BadRequest`].
pub fn arg_values(args: Vec<Payload>) -> Result<Vec<dubbo_hessian2::Value>, RpcError> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_value().map_err(|e| {
                RpcError::framework(
                    ErrorCode::BadRequest,
                    format!("argument {} does not decode: {e}", i + 1),
                )
            })
        })
        .collect()
}

/// The error for a method the service does not have.
pub fn method_not_found(interface: &str, method: &MethodSignature) -> RpcError {
    RpcError::framework(
        ErrorCode::MethodNotFound,
        format!(
            "no method {}({}) in service {interface}",
            method.name(),
            method.parameter_types().join(",")
        ),
    )
}

/// An [`Invoker`] that runs a [`ServiceHandler`] in-process: the innermost stage on the
/// provider side, below the provider filters.
pub struct ServiceInvoker<H> {
    handler: Arc<H>,
    url: Url,
}

impl<H: ServiceHandler> ServiceInvoker<H> {
    /// Serves `handler`, described by `url`.
    pub fn new(handler: Arc<H>, url: Url) -> Self {
        Self { handler, url }
    }

    /// The handler.
    pub fn handler(&self) -> &Arc<H> {
        &self.handler
    }
}

impl<H: ServiceHandler> Invoker for ServiceInvoker<H> {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let mut parts = invocation.into_parts();
            // A protocol that names the declared return type on the wire asked for it.
            if let Some(slot) = parts.context.get::<crate::DeclaredReturnType>() {
                // The overload with the very parameter types called, else the one of that arity.
                let called = &parts.method;
                let declared = self
                    .handler
                    .methods()
                    .iter()
                    .find(|m| {
                        m.name() == called.name() && m.parameter_types() == called.parameter_types()
                    })
                    .or_else(|| self.handler.find_method(called.name(), parts.args.len()));
                if let Some(m) = declared {
                    slot.set(m.return_type());
                }
            }
            let attachments =
                crate::filters::ServerAttachments::take(&mut parts.context, parts.attachments);
            let mut ctx = RequestContext {
                service: Some(parts.service),
                attachments,
                response_attachments: Default::default(),
                remote_addr: parts.context.remote_addr(),
                deadline: parts.context.deadline(),
            };
            let value = self
                .handler
                .call(&parts.method, parts.args, &mut ctx)
                .await?;
            Ok(RpcResponse {
                value,
                attachments: ctx.response_attachments,
            })
        })
    }

    fn url(&self) -> &Url {
        &self.url
    }
}
