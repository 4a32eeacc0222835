use std::time::Instant;

use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// `consumercontext` (consumer, Java's `ConsumerContextFilter`): a call whose deadline has
/// already passed when it reaches a provider's chain is not sent; it fails at once with
/// `ErrorCode::Timeout`. This is what happens to a call made while serving another whose time
/// is up (the service passes its [`RequestContext`](crate::RequestContext)'s deadline on), and
/// to a failover retry after the time ran out.
///
/// Java's filter also fills its thread-local client context (addresses, the invoker) and clears
/// it after the call; dubbo-rs keeps no such global, and the protocol puts the addresses into
/// the call's own [`CallContext`](crate::CallContext).
#[derive(Debug, Default, Clone, Copy)]
pub struct ConsumerContextFilter;

impl Filter for ConsumerContextFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        if let Some(deadline) = invocation.context().deadline() {
            if deadline <= Instant::now() {
                let message = format!(
                    "no time left for the call {}.{}: its deadline passed before it was sent; \
                     not sent",
                    invocation.service().interface(),
                    invocation.method_name()
                );
                return Box::pin(
                    async move { Err(RpcError::framework(ErrorCode::Timeout, message)) },
                );
            }
        }
        next.run(invocation)
    }
}
