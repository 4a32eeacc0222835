//! `leastactive`: the provider with the fewest calls in flight.

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, LoadBalance, StatsStore};

use super::rng::SelectRng;
use super::snapshot::ListCache;
use super::stats_table::StatsTable;
use super::weight::now_ms;
use super::weighted::pick_weighted_among;

/// Least active (Java's `LeastActiveLoadBalance`): the provider with the fewest calls of
/// this method in flight from this process, read from the framework's [`StatsStore`]; ties
/// are broken by weighted random. A slow provider accumulates in-flight calls and so gets
/// fewer new ones.
///
/// Every call reads every provider's counter: O(providers).
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

impl LoadBalance for LeastActiveLoadBalance {
    fn select(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
    ) -> Option<Arc<dyn Invoker>> {
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let method = invocation.method_name();
        let now = now_ms();
        let table = self.tables.get_or_build(invokers, invocation, now, |list| {
            StatsTable::build(&self.store, list, method, now)
        });
        let table = &table.value;
        let mut least = u32::MAX;
        let mut ties: Vec<usize> = Vec::new();
        for (i, s) in table.stats.iter().enumerate() {
            let active = s.active();
            if active < least {
                least = active;
                ties.clear();
                ties.push(i);
            } else if active == least {
                ties.push(i);
            }
        }
        let chosen = match ties.as_slice() {
            [only] => *only,
            _ => pick_weighted_among(&ties, &table.weights, &self.rng),
        };
        Some(invokers[chosen].clone())
    }
}
