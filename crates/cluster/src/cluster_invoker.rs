//! The cluster invoker: one reference's many providers behind one [`Invoker`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwapOption;
use dubbo_core::{
    BoxFuture, Directory, ErrorCode, Extensions, Invocation, Invoker, InvokerList, LoadBalance,
    RpcError, RpcResult,
};
use dubbo_url::Url;

use crate::fair_share::spend_budget;
use crate::router::RouterChain;
use crate::strategy::call::contains;
use crate::strategy::DEFAULT_CLUSTER;
use crate::strategy::{with_mock, BackgroundWork, Cluster, ClusterCall, ClusterStrategy};

/// The load balancer used when a reference names none (Java's default).
pub const DEFAULT_LOADBALANCE: &str = "random";

/// Retries after the first attempt when a reference sets none (Java's `DEFAULT_RETRIES`).
pub const DEFAULT_RETRIES: u32 = 2;

/// The settings that pick how one method's calls are balanced and retried, resolved from the
/// consumer URL once, when the reference is made.
#[derive(Clone)]
struct MethodSettings {
    balancer: Arc<dyn LoadBalance>,
    retries: u32,
    sticky: bool,
}

/// What every call of one reference shares: its directory, routers and resolved settings.
pub(crate) struct ClusterShared {
    pub(crate) directory: Arc<dyn Directory>,
    pub(crate) service: String,
    routers: Arc<RouterChain>,
    defaults: MethodSettings,
    /// Methods with a `<method>.loadbalance`, `<method>.retries` or `<method>.sticky` of their
    /// own; empty for most references, so the lookup is skipped.
    methods: HashMap<String, MethodSettings>,
    sticky: ArcSwapOption<Arc<dyn Invoker>>,
}

impl ClusterShared {
    fn settings(&self, method: &str) -> &MethodSettings {
        if self.methods.is_empty() {
            return &self.defaults;
        }
        self.methods.get(method).unwrap_or(&self.defaults)
    }

    /// The directory's providers for `invocation`, routed; a router that removed every
    /// provider is a `NoProvider` error naming the service and that router.
    pub(crate) fn route(&self, invocation: &Invocation) -> Result<InvokerList, RpcError> {
        let listed = self.directory.list(invocation);
        self.routers
            .route(&listed, invocation)
            .map_err(|e| RpcError::framework(ErrorCode::NoProvider, e.to_string()))
    }

    pub(crate) fn no_provider(&self, invocation: &Invocation) -> RpcError {
        let known = self.directory.all().len();
        RpcError::framework(
            ErrorCode::NoProvider,
            format!(
                "no provider available for method {} of service {} ({known} known, none \
                 available after routing)",
                invocation.method_name(),
                self.service
            ),
        )
    }

    /// The provider this method's calls stick to, when `sticky` is on and it can still be used.
    pub(crate) fn sticky(
        &self,
        invocation: &Invocation,
        candidates: &[Arc<dyn Invoker>],
        tried: &[Arc<dyn Invoker>],
    ) -> Option<Arc<dyn Invoker>> {
        if !self.settings(invocation.method_name()).sticky {
            return None;
        }
        let stuck = self.sticky.load_full()?;
        let stuck: Arc<dyn Invoker> = Arc::clone(&stuck);
        (contains(candidates, &stuck) && !contains(tried, &stuck) && stuck.is_available())
            .then_some(stuck)
    }

    pub(crate) fn remember_sticky(&self, invocation: &Invocation, chosen: &Arc<dyn Invoker>) {
        if self.settings(invocation.method_name()).sticky {
            self.sticky.store(Some(Arc::new(chosen.clone())));
        }
    }
}

