//! `random`, the default: a provider drawn with probability proportional to its weight.

use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, LoadBalance};

use super::lazy_now::LazyNow;
use super::rng::SelectRng;
use super::snapshot::{ListCache, Providers};
use super::weight::may_be_weighted;
use super::weighted::WeightTable;

/// Weighted random selection (Java's `RandomLoadBalance`).
///
/// Weights come from the providers' URLs (`<method>.weight`, `weight`, default 100) with the
/// warm-up ramp. When the first provider sets neither a weight nor a start time, as in Java,
/// the draw is uniform without looking at the others. Otherwise the cumulative weight table
/// of the list is built once per list (and each second while a provider warms up) and a
/// draw is one binary search. Which of the two applies is also decided once per list.
#[derive(Debug, Default)]
pub struct RandomLoadBalance {
    rng: SelectRng,
    /// `None` for a list whose first provider sets neither a weight nor a start time.
    tables: ListCache<Option<WeightTable>>,
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

impl RandomLoadBalance {
    fn pick(&self, providers: Providers<'_>, invocation: &Invocation) -> Option<Arc<dyn Invoker>> {
        let invokers = providers.list;
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let method = invocation.method_name();
        let now = LazyNow::new();
        let build = |list: &[Arc<dyn Invoker>]| {
            // Java's shortcut, decided once per list: URLs do not change, and looking a
            // method parameter up costs more than the rest of a draw.
            if may_be_weighted(first.url(), method) {
                let (weights, until) = WeightTable::build(list, method, now.ms());
                (Some(weights), until)
            } else {
                (None, u64::MAX)
            }
        };
        let at =
            self.tables
                .read_or_build(providers, invocation, &now, build, |table| {
                    match &table.value {
                        Some(weights) => weights.pick(&self.rng),
                        None => self.rng.below(invokers.len()),
                    }
                });
        invokers.get(at).cloned()
    }
}

impl LoadBalance for RandomLoadBalance {
    super::select_through_pick!();
}
