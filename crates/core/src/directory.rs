//! Directories: the providers a consumer can call for one service, as lock-free snapshots.
//!
//! A directory is fed by a registry (or by a fixed list of direct URLs) and read on every call
//! by the cluster layer, which routes, balances and applies a fault-tolerance strategy over what
//! [`Directory::list`] returns. Readers load an immutable snapshot; the rare writer swaps in a
//! new one, so the call path takes no lock.

use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_url::Url;

use crate::invocation::Invocation;
use crate::invoker::Invoker;

/// An immutable list of provider invokers.
pub type InvokerList = Arc<[Arc<dyn Invoker>]>;

/// The providers of one service as the consumer currently knows them.
pub trait Directory: Send + Sync + 'static {
    /// The consumer's URL for the service (reference settings).
    fn url(&self) -> &Url;

    /// The providers that may take `invocation`, before routing and load balancing.
    fn list(&self, invocation: &Invocation) -> InvokerList;

    /// Every known provider, available or not.
    fn all(&self) -> InvokerList;

    /// Whether at least one provider is available.
    fn is_available(&self) -> bool {
        self.all().iter().any(|i| i.is_available())
    }

    /// Releases the providers; later lists are empty.
    fn destroy(&self) {}
}

/// Narrows a list of providers for one call (condition, tag and script rules).
///
/// Only [`route`](Self::route) is required. The other methods let a router chain order the
/// routers, name the one that emptied a list, precompute per provider snapshot and cache
/// results instead of routing on every call.
pub trait Router: Send + Sync + 'static {
    /// The providers of `invokers` that `invocation` may go to.
    fn route(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
    ) -> Vec<Arc<dyn Invoker>>;

    /// A short name for logs and errors (`condition`, `tag`, ...).
    fn name(&self) -> &str {
        "router"
    }

    /// Where the router runs in a chain: lower first (Java Dubbo's `@Activate(order)`; the tag
    /// router is 100, service condition rules 140, application condition rules 150).
    fn priority(&self) -> i32 {
        0
    }

    /// Told of every new provider snapshot before it is routed, so the router can precompute
    /// what depends on the whole list (a tag rule's `match` resolved to addresses).
    fn notify(&self, snapshot: &InvokerList) {
        let _ = snapshot;
    }

    /// Appends to `key` everything of `invocation` that [`route`](Self::route) reads (the
    /// method name, an attachment's value, ...) and returns `true`, when the route result
    /// depends only on the snapshot and that key; a chain may then cache it per snapshot and
    /// key. Returns `false` when the result must be computed per call (it reads arguments,
    /// picks at random, or the rule asks for `runtime`). The default is `false`: a router
    /// that says nothing is never cached.
    fn cache_key(&self, invocation: &Invocation, key: &mut String) -> bool {
        let _ = (invocation, key);
        false
    }

    /// Why this router left `invocation` no provider, in terms of what the call asked for
    /// (the tag it carries and whether it was forced, ...), for the `NoProvider` error that a
    /// user reads; `None` when the router's name says enough. Asked only after the router
    /// emptied a list, never on a routed call.
    fn explain_empty(&self, invocation: &Invocation) -> Option<String> {
        let _ = invocation;
        None
    }
}

/// Picks one provider for one call (random, round robin, least active, p2c, ...).
///
/// `invokers` is the list the cluster holds for the call: after routing, the very `Arc` of
/// the directory's snapshot or of the route result cached for it, the same allocation for as
/// long as those last. A balancer that derives state from a list (weights, a hash ring,
/// counters) can recognise it by that allocation inside its own type; nothing else in the
/// trait is needed for it.
pub trait LoadBalance: Send + Sync + 'static {
    /// The chosen provider, or `None` when `invokers` is empty.
    fn select(&self, invokers: &InvokerList, invocation: &Invocation) -> Option<Arc<dyn Invoker>>;

    /// What learns from the results of the calls this balancer placed, for balancers that
    /// keep state of their own from them (adaptive). The framework's
    /// [`StatsStore`](crate::StatsStore) already holds the counters every balancer can read
    /// (calls in flight, latency, failures), so most return `None`, the default; the cluster
    /// then neither times an attempt nor keeps a copy of the call for it.
    fn observer(&self) -> Option<&dyn ResultObserver> {
        None
    }
}

