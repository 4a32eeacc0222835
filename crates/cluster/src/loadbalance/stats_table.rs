//! The statistics and weights of a provider list, looked up once per list for balancers
//! that read in-flight counts or latencies of every provider.

use std::sync::Arc;

use dubbo_core::{CallStats, Invoker, StatsStore};

use super::weighted::WeightTable;

/// How long a table is reused before its statistics handles are looked up again (a
/// provider's statistics are dropped from the store when it goes away).
const TTL_MS: u64 = 1_000;

/// Per-method statistics handles and weights of one provider list, in list order.
#[derive(Debug)]
pub struct StatsTable {
    /// Each provider's counters for the method.
    pub stats: Vec<Arc<CallStats>>,
    /// Each provider's effective weight for the method.
    pub weights: Vec<u32>,
}

impl StatsTable {
    /// The table of `invokers` for `method` at `now_ms`, and until when it holds.
    pub fn build(
        store: &StatsStore,
        invokers: &[Arc<dyn Invoker>],
        method: &str,
        now_ms: u64,
    ) -> (Self, u64) {
        let (weights, weights_until) = WeightTable::build(invokers, method, now_ms);
        let stats = invokers
            .iter()
            .map(|inv| store.provider(inv.url()).method(method))
            .collect();
        (
            Self {
                stats,
                weights: weights.weights,
            },
            weights_until.min(now_ms.saturating_add(TTL_MS)),
        )
    }
}
