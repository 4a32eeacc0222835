//! Per-list state cached between calls: what a balancer derives from a provider list
//! (weights, statistics handles, a hash ring) is built once and reused while the list stays
//! the same.
//!
//! A list is recognised by its *identity*: a hash of the provider invokers' addresses, in
//! order, as Java's `ConsistentHashLoadBalance` uses the list's identity hash code. Routers
//! hand the balancer a fresh `Vec` per call, so the identity looks at the elements, not at
//! the allocation. Entries are kept per service and method; readers take no lock (an
//! `ArcSwap` load), writers (a new list, an expired entry, a new method) swap in a new entry.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use arc_swap::{ArcSwap, ArcSwapOption};
use dubbo_core::{Invocation, Invoker, ServiceKey};

/// Most service-and-method keys one cache keeps; beyond, entries are built for the call and
/// not kept (generic calls may name any method).
const MAX_KEYS: usize = 4096;

/// The identity of a provider list: its elements' addresses and order.
pub fn list_identity(invokers: &[Arc<dyn Invoker>]) -> u64 {
    // Σ address × (odd multiplier depending on the position): one multiply and one add per
    // provider with no carried dependency but the add, so 1,000 providers take well under a
    // microsecond. Swapping two providers changes the sum (addresses differ by a multiple of
    // the allocation alignment, far below 2^59), and the length is mixed in as well.
    const STEP: u64 = 0x9E37_79B9_7F4A_7C15;
    let addr = |inv: &Arc<dyn Invoker>| Arc::as_ptr(inv) as *const () as usize as u64;
    // Four lanes, so the multiplies of neighbouring providers overlap.
    let mut lanes = [invokers.len() as u64, 0, 0, 0];
    let mut multiplier = STEP | 1;
    let mut chunks = invokers.chunks_exact(4);
    for chunk in &mut chunks {
        for (lane, inv) in lanes.iter_mut().zip(chunk) {
            *lane = lane.wrapping_add(addr(inv).wrapping_mul(multiplier));
            multiplier = multiplier.wrapping_add(STEP << 1);
        }
    }
    for inv in chunks.remainder() {
        lanes[0] = lanes[0].wrapping_add(addr(inv).wrapping_mul(multiplier));
        multiplier = multiplier.wrapping_add(STEP << 1);
    }
    let acc = lanes.iter().fold(0u64, |acc, &l| acc.wrapping_add(l));
    mix(acc)
}

fn mix(mut x: u64) -> u64 {
    // splitmix64's finaliser.
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// What was built from one provider list.
#[derive(Debug)]
pub struct Snapshot<T> {
    identity: u64,
    len: usize,
    /// Until when (ms since the epoch) the value holds; `u64::MAX` for as long as the list.
    valid_until_ms: u64,
    /// The derived state.
    pub value: T,
}

struct Slot<T> {
    service: ServiceKey,
    method: Arc<str>,
    current: ArcSwapOption<Snapshot<T>>,
}

/// A cache of per-list state, one entry per service and method.
pub struct ListCache<T> {
    slots: ArcSwap<HashMap<u64, Arc<Slot<T>>>>,
    writer: Mutex<()>,
}

impl<T> Default for ListCache<T> {
    fn default() -> Self {
        Self {
            slots: ArcSwap::from_pointee(HashMap::new()),
            writer: Mutex::new(()),
        }
    }
}

impl<T> std::fmt::Debug for ListCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListCache")
            .field("keys", &self.slots.load().len())
            .finish()
    }
}

impl<T: Send + Sync + 'static> ListCache<T> {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The state for `invokers` under the invocation's service and method: the cached one
    /// when it was built from the same list and has not expired at `now_ms`, else a new one
    /// from `build`, which returns the state and until when it holds.
    pub fn get_or_build(
        &self,
        invokers: &[Arc<dyn Invoker>],
        invocation: &Invocation,
        now_ms: u64,
        build: impl FnOnce(&[Arc<dyn Invoker>]) -> (T, u64),
    ) -> Arc<Snapshot<T>> {
        let identity = list_identity(invokers);
        let service = invocation.service();
        let method = invocation.method().name_arc();
        let key = key_hash(service, method);
        let slot = self.slots.load().get(&key).cloned();
        let slot = match slot {
            Some(s) if s.service == *service && s.method == *method => Some(s),
            Some(_) => None, // a hash collision between two keys: build, do not cache
            None => self.insert_slot(key, service, method),
        };
        if let Some(slot) = &slot {
            if let Some(snap) = slot.current.load_full() {
                if snap.identity == identity
                    && snap.len == invokers.len()
                    && now_ms < snap.valid_until_ms
                {
                    return snap;
                }
            }
        }
        let (value, valid_until_ms) = build(invokers);
        let snap = Arc::new(Snapshot {
            identity,
            len: invokers.len(),
            valid_until_ms,
            value,
        });
        if let Some(slot) = slot {
            slot.current.store(Some(snap.clone()));
        }
        snap
    }

    fn insert_slot(
        &self,
        key: u64,
        service: &ServiceKey,
        method: &Arc<str>,
    ) -> Option<Arc<Slot<T>>> {
        let _guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let slots = self.slots.load_full();
        if let Some(s) = slots.get(&key) {
            return (s.service == *service && s.method == *method).then(|| s.clone());
        }
        if slots.len() >= MAX_KEYS {
            return None;
        }
        let slot = Arc::new(Slot {
            service: service.clone(),
            method: method.clone(),
            current: ArcSwapOption::empty(),
        });
        let mut next = HashMap::clone(&slots);
        next.insert(key, slot.clone());
        self.slots.store(Arc::new(next));
        Some(slot)
    }
}

fn key_hash(service: &ServiceKey, method: &str) -> u64 {
    let mut h = DefaultHasher::new();
    service.hash(&mut h);
    method.hash(&mut h);
    h.finish()
}
