//! `failover`: on a framework failure, try another provider.

use std::sync::Arc;

use dubbo_core::{BoxFuture, ErrorCode, Invocation, Invoker, RpcError, RpcResult};

use super::call::code_of;
use super::{ClusterCall, ClusterStrategy};

/// Java's default strategy: a call that fails for a reason of the framework (timeout, lost
/// connection, provider refusing or shutting down) is sent again to another provider, up to
/// `retries` more times (default 2, so three attempts); `<method>.retries` overrides it.
///
/// Like Java's `FailoverClusterInvoker`:
///
/// - a business exception (the provider's own) ends the call at once, never retried;
/// - any other failure is retried, timeouts included; only a cancelled call is not (its
///   caller has gone);
/// - each retry lists and routes the providers again, and avoids every provider already tried
///   while an untried one remains;
/// - when every attempt failed, the error keeps the last failure's code and names the
///   service, method and providers tried.
#[derive(Debug, Default, Clone, Copy)]
pub struct Failover;

impl ClusterStrategy for Failover {
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        // The first pick is made before the call's future exists, so that the future holds
        // only what the first attempt needs across its await.
        let first = match call.select(&invocation, call.invokers(), &[]) {
            Ok(provider) => provider,
            Err(e) => return Box::pin(std::future::ready(Err(e))),
        };
        if call.retries() == 0 {
            Box::pin(once(call, first, invocation))
        } else {
            Box::pin(failover(call, first, invocation))
        }
    }
}

/// The call when no retry is allowed: one attempt, no copy of the invocation.
async fn once(call: ClusterCall, provider: Arc<dyn Invoker>, invocation: Invocation) -> RpcResult {
    let attempt = call.invoke_on(&provider, invocation);
    attempt.await
}

/// The first attempt, keeping the invocation for a retry.
async fn failover(call: ClusterCall, first: Arc<dyn Invoker>, invocation: Invocation) -> RpcResult {
    let attempt = call.invoke_on(&first, invocation.clone());
    let last_error = match attempt.await {
        Ok(response) => return Ok(response),
        Err(e) if !may_retry(&*first, &invocation, &e) => return Err(e),
        Err(e) => e,
    };
    // Retries are rare: their state gets a box of its own, made only now, so that the future
    // of every call (moved into its box as a whole) stays the size of one attempt.
    Box::pin(retry(call, first, invocation, last_error)).await
}

/// Whether a failed attempt may be sent again, the one rule of every strategy that retries:
/// not a call marked [`SentOnce`](dubbo_core::SentOnce) (a stream of requests, consumed by the
/// first attempt), not a business exception (the provider's own answer), not a cancelled call (its caller has
/// gone), and not a refusal of the consumer's credentials (the same credentials are refused
/// again; Java retries those too, only to fail the same way). Any other failure is, timeouts
/// included, as in Java. A call sent over `rest://` is narrower: only a connection failure of
/// an idempotent verb (an HTTP request is not known to be safe to repeat otherwise; see
/// [`dubbo_core::rest::may_retry_rest`]).
pub(crate) fn may_retry(provider: &dyn Invoker, invocation: &Invocation, e: &RpcError) -> bool {
    if invocation.context().get::<dubbo_core::SentOnce>().is_some() {
        return false;
    }
    if provider.url().protocol() == Some(REST) {
        return dubbo_core::rest::may_retry_rest(invocation, e);
    }
    !e.is_business()
        && !matches!(
            e.code(),
            Some(ErrorCode::Cancelled | ErrorCode::Unauthenticated)
        )
}

/// The scheme of plain HTTP providers.
const REST: &str = "rest";

/// The attempts after a first one on `first` failed with `last_error`.
async fn retry(
    call: ClusterCall,
    first: Arc<dyn Invoker>,
    invocation: Invocation,
    mut last_error: RpcError,
) -> RpcResult {
    let attempts = call.retries().saturating_add(1);
    let mut tried: Vec<Arc<dyn Invoker>> = Vec::new();
    let mut provider = first;
    let mut attempt = 1;
    loop {
        tried.push(provider.clone());
        // Attempts share the call's deadline: once it has passed, another attempt could only
        // fail at once (and hide the timeout behind its own error).
        let expired = invocation
            .context()
            .deadline()
            .is_some_and(|d| d <= std::time::Instant::now());
        if attempt >= attempts || expired {
            break;
        }
        attempt += 1;
        let invokers = call.relist(&invocation);
        provider = match call.select(&invocation, &invokers, &tried) {
            Ok(p) => p,
            Err(_) => break,
        };
        match call.invoke_on(&provider, invocation.clone()).await {
            Ok(response) => {
                tracing::warn!(
                    service = call.service(),
                    method = invocation.method_name(),
                    provider = %address(&provider),
                    attempt,
                    "call succeeded after failing over"
                );
                return Ok(response);
            }
            Err(e) if !may_retry(&*provider, &invocation, &e) => return Err(e),
            Err(e) => last_error = e,
        }
    }
    let listed = call.relist(&invocation).len();
    let providers: Vec<String> = tried.iter().map(address).collect();
    Err(RpcError::framework(
        code_of(&last_error),
        format!(
            "failed to invoke method {} of service {} after {attempt} attempt(s) on providers \
             [{}] ({} tried of {listed}); last error: {}",
            invocation.method_name(),
            call.service(),
            providers.join(", "),
            dedup_len(&providers),
            last_error.message()
        ),
    ))
}

/// `host:port` of a provider, for messages.
pub(crate) fn address(provider: &Arc<dyn Invoker>) -> String {
    let url = provider.url();
    format!("{}:{}", url.host().unwrap_or("?"), url.port())
}

fn dedup_len(items: &[String]) -> usize {
    let mut v: Vec<&String> = items.iter().collect();
    v.sort();
    v.dedup();
    v.len()
}