/// One reference's providers as a single [`Invoker`]: each call lists the directory, routes,
/// and hands the providers to the reference's fault-tolerance strategy, which selects with
/// the method's load balancer and sends.
///
/// Everything named in the consumer URL is resolved when the invoker is made: the strategy
/// (`cluster`, default `failover`, wrapped in a mock when `mock` is set), the load balancer
/// (`loadbalance`, default `random`) and the retries (`retries`, default 2), each with Java's
/// method-level override (`sayHello.loadbalance`, `sayHello.retries`). A call then only loads
/// snapshots and reads those settings.
///
/// Every call spends one unit of the async runtime's cooperative budget when it ends, so that
/// a caller retrying calls that fail at once (no provider) still lets the registry, watch and
/// heartbeat tasks run, on any runtime shape.
pub struct ClusterInvoker {
    shared: Arc<ClusterShared>,
    strategy: Arc<dyn ClusterStrategy>,
}

impl ClusterInvoker {
    /// A cluster invoker over `directory` and `routers`, with the strategy and load balancers
    /// the directory's URL names, looked up in `extensions`.
    ///
    /// Fails with `ErrorCode::Config` when the URL names a strategy or load balancer that is not
    /// registered, or sets `mock` to something that is not understood.
    pub fn new(
        directory: Arc<dyn Directory>,
        routers: Arc<RouterChain>,
        extensions: &Extensions,
    ) -> Result<Self, RpcError> {
        let url = directory.url().clone();
        // Several groups (or `cluster=mergeable`) take the merging strategy, as in Java.
        if let Some(mergeable) = crate::strategy::Mergeable::for_reference(&url, extensions)? {
            let strategy = with_mock(&url, mergeable)?;
            return Self::with_strategy(directory, routers, extensions, strategy);
        }
        let cluster_name = url.parameter("cluster").unwrap_or(DEFAULT_CLUSTER);
        let cluster = extensions.get::<dyn Cluster>(cluster_name).ok_or_else(|| {
            config_error(format!(
                "cluster={cluster_name}: no such fault-tolerance strategy (registered: {})",
                extensions.names::<dyn Cluster>().join(", ")
            ))
        })?;
        let strategy = with_mock(&url, cluster.strategy(&url)?)?;
        Self::with_strategy(directory, routers, extensions, strategy)
    }

    /// A cluster invoker that uses `strategy` whatever the URL's `cluster` says.
    pub fn with_strategy(
        directory: Arc<dyn Directory>,
        routers: Arc<RouterChain>,
        extensions: &Extensions,
        strategy: Arc<dyn ClusterStrategy>,
    ) -> Result<Self, RpcError> {
        let url = directory.url().clone();
        let defaults = MethodSettings {
            balancer: balancer(extensions, url.parameter("loadbalance"))?,
            retries: retries(url.parameter("retries")),
            sticky: url.parameter_bool_or("sticky", false),
        };
        let mut methods = HashMap::new();
        for method in overridden_methods(&url) {
            let own = |key: &str| url.method_parameter_strict(&method, key);
            let settings = MethodSettings {
                balancer: match own("loadbalance") {
                    Some(name) => balancer(extensions, Some(name))?,
                    None => defaults.balancer.clone(),
                },
                retries: own("retries").map_or(defaults.retries, |r| retries(Some(r))),
                sticky: own("sticky").map_or(defaults.sticky, |s| s == "true"),
            };
            methods.insert(method, settings);
        }
        let service = url
            .parameter("interface")
            .or_else(|| url.path())
            .unwrap_or("")
            .to_owned();
        Ok(Self {
            shared: Arc::new(ClusterShared {
                directory,
                service,
                routers,
                defaults,
                methods,
                sticky: ArcSwapOption::empty(),
            }),
            strategy,
        })
    }

    /// The directory of providers.
    pub fn directory(&self) -> &Arc<dyn Directory> {
        &self.shared.directory
    }

    /// Background work of the strategy (failback's retry timer), for the owner of the
    /// reference to run until the reference or the application stops; taken once.
    pub fn background(&self) -> Option<BackgroundWork> {
        self.strategy.background()
    }
}

