//! `available`: the first available provider, without load balancing.

use dubbo_core::{BoxFuture, Invocation, RpcResult};

use super::{ClusterCall, ClusterStrategy};

/// Sends the call to the first provider of the routed list that is available, once, without
/// asking the load balancer (Java's `AvailableClusterInvoker`); `NoProvider` when none is.
#[derive(Debug, Default, Clone, Copy)]
pub struct Available;

impl ClusterStrategy for Available {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let provider = call
                .invokers()
                .iter()
                .find(|i| i.is_available())
                .cloned()
                .ok_or_else(|| call.no_provider(&invocation))?;
            call.invoke_on(&provider, invocation).await
        })
    }
}
