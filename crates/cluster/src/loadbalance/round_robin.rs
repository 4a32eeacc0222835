//! `roundrobin`: smooth weighted round robin, the nginx algorithm Java Dubbo uses.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use dubbo_core::{Invocation, Invoker, LoadBalance, ServiceKey, StatsStore};

use super::snapshot::ListCache;
use super::weight::{now_ms, weight_at};

/// How long a provider's counter outlives its last appearance in a list (Java: 60 s).
const RECYCLE_MS: u64 = 60_000;
/// How long a list's table is reused before the weights and counters are looked up again.
const TABLE_TTL_MS: u64 = 1_000;

/// One provider's running counter for one service and method.
#[derive(Debug, Default)]
struct Counter {
    weight: AtomicI64,
    current: AtomicI64,
    last_seen_ms: AtomicU64,
}

/// A list's counters and weights, in list order.
#[derive(Debug)]
struct Table {
    counters: Vec<Arc<Counter>>,
    weights: Vec<i64>,
    total: i64,
}

type Counters = HashMap<String, Arc<Counter>>;

/// Smooth weighted round robin (Java's `RoundRobinLoadBalance`).
///
/// Every provider of a service and method has a counter. On each call every counter grows
/// by its provider's weight, the largest wins and drops by the sum of the weights. Weights
/// 5, 1, 1 give `a a b a c a a`: the heavy provider's turns are spread out rather than
/// bunched. Counters are kept per service and method; one whose provider has not been in a
/// list for 60 s is dropped, and a changed weight restarts its provider's counter.
///
/// A call adds to each provider's counter, so it costs O(providers) atomic additions; the
/// counters are found once per list (and each second), not per call.
#[derive(Debug, Default)]
pub struct RoundRobinLoadBalance {
    counters: Mutex<HashMap<(ServiceKey, Arc<str>), Counters>>,
    tables: ListCache<Table>,
}

impl RoundRobinLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "roundrobin";

    /// A balancer with no counters yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn build(&self, invokers: &[Arc<dyn Invoker>], invocation: &Invocation, now: u64) -> Table {
        let method = invocation.method_name();
        let mut all = self.counters.lock().unwrap_or_else(|e| e.into_inner());
        let counters = all
            .entry((
                invocation.service().clone(),
                invocation.method().name_arc().clone(),
            ))
            .or_default();
        let mut table = Table {
            counters: Vec::with_capacity(invokers.len()),
            weights: Vec::with_capacity(invokers.len()),
            total: 0,
        };
        for inv in invokers {
            let weight = i64::from(weight_at(inv.url(), method, now));
            let counter = counters
                .entry(StatsStore::identity(inv.url()))
                .or_insert_with(|| {
                    let c = Counter::default();
                    c.weight.store(weight, Ordering::Relaxed);
                    Arc::new(c)
                })
                .clone();
            if counter.weight.swap(weight, Ordering::Relaxed) != weight {
                counter.current.store(0, Ordering::Relaxed);
            }
            counter.last_seen_ms.store(now, Ordering::Relaxed);
            table.total += weight;
            table.weights.push(weight);
            table.counters.push(counter);
        }
        if counters.len() != invokers.len() {
            counters.retain(|_, c| {
                now.saturating_sub(c.last_seen_ms.load(Ordering::Relaxed)) <= RECYCLE_MS
            });
        }
        table
    }
}

impl LoadBalance for RoundRobinLoadBalance {
    fn select(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
    ) -> Option<Arc<dyn Invoker>> {
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let now = now_ms();
        let table = self.tables.get_or_build(invokers, invocation, now, |list| {
            (self.build(list, invocation, now), now + TABLE_TTL_MS)
        });
        let table = &table.value;
        let mut best = 0;
        let mut max = i64::MIN;
        for (i, (counter, &w)) in table.counters.iter().zip(&table.weights).enumerate() {
            let current = counter.current.fetch_add(w, Ordering::Relaxed) + w;
            if current > max {
                max = current;
                best = i;
            }
        }
        table.counters[best]
            .current
            .fetch_sub(table.total, Ordering::Relaxed);
        Some(invokers[best].clone())
    }
}
