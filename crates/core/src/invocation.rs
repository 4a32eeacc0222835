//! A call on its way to a provider, and what comes back.

use std::sync::Arc;

use dubbo_hessian2::Value;

use crate::attachments::Attachments;
use crate::context::CallContext;
use crate::method::MethodSignature;
use crate::payload::Payload;
use crate::service_key::ServiceKey;

/// One call: which service and method, with what arguments and attachments.
///
/// Each argument is a [`Payload`]: the caller's typed value (a generated client), a dynamic
/// [`Value`] (generic calls), or the bytes that came off the wire (a provider). Whoever needs
/// to look inside (a router, a filter) asks for [`arg_values`](Self::arg_values).
///
/// Cloning is cheap: the arguments are shared until one side changes them
/// ([`args_mut`](Self::args_mut) copies on write), so fault-tolerance strategies (failover,
/// forking, broadcast, failback) can send one call several times.
#[derive(Debug, Clone)]
pub struct Invocation {
    service: ServiceKey,
    method: Arc<MethodSignature>,
    args: Arc<Vec<Payload>>,
    attachments: Attachments,
    context: CallContext,
}

impl Invocation {
    /// A call of `method` on `service` with dynamic `args`, no attachments and an empty
    /// context.
    pub fn new(service: ServiceKey, method: Arc<MethodSignature>, args: Vec<Value>) -> Self {
        Self::with_payloads(
            service,
            method,
            args.into_iter().map(Payload::Value).collect(),
        )
    }

    /// A call of `method` on `service` with `args` in whatever form they are (typed values
    /// from a generated client, bytes from the wire), no attachments and an empty context.
    pub fn with_payloads(
        service: ServiceKey,
        method: Arc<MethodSignature>,
        args: Vec<Payload>,
    ) -> Self {
        Self {
            service,
            method,
            args: Arc::new(args),
            attachments: Attachments::new(),
            context: CallContext::new(),
        }
    }

    /// The target service.
    pub fn service(&self) -> &ServiceKey {
        &self.service
    }

    /// Replaces the target service (e.g. a router changing the group).
    pub fn set_service(&mut self, service: ServiceKey) {
        self.service = service;
    }

    /// The method's Java signature.
    pub fn method(&self) -> &Arc<MethodSignature> {
        &self.method
    }

    /// The Java method name.
    pub fn method_name(&self) -> &str {
        self.method.name()
    }

    /// The arguments, in the form they are.
    pub fn args(&self) -> &[Payload] {
        &self.args
    }

    /// The arguments as dynamic values, decoded now when they are typed or encoded: for
    /// routers, filters and tools that read arguments.
    pub fn arg_values(&self) -> Result<Vec<Value>, dubbo_hessian2::Error> {
        self.args.iter().map(Payload::to_value).collect()
    }

    /// The arguments, mutable (copied first if a clone of this invocation shares them).
    pub fn args_mut(&mut self) -> &mut Vec<Payload> {
        Arc::make_mut(&mut self.args)
    }

    /// The attachments sent with the request.
    pub fn attachments(&self) -> &Attachments {
        &self.attachments
    }

    /// The attachments sent with the request, mutable.
    pub fn attachments_mut(&mut self) -> &mut Attachments {
        &mut self.attachments
    }

    /// Sets one string attachment (builder form).
    pub fn with_attachment(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.attachments.insert(key, value);
        self
    }

    /// The local per-call context.
    pub fn context(&self) -> &CallContext {
        &self.context
    }

    /// The local per-call context, mutable.
    pub fn context_mut(&mut self) -> &mut CallContext {
        &mut self.context
    }

    /// Splits the invocation into its parts.
    pub fn into_parts(self) -> InvocationParts {
        InvocationParts {
            service: self.service,
            method: self.method,
            args: Arc::try_unwrap(self.args).unwrap_or_else(|shared| Vec::clone(&shared)),
            attachments: self.attachments,
            context: self.context,
        }
    }

    /// Rebuilds an invocation from parts.
    pub fn from_parts(parts: InvocationParts) -> Self {
        Self {
            service: parts.service,
            method: parts.method,
            args: Arc::new(parts.args),
            attachments: parts.attachments,
            context: parts.context,
        }
    }
}

/// The parts of an [`Invocation`], for code that needs to move them separately.
#[derive(Debug)]
pub struct InvocationParts {
    /// The target service.
    pub service: ServiceKey,
    /// The method's Java signature.
    pub method: Arc<MethodSignature>,
    /// The arguments.
    pub args: Vec<Payload>,
    /// The request attachments.
    pub attachments: Attachments,
    /// The local context.
    pub context: CallContext,
}

/// A successful outcome: the returned value (Java's `null` for `void` or a null return) and
/// the attachments the provider sent back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RpcResponse {
    /// The returned value, in the form it is: typed on a provider, encoded on a consumer.
    pub value: Payload,
    /// Response attachments.
    pub attachments: Attachments,
}

impl RpcResponse {
    /// A response carrying `value` and no attachments.
    pub fn new(value: impl Into<Payload>) -> Self {
        Self {
            value: value.into(),
            attachments: Attachments::new(),
        }
    }
}
