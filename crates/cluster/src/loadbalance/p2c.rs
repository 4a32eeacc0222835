//! `p2c`: power of two choices by in-flight calls.

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, LoadBalance, StatsStore};

use super::lazy_now::LazyNow;
use super::rng::SelectRng;
use super::snapshot::{ListCache, Providers};
use super::stats_table::StatsTable;
use super::weight::now_ms;
use super::weighted::pick_weighted_among;

/// Power of two choices (the `p2c` of Dubbo's flexible-service proposal): two different
/// providers are drawn at random and the one with fewer calls of this method in flight
/// (from the framework's [`StatsStore`]) takes the call; on a tie, one of the two by weight.
///
/// It looks at two providers whatever the list's size, so a call is O(1), and it avoids the
/// herd effect of always sending to the single least loaded provider. The providers'
/// statistics handles and weights are looked up once per list (and each second), so a call
/// formats no identity and searches no map.
#[derive(Debug)]
pub struct P2cLoadBalance {
    store: Arc<StatsStore>,
    rng: SelectRng,
    tables: ListCache<StatsTable>,
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
        Self {
            store,
            rng,
            tables: ListCache::new(),
        }
    }

    fn pick(&self, providers: Providers<'_>, invocation: &Invocation) -> Option<Arc<dyn Invoker>> {
        let invokers = providers.list;
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let method = invocation.method_name();
        let now = now_ms();
        let table = self
            .tables
            .get_or_build(providers, invocation, &LazyNow::at(now), |list| {
                StatsTable::build(&self.store, list, method, now)
            });
        let table = &table.value;
        let (a, b) = self.rng.two_distinct(invokers.len());
        let active = |i: usize| table.stats.get(i).map_or(0, |s| s.active());
        let chosen = match active(a).cmp(&active(b)) {
            std::cmp::Ordering::Less => a,
            std::cmp::Ordering::Greater => b,
            std::cmp::Ordering::Equal => {
                let weight = |i: usize| table.weights.get(i).copied().unwrap_or(0);
                [a, b][pick_weighted_among(&[0, 1], &[weight(a), weight(b)], &self.rng)]
            }
        };
        invokers.get(chosen).cloned()
    }
}

impl LoadBalance for P2cLoadBalance {
    super::select_through_pick!();
}
