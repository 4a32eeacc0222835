use std::sync::Arc;

use crate::attachments::Attachments;
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// Request attachments the framework reads for itself, which a service does not see in its
/// [`RequestContext`](crate::RequestContext) (the keys Java's `ContextFilter` leaves out of the
/// server attachments): the service's address, the protocol version, the token, timeouts and
/// the countdown, the async flag and the tag-routing keys.
pub const FRAMEWORK_ATTACHMENTS: &[&str] = &[
    "path",
    "interface",
    "group",
    "version",
    "dubbo",
    "token",
    "timeout",
    "_TO",
    "async",
    "dubbo.tag",
    "dubbo.force.tag",
];

/// The attachments a provider's service sees, put into the call's context by
/// [`ContextFilter`] and read when the service is called.
#[derive(Debug, Clone, Default)]
pub struct ServerAttachments(pub Attachments);

impl ServerAttachments {
    /// `attachments` without the [`FRAMEWORK_ATTACHMENTS`].
    pub fn of(attachments: &Attachments) -> Self {
        let mut visible = Attachments::new();
        for (k, v) in attachments.iter() {
            if !FRAMEWORK_ATTACHMENTS.contains(&k) {
                visible.insert_value(k, v.clone());
            }
        }
        ServerAttachments(visible)
    }

    /// The attachments to hand to the service: those the context filter chose when it ran,
    /// else every request attachment (a chain built without the filter).
    pub fn take(context: &mut crate::CallContext, all: Attachments) -> Attachments {
        match context.remove::<ServerAttachments>() {
            Some(chosen) => Arc::try_unwrap(chosen).map_or_else(|a| a.0.clone(), |a| a.0),
            None => all,
        }
    }
}

/// `context` (provider, Java's `ContextFilter`): decides what the service sees of the
/// request's attachments, leaving out the framework's own keys. The filters after it still see
/// every attachment (the token filter reads `token`); the consumer's address and the deadline
/// are set by the protocol that received the call.
#[derive(Debug, Default, Clone, Copy)]
pub struct ContextFilter;

impl Filter for ContextFilter {
    fn invoke<'a>(
        &'a self,
        mut invocation: Invocation,
        next: Next<'a>,
    ) -> BoxFuture<'a, RpcResult> {
        let visible = ServerAttachments::of(invocation.attachments());
        invocation.context_mut().insert(visible);
        next.run(invocation)
    }
}
