//! `roundrobin`: smooth weighted round robin, the nginx algorithm Java Dubbo uses.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use dubbo_core::{Invocation, Invoker, LoadBalance, StatsStore};

use super::snapshot::{addr, same_addrs, MethodSlots, Providers};
use super::weight::{now_ms, weight_at};

/// How long a provider's counter outlives its last appearance in a list (Java: 60 s).
const RECYCLE_MS: u64 = 60_000;
/// How long the weights of a list are used before they are read again (warm-up ramps them).
const WEIGHTS_TTL_MS: u64 = 1_000;

/// A counter kept for a provider that left the list, until it comes back or is recycled.
#[derive(Debug)]
struct Parked {
    weight: i64,
    current: i64,
    left_ms: u64,
}

/// The counters of one service and method, laid out in the order of the list they last
/// served so a call is a pass over two arrays.
#[derive(Debug, Default)]
struct Wheel {
    /// The allocation of the list last served; a `Weak` keeps the address from being taken by another list (see `snapshot`).
    list: Option<Weak<[Arc<dyn Invoker>]>>,
    /// Its providers; `Weak` for the same reason, without keeping them alive.
    _members: Vec<Weak<dyn Invoker>>,
    /// Their addresses, for comparing lists.
    addrs: Vec<usize>,
    /// Their identities, under which a counter is kept when its provider leaves the list.
    identities: Vec<String>,
    weights: Vec<i64>,
    current: Vec<i64>,
    total: i64,
    /// When the weights are read again.
    weights_until_ms: u64,
    parked: HashMap<String, Parked>,
}

impl Wheel {
    /// Whether the counters are laid out for `providers`; a new allocation of the same
    /// providers is remembered, so its next calls take the pointer comparison.
    fn serves(&mut self, providers: Providers<'_>) -> bool {
        if let Some(list) = &self.list {
            if std::ptr::addr_eq(list.as_ptr(), Arc::as_ptr(providers.shared)) {
                return true;
            }
        }
        if !same_addrs(&self.addrs, providers.list) {
            return false;
        }
        self.list = Some(Arc::downgrade(providers.shared));
        true
    }

    /// Lays the counters out for `providers`: survivors keep theirs (by identity), newcomers
    /// and providers whose weight changed start from 0, as in Java.
    fn rebuild(&mut self, providers: Providers<'_>, method: &str, now: u64) {
        let list = providers.list;
        if !self.serves(providers) {
            for (i, identity) in self.identities.drain(..).enumerate() {
                let parked = Parked {
                    weight: self.weights.get(i).copied().unwrap_or(0),
                    current: self.current.get(i).copied().unwrap_or(0),
                    left_ms: now,
                };
                self.parked.insert(identity, parked);
            }
            self._members = list.iter().map(Arc::downgrade).collect();
            self.addrs = list.iter().map(addr).collect();
            self.identities = list.iter().map(|p| StatsStore::identity(p.url())).collect();
            self.current.clear();
            self.weights.clear();
            for identity in &self.identities {
                let (weight, current) = self
                    .parked
                    .remove(identity)
                    .map_or((0, 0), |p| (p.weight, p.current));
                self.weights.push(weight);
                self.current.push(current);
            }
            self.parked
                .retain(|_, p| now.saturating_sub(p.left_ms) <= RECYCLE_MS);
            self.list = Some(Arc::downgrade(providers.shared));
        }
        for (i, p) in list.iter().enumerate() {
            let weight = i64::from(weight_at(p.url(), method, now));
            if self.weights[i] != weight {
                self.weights[i] = weight;
                self.current[i] = 0;
            }
        }
        self.total = self.weights.iter().sum();
        self.weights_until_ms = now.saturating_add(WEIGHTS_TTL_MS);
    }

    /// One step of smooth weighted round robin: every counter grows by its weight, the
    /// first largest wins and drops by the total.
    fn step(&mut self) -> usize {
        // Separate passes over plain arrays, so the compiler can vectorise the first two.
        for (c, w) in self.current.iter_mut().zip(&self.weights) {
            *c += w;
        }
        let Some(&max) = self.current.iter().max() else {
            return 0;
        };
        let best = self.current.iter().position(|&c| c == max).unwrap_or(0);
        self.current[best] -= self.total;
        best
    }
}

/// Smooth weighted round robin (Java's `RoundRobinLoadBalance`).
///
/// Every provider of a service and method has a counter. On each call every counter grows
/// by its provider's weight, the largest wins and drops by the sum of the weights. Weights
/// 5, 1, 1 give `a a b a c a a`: the heavy provider's turns are spread out rather than
/// bunched. Counters are kept per service and method; one whose provider has not been in a
/// list for 60 s is dropped, and a changed weight restarts its provider's counter.
///
/// The counters of a service and method sit in two plain arrays in list order behind one
/// lock: a call is one uncontended lock and a vectorised pass over the list, instead of an
/// atomic addition per provider. Concurrent calls take turns, so each sees a whole step of
/// the sequence. The counters are laid out again when the list changes, and the weights
/// read again each second.
#[derive(Debug, Default)]
pub struct RoundRobinLoadBalance {
    wheels: MethodSlots<Mutex<Wheel>>,
}

impl RoundRobinLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "roundrobin";

    /// A balancer with no counters yet.
    pub fn new() -> Self {
        Self::default()
    }

    fn pick(&self, providers: Providers<'_>, invocation: &Invocation) -> Option<Arc<dyn Invoker>> {
        let invokers = providers.list;
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let now = now_ms();
        let method = invocation.method_name();
        let chosen = self.wheels.with(invocation, |slot| {
            let Some(slot) = slot else {
                // No room to keep counters for this method: a step from scratch, as for a
                // method called for the first time.
                let mut wheel = Wheel::default();
                wheel.rebuild(providers, method, now);
                return wheel.step();
            };
            let mut wheel = slot.lock().unwrap_or_else(|e| e.into_inner());
            if now >= wheel.weights_until_ms || !wheel.serves(providers) {
                wheel.rebuild(providers, method, now);
            }
            wheel.step()
        });
        invokers.get(chosen).cloned()
    }
}

impl LoadBalance for RoundRobinLoadBalance {
    super::select_through_pick!();
}
