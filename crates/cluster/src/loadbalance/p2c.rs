//! `p2c`: power of two choices by in-flight calls.

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, LoadBalance, StatsStore};

use super::rng::SelectRng;
use super::weight::{now_ms, weight_at};
use super::weighted::pick_weighted_among;

/// Power of two choices (the `p2c` of Dubbo's flexible-service proposal): two different
/// providers are drawn at random and the one with fewer calls of this method in flight
/// (from the framework's [`StatsStore`]) takes the call; on a tie, one of the two by weight.
///
/// It looks at two providers whatever the list's size, so a call is O(1), and it avoids the
/// herd effect of always sending to the single least loaded provider.
#[derive(Debug)]
pub struct P2cLoadBalance {
    store: Arc<StatsStore>,
    rng: SelectRng,
}

impl P2cLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "p2c";

    /// A balancer reading in-flight counts from `store`.
    pub fn new(store: Arc<StatsStore>) -> Self {
        Self::with_rng(store, SelectRng::thread_local())
    }

    /// A balancer drawing from `rng` (seeded in tests).
    pub fn with_rng(store: Arc<StatsStore>, rng: SelectRng) -> Self {
        Self { store, rng }
    }

    fn active(&self, invoker: &dyn Invoker, method: &str) -> u32 {
        self.store
            .get(invoker.url())
            .and_then(|p| p.get_method(method))
            .map_or(0, |s| s.active())
    }
}

impl LoadBalance for P2cLoadBalance {
    fn select(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
    ) -> Option<Arc<dyn Invoker>> {
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let (a, b) = self.rng.two_distinct(invokers.len());
        let method = invocation.method_name();
        let active_a = self.active(invokers[a].as_ref(), method);
        let active_b = self.active(invokers[b].as_ref(), method);
        let chosen = match active_a.cmp(&active_b) {
            std::cmp::Ordering::Less => a,
            std::cmp::Ordering::Greater => b,
            std::cmp::Ordering::Equal => {
                let now = now_ms();
                let weights = [
                    weight_at(invokers[a].url(), method, now),
                    weight_at(invokers[b].url(), method, now),
                ];
                [a, b][pick_weighted_among(&[0, 1], &weights, &self.rng)]
            }
        };
        Some(invokers[chosen].clone())
    }
}
