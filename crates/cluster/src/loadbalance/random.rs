//! `random`, the default: a provider drawn with probability proportional to its weight.

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, LoadBalance};

use super::rng::SelectRng;
use super::snapshot::ListCache;
use super::weight::{may_be_weighted, now_ms};
use super::weighted::WeightTable;

/// Weighted random selection (Java's `RandomLoadBalance`).
///
/// Weights come from the providers' URLs (`<method>.weight`, `weight`, default 100) with the
/// warm-up ramp. When the first provider sets neither a weight nor a start time, as in Java,
/// the draw is uniform without looking at the others. Otherwise the cumulative weight table
/// of the list is built once per list (and each second while a provider warms up) and a
/// draw is one binary search.
#[derive(Debug, Default)]
pub struct RandomLoadBalance {
    rng: SelectRng,
    tables: ListCache<WeightTable>,
}

impl RandomLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "random";

    /// A balancer drawing from per-thread randomness.
    pub fn new() -> Self {
        Self::default()
    }

    /// A balancer drawing from `rng` (seeded in tests).
    pub fn with_rng(rng: SelectRng) -> Self {
        Self {
            rng,
            tables: ListCache::new(),
        }
    }
}

impl LoadBalance for RandomLoadBalance {
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
        if !may_be_weighted(first.url(), method) {
            return Some(invokers[self.rng.below(invokers.len())].clone());
        }
        let now = now_ms();
        let table = self.tables.get_or_build(invokers, invocation, now, |list| {
            WeightTable::build(list, method, now)
        });
        Some(invokers[table.value.pick(&self.rng)].clone())
    }
}
