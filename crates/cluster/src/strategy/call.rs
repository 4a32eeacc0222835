//! What a strategy gets for one call: the routed providers and the means to select among them.

use std::sync::Arc;
use std::time::Instant;

use dubbo_core::{
    BoxFuture, ErrorCode, Invocation, Invoker, InvokerList, LoadBalance, RpcError, RpcResult,
};

use crate::cluster_invoker::ClusterShared;

/// One call's view of its reference's cluster: the providers left after routing, the load
/// balancer and retry count for the call's method, and the reference's directory and routers
/// for listing again before a retry.
///
/// It is cheap to clone (three shared handles and a number), so a strategy that works after the
/// call returned (failback) keeps a clone.
#[derive(Clone)]
pub struct ClusterCall {
    pub(crate) shared: Arc<ClusterShared>,
    pub(crate) balancer: Arc<dyn LoadBalance>,
    pub(crate) retries: u32,
    pub(crate) invokers: InvokerList,
}

impl ClusterCall {
    /// The providers that may take the call, after routing (possibly empty).
    pub fn invokers(&self) -> &InvokerList {
        &self.invokers
    }

    /// The call's load balancer (`<method>.loadbalance`, else `loadbalance`, else `random`).
    pub fn balancer(&self) -> &Arc<dyn LoadBalance> {
        &self.balancer
    }

    /// The call's retry count (`<method>.retries`, else `retries`, else 2).
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The reference's consumer URL, for strategy settings.
    pub fn url(&self) -> &dubbo_url::Url {
        self.shared.directory.url()
    }

    /// A setting of the call's method: `<method>.<key>`, else `<key>`.
    pub fn method_parameter<'a>(&'a self, invocation: &Invocation, key: &str) -> Option<&'a str> {
        self.url().method_parameter(invocation.method_name(), key)
    }

    /// A numeric setting of the call's method, `default` when absent or not a number.
    pub fn method_i64(&self, invocation: &Invocation, key: &str, default: i64) -> i64 {
        self.method_parameter(invocation, key)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(default)
    }

    /// The interface the reference calls, for messages.
    pub fn service(&self) -> &str {
        &self.shared.service
    }

    /// Lists and routes the providers again, for a retry that must see providers that came
    /// or went since the call started; none when a router now removes every one.
    pub fn relist(&self, invocation: &Invocation) -> InvokerList {
        self.shared
            .route(invocation)
            .unwrap_or_else(|_| Vec::new().into())
    }

    /// `ErrorCode::NoProvider`, naming the service and method.
    pub fn no_provider(&self, invocation: &Invocation) -> RpcError {
        self.shared.no_provider(invocation)
    }

    /// Picks a provider of `candidates` for `invocation`, avoiding those in `tried` while any
    /// other remains (Java's select and reselect).
    ///
    /// The load balancer picks first; a pick already tried, or one that is not available, is
    /// replaced by the balancer's pick among the untried available providers, else among the
    /// tried ones that are available, else by the provider after it in the list. A single
    /// candidate is returned as is. Fails with `NoProvider` when `candidates` is empty.
    pub fn select(
        &self,
        invocation: &Invocation,
        candidates: &InvokerList,
        tried: &[Arc<dyn Invoker>],
    ) -> Result<Arc<dyn Invoker>, RpcError> {
        match &**candidates {
            [] => return Err(self.no_provider(invocation)),
            [only] => return Ok(only.clone()),
            _ => {}
        }
        let sticky = self.shared.sticky(invocation, candidates, tried);
        if let Some(s) = sticky {
            return Ok(s);
        }
        let picked = self
            .balancer
            .select(candidates, invocation)
            .unwrap_or_else(|| candidates[0].clone());
        let chosen = if !contains(tried, &picked) && picked.is_available() {
            picked
        } else {
            self.reselect(invocation, candidates, tried)
                .unwrap_or_else(|| next_after(candidates, &picked))
        };
        self.shared.remember_sticky(invocation, &chosen);
        Ok(chosen)
    }

    fn reselect(
        &self,
        invocation: &Invocation,
        candidates: &[Arc<dyn Invoker>],
        tried: &[Arc<dyn Invoker>],
    ) -> Option<Arc<dyn Invoker>> {
        let fresh: InvokerList = candidates
            .iter()
            .filter(|i| !contains(tried, i) && i.is_available())
            .cloned()
            .collect();
        if !fresh.is_empty() {
            return self
                .balancer
                .select(&fresh, invocation)
                .or_else(|| fresh.first().cloned());
        }
        let again: InvokerList = tried
            .iter()
            .filter(|i| i.is_available() && contains(candidates, i))
            .cloned()
            .collect();
        self.balancer.select(&again, invocation)
    }

    /// Sends `invocation` to `provider` and tells the load balancer how it went. The
    /// invocation is consumed at once (the provider takes it before this returns); strategies
    /// that send again clone it first (cheap).
    pub fn invoke_on<'a>(
        &'a self,
        provider: &'a Arc<dyn Invoker>,
        invocation: Invocation,
    ) -> BoxFuture<'a, RpcResult> {
        let Some(observer) = self.balancer.observer() else {
            return provider.invoke(invocation);
        };
        // Timed and copied only for a balancer that learns from results (adaptive).
        let probe = invocation.clone();
        let start = Instant::now();
        let call = provider.invoke(invocation);
        Box::pin(async move {
            let result = call.await;
            observer.on_result(&**provider, &probe, &result, start.elapsed());
            result
        })
    }
}

impl std::fmt::Debug for ClusterCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterCall")
            .field("service", &self.shared.service)
            .field("providers", &self.invokers.len())
            .field("retries", &self.retries)
            .finish()
    }
}

/// Whether `list` holds the very invoker `x` (by identity).
pub(crate) fn contains(list: &[Arc<dyn Invoker>], x: &Arc<dyn Invoker>) -> bool {
    list.iter().any(|i| same(i, x))
}

/// Whether two handles are the same invoker.
pub(crate) fn same(a: &Arc<dyn Invoker>, b: &Arc<dyn Invoker>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

/// The provider after `x` in `list` (wrapping), or the first when `x` is not there.
fn next_after(list: &[Arc<dyn Invoker>], x: &Arc<dyn Invoker>) -> Arc<dyn Invoker> {
    let at = list.iter().position(|i| same(i, x)).map_or(0, |p| p + 1);
    list[at % list.len()].clone()
}

/// A framework failure code of `e`, `Unknown` for a business exception (callers check that
/// first).
pub(crate) fn code_of(e: &RpcError) -> ErrorCode {
    e.code().unwrap_or(ErrorCode::Unknown)
}