impl Invoker for ClusterInvoker {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        let settings = self.shared.settings(invocation.method_name());
        let call = match self.shared.route(&invocation) {
            Ok(invokers) => {
                let call = ClusterCall {
                    shared: self.shared.clone(),
                    balancer: settings.balancer.clone(),
                    retries: settings.retries,
                    invokers,
                };
                self.strategy.invoke(call, invocation)
            }
            Err(e) => Box::pin(std::future::ready(Err(e))),
        };
        // A call that fails at once (no provider, every provider unusable) must still let the
        // registry, watch and heartbeat tasks run when its caller retries in a loop.
        Box::pin(spend_budget(call))
    }

    fn url(&self) -> &Url {
        self.shared.directory.url()
    }

    fn is_available(&self) -> bool {
        self.shared.directory.is_available()
    }

    fn destroy(&self) {
        self.strategy.destroy();
        self.shared.directory.destroy();
    }
}

impl std::fmt::Debug for ClusterInvoker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClusterInvoker")
            .field("service", &self.shared.service)
            .field("providers", &self.shared.directory.all().len())
            .finish()
    }
}

fn config_error(message: String) -> RpcError {
    RpcError::framework(ErrorCode::Config, message)
}

/// The balancer named `name` (default `random`). When no `random` is registered, the default
/// falls back to taking the providers in turn, so a reference works before any balancer is.
fn balancer(extensions: &Extensions, name: Option<&str>) -> Result<Arc<dyn LoadBalance>, RpcError> {
    let name = name.map(str::trim).filter(|n| !n.is_empty());
    match name {
        None | Some(DEFAULT_LOADBALANCE) => Ok(extensions
            .get::<dyn LoadBalance>(DEFAULT_LOADBALANCE)
            .unwrap_or_else(|| Arc::new(InTurn::default()))),
        Some(n) => extensions.get::<dyn LoadBalance>(n).ok_or_else(|| {
            config_error(format!(
                "loadbalance={n}: no such load balancer (registered: {})",
                extensions.names::<dyn LoadBalance>().join(", ")
            ))
        }),
    }
}

/// `retries` as a count of attempts after the first. Absent, it is [`DEFAULT_RETRIES`], as
/// in Java. Negative means none, one attempt: Java makes `retries + 1` attempts and raises a
/// count below one to one. Unreadable (not an integer) is the default too: Java's URL would
/// throw on parsing it in every call, and a value that came from a registry or an override
/// rule should not fail every call of the reference.
fn retries(value: Option<&str>) -> u32 {
    match value {
        None => DEFAULT_RETRIES,
        Some(v) => v.trim().parse::<i64>().map_or(DEFAULT_RETRIES, |n| {
            u32::try_from(n.max(0)).unwrap_or(u32::MAX)
        }),
    }
}

/// The methods the URL gives a `loadbalance`, `retries` or `sticky` of their own.
fn overridden_methods(url: &Url) -> Vec<String> {
    let mut methods: Vec<String> = url
        .params()
        .keys()
        .filter_map(|k| {
            let (method, key) = k.split_once('.')?;
            matches!(key, "loadbalance" | "retries" | "sticky").then(|| method.to_owned())
        })
        .collect();
    methods.sort();
    methods.dedup();
    methods
}

/// Takes the providers in turn: the stand-in for `random` while no balancer of that name is
/// registered in the framework.
#[derive(Default)]
struct InTurn {
    next: AtomicUsize,
}

impl LoadBalance for InTurn {
    fn select(&self, invokers: &InvokerList, _invocation: &Invocation) -> Option<Arc<dyn Invoker>> {
        if invokers.is_empty() {
            return None;
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        invokers.get(n % invokers.len()).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_default_floor_and_unreadable() {
        assert_eq!(retries(None), DEFAULT_RETRIES);
        assert_eq!(retries(Some(" 5 ")), 5);
        assert_eq!(retries(Some("0")), 0);
        assert_eq!(retries(Some("-3")), 0, "at least one attempt");
        assert_eq!(retries(Some("two")), DEFAULT_RETRIES);
        assert_eq!(retries(Some("")), DEFAULT_RETRIES);
    }
}