/// Told of every attempt's result on the provider a [`LoadBalance`] selected, when the
/// balancer offers it through [`LoadBalance::observer`].
pub trait ResultObserver: Send + Sync {
    /// The attempt of `invocation` on `provider` ended with `result` after `elapsed`.
    fn on_result(
        &self,
        provider: &dyn Invoker,
        invocation: &Invocation,
        result: &crate::RpcResult,
        elapsed: std::time::Duration,
    );
}

/// A directory whose providers are set by its owner: direct URLs, or a registry listener that
/// replaces the whole list on every notification.
pub struct StaticDirectory {
    url: Url,
    snapshot: ArcSwap<InvokerList>,
    available: crate::available::AvailableView,
}

impl StaticDirectory {
    /// A directory for the consumer `url` holding `invokers`.
    pub fn new(url: Url, invokers: Vec<Arc<dyn Invoker>>) -> Self {
        Self {
            url,
            snapshot: ArcSwap::from_pointee(invokers.into()),
            available: Default::default(),
        }
    }

    /// Replaces the providers; calls already in progress keep the list they started with.
    pub fn set(&self, invokers: Vec<Arc<dyn Invoker>>) {
        self.snapshot.store(Arc::new(invokers.into()));
    }
}

impl Directory for StaticDirectory {
    fn url(&self) -> &Url {
        &self.url
    }

    fn list(&self, _invocation: &Invocation) -> InvokerList {
        self.available.available(&self.snapshot.load())
    }

    fn all(&self) -> InvokerList {
        InvokerList::clone(&self.snapshot.load_full())
    }

    fn destroy(&self) {
        for i in self.snapshot.load().iter() {
            i.destroy();
        }
        self.set(Vec::new());
        self.available.clear();
    }
}

impl std::fmt::Debug for StaticDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticDirectory")
            .field("url", &self.url.to_string())
            .field("providers", &self.snapshot.load().len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::invoker::{BoxFuture, RpcResult};
    use crate::{MethodSignature, RpcResponse, ServiceKey, Value};

    struct Provider {
        url: Url,
        up: AtomicBool,
    }

    impl Invoker for Provider {
        fn invoke(&self, _invocation: Invocation) -> BoxFuture<'_, RpcResult> {
            Box::pin(async { Ok(RpcResponse::new(Value::Null)) })
        }
        fn url(&self) -> &Url {
            &self.url
        }
        fn is_available(&self) -> bool {
            self.up.load(Ordering::Relaxed)
        }
    }

    fn provider(port: u16) -> Arc<Provider> {
        Arc::new(Provider {
            url: Url::parse(&format!("dubbo://127.0.0.1:{port}/a.B")).unwrap(),
            up: AtomicBool::new(true),
        })
    }

    #[test]
    fn lists_available_providers_and_swaps_snapshots() {
        let a = provider(1);
        let b = provider(2);
        let dir = StaticDirectory::new(
            Url::parse("consumer://127.0.0.1/a.B").unwrap(),
            vec![a.clone(), b.clone()],
        );
        let inv = Invocation::new(
            ServiceKey::interface_only("a.B"),
            Arc::new(MethodSignature::new::<&str>("m", &[], "void")),
            vec![],
        );
        assert_eq!(dir.list(&inv).len(), 2);
        let before = dir.list(&inv);
        b.up.store(false, Ordering::Relaxed);
        let now = dir.list(&inv);
        assert_eq!(now.len(), 1);
        assert_eq!(now[0].url().port(), 1);
        assert!(
            Arc::ptr_eq(&now, &dir.list(&inv)),
            "the same list while availability does not change"
        );
        b.up.store(true, Ordering::Relaxed);
        assert_eq!(
            dir.list(&inv).len(),
            2,
            "a provider that recovers comes back"
        );
        b.up.store(false, Ordering::Relaxed);
        assert!(dir.is_available());
        dir.set(vec![b.clone()]);
        assert!(!dir.is_available());
        assert_eq!(before.len(), 2, "an earlier snapshot is unchanged");
        assert_eq!(dir.all().len(), 1);
    }
}
