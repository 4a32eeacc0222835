//! Fault-tolerance strategies: how one call uses the providers when some fail.
//!
//! A strategy is chosen per reference by the `cluster` URL parameter, with Java Dubbo's names:
//!
//! | name        | on failure                                                              |
//! |-------------|-------------------------------------------------------------------------|
//! | `failover`  | (default) tries another provider, up to `retries` (default 2) more times |
//! | `failfast`  | returns the error at once                                               |
//! | `failsafe`  | logs the error and returns a null result                                |
//! | `failback`  | returns a null result now and retries the call in the background       |
//! | `forking`   | calls `forks` providers at once; the first success wins                |
//! | `broadcast` | calls every provider; fails if any fails                                |
//! | `available` | calls the first available provider, without load balancing             |
//! | `mock`      | `mock=force:return x`, `fail:return x`, `throw`: a local answer        |
//!
//! Each is registered in the framework's [`Extensions`] as an `Arc<dyn Cluster>` under its
//! name by [`register_strategies`]; register your own the same way and name it in `cluster`.

use std::sync::Arc;

use dubbo_core::{BoxFuture, Extensions, Invocation, RpcError, RpcResult};
use dubbo_url::Url;
use tokio_util::sync::CancellationToken;

mod available;
mod broadcast;
pub(crate) mod call;
mod failback;
mod failfast;
pub(crate) mod failover;
mod failsafe;
mod forking;
mod mergeable;
mod mock;

pub use available::Available;
pub use broadcast::Broadcast;
pub use call::ClusterCall;
pub use failback::Failback;
pub use failfast::Failfast;
pub use failover::Failover;
pub use failsafe::Failsafe;
pub use forking::Forking;
pub use mergeable::{is_multi_group, Mergeable, MERGEABLE};
pub use mock::{Mock, MockSetting};

/// The strategy used when a reference names none (Java's default).
pub const DEFAULT_CLUSTER: &str = "failover";

/// A work a strategy needs done in the background for as long as its reference lives
/// (failback's retry timer). It is given a token and returns soon after the token is cancelled,
/// the contract of the application's `BackgroundTasks`.
pub type BackgroundWork = Box<dyn FnOnce(CancellationToken) -> BoxFuture<'static, ()> + Send>;

/// How one call of a reference uses its providers.
///
/// A strategy gets the call's [`ClusterCall`] (the routed providers, the load balancer, the
/// method's settings, and the means to list again, select and invoke) and the invocation.
pub trait ClusterStrategy: Send + Sync + 'static {
    /// Carries out one call.
    fn invoke(&self, call: ClusterCall, invocation: Invocation) -> BoxFuture<'_, RpcResult>;

    /// Background work this strategy needs (failback's retries), taken once by the owner of
    /// the reference and run until the token it passes is cancelled. `None` for most.
    fn background(&self) -> Option<BackgroundWork> {
        None
    }

    /// The reference is released: stop queued work.
    fn destroy(&self) {}
}

/// Makes the strategy of one reference: Java's `Cluster` extension, registered by name.
///
/// Stateless strategies hand out one shared instance; one with per-reference state (failback's
/// retry queue) makes a new one each time.
pub trait Cluster: Send + Sync + 'static {
    /// The strategy for the reference whose consumer URL is `url`.
    fn strategy(&self, url: &Url) -> Result<Arc<dyn ClusterStrategy>, RpcError>;
}

/// A [`Cluster`] handing out one shared, stateless strategy.
struct Shared(Arc<dyn ClusterStrategy>);

impl Cluster for Shared {
    fn strategy(&self, _url: &Url) -> Result<Arc<dyn ClusterStrategy>, RpcError> {
        Ok(self.0.clone())
    }
}

/// Makes a new [`Failback`] per reference, each with its own retry queue.
struct FailbackCluster;

impl Cluster for FailbackCluster {
    fn strategy(&self, url: &Url) -> Result<Arc<dyn ClusterStrategy>, RpcError> {
        Ok(Arc::new(Failback::from_url(url)))
    }
}

/// Makes a [`Mock`] around the reference's own strategy.
struct MockCluster;

impl Cluster for MockCluster {
    fn strategy(&self, url: &Url) -> Result<Arc<dyn ClusterStrategy>, RpcError> {
        Mock::from_url(url, Arc::new(Failover))
    }
}

/// Wraps `cluster`'s strategy in a [`Mock`] when the URL has a `mock` setting, Java's
/// `MockClusterWrapper`: the mock then applies whichever strategy the reference uses.
pub fn with_mock(
    url: &Url,
    strategy: Arc<dyn ClusterStrategy>,
) -> Result<Arc<dyn ClusterStrategy>, RpcError> {
    match MockSetting::from_url(url)? {
        Some(setting) => Ok(Arc::new(Mock::new(setting, strategy))),
        None => Ok(strategy),
    }
}

/// Registers the built-in strategies under Java Dubbo's names: `failover`, `failfast`,
/// `failsafe`, `failback`, `forking`, `broadcast`, `available` and `mock`.
pub fn register_strategies(extensions: &Extensions) {
    let shared = |s: Arc<dyn ClusterStrategy>| -> Arc<dyn Cluster> { Arc::new(Shared(s)) };
    extensions.register::<dyn Cluster>("failover", shared(Arc::new(Failover)));
    extensions.register::<dyn Cluster>("failfast", shared(Arc::new(Failfast)));
    extensions.register::<dyn Cluster>("failsafe", shared(Arc::new(Failsafe)));
    extensions.register::<dyn Cluster>("forking", shared(Arc::new(Forking)));
    extensions.register::<dyn Cluster>("broadcast", shared(Arc::new(Broadcast)));
    extensions.register::<dyn Cluster>("available", shared(Arc::new(Available)));
    extensions.register::<dyn Cluster>("failback", Arc::new(FailbackCluster));
    extensions.register::<dyn Cluster>("mock", Arc::new(MockCluster));
}
