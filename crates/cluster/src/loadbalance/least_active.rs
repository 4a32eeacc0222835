//! `leastactive`: the provider with the fewest calls in flight.

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, LoadBalance, StatsStore};

use super::lazy_now::LazyNow;
use super::rng::SelectRng;
use super::snapshot::{ListCache, Providers};
use super::stats_table::StatsTable;
use super::weight::now_ms;
use super::weighted::pick_least;

/// Least active (Java's `LeastActiveLoadBalance`): the provider with the fewest calls of
/// this method in flight from this process, read from the framework's [`StatsStore`]; ties
/// are broken by weighted random. A slow provider accumulates in-flight calls and so gets
/// fewer new ones.
///
/// Every call reads every provider's counter once: O(providers), without allocating. The
/// counters' handles and the weights are looked up once per list (and each second).
#[derive(Debug)]
pub struct LeastActiveLoadBalance {
    store: Arc<StatsStore>,
    rng: SelectRng,
    tables: ListCache<StatsTable>,
}

impl LeastActiveLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "leastactive";

    /// A balancer reading in-flight counts from `store`.
    pub fn new(store: Arc<StatsStore>) -> Self {
        Self::with_rng(store, SelectRng::thread_local())
    }

    /// A balancer breaking ties with `rng` (seeded in tests).
    pub fn with_rng(store: Arc<StatsStore>, rng: SelectRng) -> Self {
        Self {
            store,
            rng,
            tables: ListCache::new(),
        }
    }
}

impl LeastActiveLoadBalance {
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
        let stats = &table.stats;
        let chosen = pick_least(
            stats.len(),
            |i| stats[i].active(),
            &table.weights,
            &self.rng,
        );
        invokers.get(chosen).cloned()
    }
}

impl LoadBalance for LeastActiveLoadBalance {
    super::select_through_pick!();
}
