//! The router chain: every router of a reference, in priority order.

use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::{Invocation, Invoker, InvokerList, Router};

/// The routers of one reference, applied in order to the directory's snapshot.
///
/// The set of routers is swapped atomically when rules change; the call path only loads it.
#[derive(Default)]
pub struct RouterChain {
    routers: ArcSwap<Vec<Arc<dyn Router>>>,
}

impl RouterChain {
    /// A chain with no routers: every provider passes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces the routers.
    pub fn set_routers(&self, routers: Vec<Arc<dyn Router>>) {
        self.routers.store(Arc::new(routers));
    }

    /// The providers of `invokers` that `invocation` may go to.
    pub fn route(&self, invokers: &InvokerList, invocation: &Invocation) -> InvokerList {
        let routers = self.routers.load();
        if routers.is_empty() {
            return InvokerList::clone(invokers);
        }
        let mut current: Vec<Arc<dyn Invoker>> = invokers.to_vec();
        for r in routers.iter() {
            current = r.route(&current, invocation);
        }
        current.into()
    }
}

impl std::fmt::Debug for RouterChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouterChain")
            .field("routers", &self.routers.load().len())
            .finish()
    }
}
