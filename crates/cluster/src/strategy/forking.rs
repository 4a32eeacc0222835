//! `forking`: several providers at once; the first success wins.

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{BoxFuture, ErrorCode, Invocation, Invoker, RpcError, RpcResult};
use futures::stream::{FuturesUnordered, StreamExt};

use super::{ClusterCall, ClusterStrategy};

/// Providers called at once when a reference sets no `forks` (Java's default).
pub const DEFAULT_FORKS: i64 = 2;

/// How long a forking call waits when the reference sets no `timeout` (Java's default).
pub const DEFAULT_TIMEOUT_MS: i64 = 1000;

/// Sends the call to `forks` different providers at once (default 2; zero, a negative count
/// or one at least the number of providers means all of them) and returns the first success
/// (Java's `ForkingClusterInvoker`, for reads where latency matters more than load).
///
/// The wait is bounded by the method's `timeout` (default 1000 ms): with no success by then
/// the call fails with `Timeout`. When every provider failed first, the last failure is
/// returned; as in Java a business exception counts as a failure here, so another provider's
/// success still wins over it. The calls still running when one succeeds are dropped.
#[derive(Debug, Default, Clone, Copy)]
pub struct Forking;

impl ClusterStrategy for Forking {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(forking(call, invocation))
    }
}

async fn forking(call: ClusterCall, invocation: Invocation) -> RpcResult {
    let invokers = call.invokers().clone();
    if invokers.is_empty() {
        return Err(call.no_provider(&invocation));
    }
    let forks = call.method_i64(&invocation, "forks", DEFAULT_FORKS);
    let selected: Vec<Arc<dyn Invoker>> = match usize::try_from(forks) {
        Ok(n) if n > 0 && n < invokers.len() => {
            let mut chosen: Vec<Arc<dyn Invoker>> = Vec::with_capacity(n);
            while chosen.len() < n {
                let p = call.select(&invocation, &invokers, &chosen)?;
                if super::call::contains(&chosen, &p) {
                    break;
                }
                chosen.push(p);
            }
            chosen
        }
        _ => invokers.to_vec(),
    };
    let timeout = call.method_i64(&invocation, "timeout", DEFAULT_TIMEOUT_MS);
    let timeout = Duration::from_millis(u64::try_from(timeout).unwrap_or(0));
    let mut running: FuturesUnordered<_> = selected
        .iter()
        .map(|p| call.invoke_on(p, invocation.clone()))
        .collect();
    let first_success = async {
        let mut last: Option<RpcError> = None;
        while let Some(result) = running.next().await {
            match result {
                Ok(response) => return Ok(response),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| call.no_provider(&invocation)))
    };
    match tokio::time::timeout(timeout, first_success).await {
        Ok(result) => result,
        Err(_) => Err(RpcError::framework(
            ErrorCode::Timeout,
            format!(
                "forking call of method {} of service {} had no success from {} provider(s) \
                 within {} ms",
                invocation.method_name(),
                call.service(),
                selected.len(),
                timeout.as_millis()
            ),
        )),
    }
}
