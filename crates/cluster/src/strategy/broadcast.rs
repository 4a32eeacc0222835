//! `broadcast`: every provider, one after another; fails if any fails.

use dubbo_core::{BoxFuture, Invocation, RpcError, RpcResult};

use super::{ClusterCall, ClusterStrategy};

/// Sends the call to every routed provider in turn (Java's `BroadcastClusterInvoker`, for
/// notifying every provider, e.g. to refresh a cache). The call fails with the last failure if
/// any provider failed, a business exception included; otherwise it returns the last
/// provider's result.
///
/// `broadcast.fail.percent` (0 to 100, default 100) stops early: once that share of the
/// providers has failed, the rest are not called.
#[derive(Debug, Default, Clone, Copy)]
pub struct Broadcast;

impl ClusterStrategy for Broadcast {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async move {
            let invokers = call.invokers().clone();
            if invokers.is_empty() {
                return Err(call.no_provider(&invocation));
            }
            let percent = call
                .method_i64(&invocation, "broadcast.fail.percent", 100)
                .clamp(0, 100);
            let n = i64::try_from(invokers.len()).unwrap_or(i64::MAX);
            let threshold = usize::try_from((n * percent / 100).max(1)).unwrap_or(usize::MAX);
            let mut failures = 0usize;
            let mut last_error: Option<RpcError> = None;
            let mut last_ok = None;
            for provider in invokers.iter() {
                match call.invoke_on(provider, invocation.clone()).await {
                    Ok(r) => last_ok = Some(r),
                    Err(e) => {
                        failures += 1;
                        tracing::warn!(
                            service = call.service(),
                            provider = %super::failover::address(provider),
                            error = %e,
                            "broadcast: a provider failed"
                        );
                        last_error = Some(e);
                        if failures >= threshold {
                            break;
                        }
                    }
                }
            }
            match (last_error, last_ok) {
                (Some(e), _) => Err(e),
                (None, Some(r)) => Ok(r),
                (None, None) => Err(call.no_provider(&invocation)),
            }
        })
    }
}
