//! `failfast`: one attempt; a failure is returned at once.

use dubbo_core::{BoxFuture, Invocation, RpcResult};

use super::{ClusterCall, ClusterStrategy};

/// One attempt on the provider the load balancer picks; its failure is the call's (Java's
/// `FailfastClusterInvoker`, for calls that must not be repeated, such as writes that are not
/// idempotent).
#[derive(Debug, Default, Clone, Copy)]
pub struct Failfast;

impl ClusterStrategy for Failfast {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let provider = call.select(&invocation, call.invokers(), &[])?;
            call.invoke_on(&provider, invocation).await
        })
    }
}
