//! Per-list state cached between calls: what a balancer derives from a provider list
//! (weights, statistics handles, a hash ring) is built once and reused while the list stays
//! the same.
//!
//! The list a balancer gets is an [`InvokerList`] (usually the cluster's routed list, the
//! same `Arc` for as long as the directory's snapshot and the route result last), recognised by its
//! allocation: one pointer comparison. The entry keeps a `Weak` to that allocation, which
//! holds its memory (not the providers) so no other list can take its address while the
//! entry lives; an equal pointer therefore means the very same, immutable list.
//!
//! Any other list (a new snapshot, the untried providers of a reselection) is compared with the entry's members,
//! pointer by pointer: O(n) but exact, since the entry keeps a `Weak` to each member for
//! the same reason. A match rebinds the entry to the new allocation, so the next call takes
//! the pointer path again; the state is not rebuilt when a new snapshot holds the same
//! providers.
//!
//! Entries are kept per service and method, a few lists each (calls of one method routed
//! by different tags see different lists); readers take no lock (`ArcSwap` loads), writers
//! (a new list, an expired entry, a new method) swap in a new set.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::sync::{Arc, Mutex, Weak};

use arc_swap::ArcSwap;
use dubbo_core::{Invocation, Invoker, InvokerList, ServiceKey};

use super::lazy_now::LazyNow;

/// Most service-and-method keys one cache keeps; beyond, entries are built for the call and
/// not kept (generic calls may name any method).
const MAX_KEYS: usize = 4096;
/// Most lists kept per service and method: enough for the few tags or zones one method's
/// calls are routed by, small enough that a scan of the pointers is a few comparisons.
const LISTS_PER_KEY: usize = 4;

/// The providers a balancer is asked to choose among: the caller's shared list, and the
/// same providers as a slice.
#[derive(Clone, Copy)]
pub struct Providers<'a> {
    /// The providers, in order.
    pub list: &'a [Arc<dyn Invoker>],
    /// The same providers as the caller's `Arc`, recognised by its allocation.
    pub shared: &'a InvokerList,
}

impl<'a> Providers<'a> {
    /// The providers of `list`.
    pub fn shared(list: &'a InvokerList) -> Self {
        Self { list, shared: list }
    }
}

/// What was built from one provider list.
#[derive(Debug)]
pub struct Snapshot<T> {
    /// The providers it was built from; `Weak` so the entry does not keep providers alive
    /// after the directory dropped them, while their addresses stay unique.
    _members: Box<[Weak<dyn Invoker>]>,
    /// Their addresses, compared without going through each `Weak`'s vtable.
    addrs: Box<[usize]>,
    /// Until when (ms since the epoch) the value holds; `u64::MAX` for as long as the list.
    valid_until_ms: u64,
    /// The derived state.
    pub value: T,
}

impl<T> Snapshot<T> {
    fn same_members(&self, list: &[Arc<dyn Invoker>]) -> bool {
        same_addrs(&self.addrs, list)
    }
}

/// A snapshot and the allocation it was last matched with.
struct Bound<T> {
    list: Option<Weak<[Arc<dyn Invoker>]>>,
    snapshot: Arc<Snapshot<T>>,
}

impl<T> Clone for Bound<T> {
    fn clone(&self) -> Self {
        Self {
            list: self.list.clone(),
            snapshot: self.snapshot.clone(),
        }
    }
}

impl<T> Bound<T> {
    fn is(&self, shared: &InvokerList) -> bool {
        self.list
            .as_ref()
            .is_some_and(|w| std::ptr::addr_eq(w.as_ptr(), Arc::as_ptr(shared)))
    }
}

struct Slot<T> {
    /// Most recently built or matched first.
    lists: ArcSwap<Vec<Bound<T>>>,
    writer: Mutex<()>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self {
            lists: ArcSwap::from_pointee(Vec::new()),
            writer: Mutex::new(()),
        }
    }
}

/// The slots' keys are already hashes: the map uses them as they are.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// One value per service and method.
pub struct Keyed<V> {
    service: ServiceKey,
    method: Arc<str>,
    /// The value.
    pub value: V,
}

type Slots<V> = HashMap<u64, Arc<Keyed<V>>, BuildHasherDefault<PassThrough>>;

/// Values per service and method, created on first use; readers take no lock.
pub struct MethodSlots<V> {
    slots: ArcSwap<Slots<V>>,
    writer: Mutex<()>,
}

impl<V> Default for MethodSlots<V> {
    fn default() -> Self {
        Self {
            slots: ArcSwap::from_pointee(Slots::default()),
            writer: Mutex::new(()),
        }
    }
}

impl<V> std::fmt::Debug for MethodSlots<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MethodSlots")
            .field("keys", &self.slots.load().len())
            .finish()
    }
}

impl<V: Default> MethodSlots<V> {
    /// Runs `f` on the value of the invocation's service and method, created on first use;
    /// on `None` when the table is full or another key has the same hash (the caller then
    /// works without). The common case borrows the value from the map, with no reference
    /// count touched.
    pub fn with<R>(&self, invocation: &Invocation, f: impl FnOnce(Option<&V>) -> R) -> R {
        let service = invocation.service();
        let method = invocation.method().name_arc();
        let key = key_hash(service, method);
        {
            let slots = self.slots.load();
            match slots.get(&key) {
                Some(s) if s.service == *service && s.method == *method => {
                    return f(Some(&s.value))
                }
                Some(_) => return f(None),
                None => {}
            }
        }
        let slot = self.insert(key, service, method);
        f(slot.as_deref().map(|s| &s.value))
    }

    fn insert(&self, key: u64, service: &ServiceKey, method: &Arc<str>) -> Option<Arc<Keyed<V>>> {
        let _guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let slots = self.slots.load_full();
        if let Some(s) = slots.get(&key) {
            return (s.service == *service && s.method == *method).then(|| s.clone());
        }
        if slots.len() >= MAX_KEYS {
            return None;
        }
        let slot = Arc::new(Keyed {
            service: service.clone(),
            method: method.clone(),
            value: V::default(),
        });
        let mut next = Slots::clone(&slots);
        next.insert(key, slot.clone());
        self.slots.store(Arc::new(next));
        Some(slot)
    }
}

/// A cache of per-list state, a few lists per service and method.
pub struct ListCache<T> {
    slots: MethodSlots<Slot<T>>,
}

impl<T> Default for ListCache<T> {
    fn default() -> Self {
        Self {
            slots: MethodSlots::default(),
        }
    }
}

impl<T> std::fmt::Debug for ListCache<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.slots.fmt(f)
    }
}

impl<T: Send + Sync + 'static> ListCache<T> {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The state for `providers` under the invocation's service and method: the cached one
    /// when it was built from the same providers and has not expired at `now`, else a new
    /// one from `build`, which returns the state and until when it holds. The clock is read
    /// only for state that can expire.
    pub fn get_or_build(
        &self,
        providers: Providers<'_>,
        invocation: &Invocation,
        now: &LazyNow,
        build: impl FnOnce(&[Arc<dyn Invoker>]) -> (T, u64),
    ) -> Arc<Snapshot<T>> {
        self.read_or_build(providers, invocation, now, build, Arc::clone)
    }

    /// As [`get_or_build`](Self::get_or_build), handing the state to `read` instead of
    /// returning a counted reference: the cached case then borrows it and touches no
    /// reference count (two atomic operations a call that a random pick among a few
    /// providers would otherwise spend).
    pub fn read_or_build<R>(
        &self,
        providers: Providers<'_>,
        invocation: &Invocation,
        now: &LazyNow,
        build: impl FnOnce(&[Arc<dyn Invoker>]) -> (T, u64),
        read: impl FnOnce(&Arc<Snapshot<T>>) -> R,
    ) -> R {
        self.slots.with(invocation, |slot| {
            let Some(slot) = slot else {
                return read(&Arc::new(new_snapshot(providers.list, build)));
            };
            let lists = slot.lists.load();
            if let Some(b) = lists.iter().find(|b| b.is(providers.shared)) {
                if now.before(b.snapshot.valid_until_ms) {
                    return read(&b.snapshot);
                }
            }
            read(&slot.match_or_build(providers, now, build))
        })
    }
}

impl<T> Slot<T> {
    /// The slow path: compare members, else build; either way the list goes first.
    fn match_or_build(
        &self,
        providers: Providers<'_>,
        now: &LazyNow,
        build: impl FnOnce(&[Arc<dyn Invoker>]) -> (T, u64),
    ) -> Arc<Snapshot<T>> {
        let lists = self.lists.load_full();
        let found = lists.iter().position(|b| {
            now.before(b.snapshot.valid_until_ms) && b.snapshot.same_members(providers.list)
        });
        let snapshot = match found {
            Some(at) => lists[at].snapshot.clone(),
            None => Arc::new(new_snapshot(providers.list, build)),
        };
        let bound = Bound {
            list: Some(Arc::downgrade(providers.shared)),
            snapshot: snapshot.clone(),
        };
        let _guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let current = self.lists.load_full();
        let mut next = Vec::with_capacity(LISTS_PER_KEY);
        next.push(bound);
        // Drop what the new entry replaces: an older build of the same members, the same
        // allocation, or one that is gone. Another live allocation of the same members stays
        // bound (two route keys may each hold such a list), sharing the state.
        let replaced = |b: &Bound<T>| {
            if b.snapshot.addrs != snapshot.addrs {
                return false;
            }
            let other_live = b
                .list
                .as_ref()
                .is_some_and(|w| w.strong_count() > 0 && !b.is(providers.shared));
            !(other_live && Arc::ptr_eq(&b.snapshot, &snapshot))
        };
        next.extend(
            current
                .iter()
                .filter(|b| !replaced(b))
                .take(LISTS_PER_KEY - 1)
                .cloned(),
        );
        self.lists.store(Arc::new(next));
        snapshot
    }
}

/// Whether `list` holds the providers at `addrs`, in order.
pub fn same_addrs(addrs: &[usize], list: &[Arc<dyn Invoker>]) -> bool {
    // No early exit: the differences are or-ed together, which the compiler vectorises;
    // lists compared here are nearly always equal anyway.
    addrs.len() == list.len()
        && addrs
            .iter()
            .zip(list)
            .fold(0, |diff, (&a, l)| diff | (a ^ addr(l)))
            == 0
}

/// A provider's address, its identity while a `Weak` or an `Arc` to it is held.
pub fn addr(invoker: &Arc<dyn Invoker>) -> usize {
    Arc::as_ptr(invoker) as *const () as usize
}

fn new_snapshot<T>(
    list: &[Arc<dyn Invoker>],
    build: impl FnOnce(&[Arc<dyn Invoker>]) -> (T, u64),
) -> Snapshot<T> {
    let (value, valid_until_ms) = build(list);
    Snapshot {
        _members: list.iter().map(Arc::downgrade).collect(),
        addrs: list.iter().map(addr).collect(),
        valid_until_ms,
        value,
    }
}

/// FxHash's step: the key is hashed on every call, and SipHash of a service key and a
/// method name costs more than the rest of a cached selection.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        // splitmix64's finaliser spreads the bits the map's buckets are taken from.
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        x ^ (x >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517C_C1B7_2722_0A95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
}

fn key_hash(service: &ServiceKey, method: &str) -> u64 {
    let mut h = KeyHasher::default();
    service.hash(&mut h);
    method.hash(&mut h);
    h.finish()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::atomic::{AtomicUsize, Ordering};

    use dubbo_core::{invoker_fn, MethodSignature, RpcResponse, Value};
    use dubbo_url::Url;

    use super::*;

    fn provider(port: u16) -> Arc<dyn Invoker> {
        let url = Url::parse(&format!("dubbo://10.0.0.1:{port}/a.Greeter")).unwrap();
        Arc::new(invoker_fn(url, |_inv| async {
            Ok(RpcResponse::new(Value::Null))
        }))
    }

    fn call(method: &str) -> Invocation {
        Invocation::new(
            ServiceKey::interface_only("a.Greeter"),
            Arc::new(MethodSignature::new::<&str>(method, &[], "void")),
            vec![],
        )
    }

    /// A cache whose state is the number of the build that made it.
    struct Counted {
        cache: ListCache<usize>,
        builds: AtomicUsize,
    }

    impl Counted {
        fn new() -> Self {
            Self {
                cache: ListCache::new(),
                builds: AtomicUsize::new(0),
            }
        }

        fn get(&self, providers: Providers<'_>, inv: &Invocation, now: u64) -> usize {
            self.cache
                .get_or_build(providers, inv, &LazyNow::at(now), |_| {
                    (self.builds.fetch_add(1, Ordering::Relaxed) + 1, now + 1_000)
                })
                .value
        }

        fn builds(&self) -> usize {
            self.builds.load(Ordering::Relaxed)
        }
    }

    #[test]
    fn a_list_is_built_once_and_recognised_by_allocation_or_members() {
        let c = Counted::new();
        let inv = call("hello");
        let providers: Vec<_> = (1..=3).map(provider).collect();
        let list: InvokerList = providers.clone().into();
        assert_eq!(c.get(Providers::shared(&list), &inv, 0), 1);
        assert_eq!(c.get(Providers::shared(&list), &inv, 1), 1);
        // The same providers in a new snapshot: the same state, bound to the new list.
        let renewed: InvokerList = providers.clone().into();
        assert_eq!(c.get(Providers::shared(&renewed), &inv, 2), 1);
        assert_eq!(c.get(Providers::shared(&renewed), &inv, 3), 1);
        assert_eq!(c.builds(), 1);
        // Another method has its own state.
        assert_eq!(c.get(Providers::shared(&list), &call("bye"), 4), 2);
        // Expired: built again.
        assert_eq!(c.get(Providers::shared(&list), &inv, 1_000), 3);
        assert_eq!(c.builds(), 3);
    }

    #[test]
    fn a_changed_list_is_built_again_even_at_a_reused_address() {
        let c = Counted::new();
        let inv = call("hello");
        let a: InvokerList = (1..=3).map(provider).collect::<Vec<_>>().into();
        assert_eq!(c.get(Providers::shared(&a), &inv, 0), 1);
        drop(a);
        // Same length, other providers: whatever address the allocator gives it, it is
        // another list.
        let b: InvokerList = (4..=6).map(provider).collect::<Vec<_>>().into();
        assert_eq!(c.get(Providers::shared(&b), &inv, 0), 2);
        // One provider replaced in place.
        let mut members = b.to_vec();
        members[1] = provider(7);
        let c2: InvokerList = members.into();
        assert_eq!(c.get(Providers::shared(&c2), &inv, 0), 3);
        assert_eq!(c.get(Providers::shared(&b), &inv, 0), 2, "still cached");
    }

    #[test]
    fn lists_of_one_method_routed_apart_are_all_kept() {
        let c = Counted::new();
        let inv = call("hello");
        let lists: Vec<InvokerList> = (0..LISTS_PER_KEY as u16)
            .map(|i| vec![provider(10 * i + 1), provider(10 * i + 2)].into())
            .collect();
        for (i, l) in lists.iter().enumerate() {
            assert_eq!(c.get(Providers::shared(l), &inv, 0), i + 1);
        }
        for _ in 0..3 {
            for (i, l) in lists.iter().enumerate() {
                assert_eq!(c.get(Providers::shared(l), &inv, 0), i + 1);
            }
        }
        assert_eq!(c.builds(), LISTS_PER_KEY);
        // One more pushes the least recent out.
        let extra: InvokerList = vec![provider(99), provider(98)].into();
        c.get(Providers::shared(&extra), &inv, 0);
        assert_eq!(
            c.get(Providers::shared(&lists[0]), &inv, 0),
            LISTS_PER_KEY + 2
        );
    }

    #[test]
    fn two_live_lists_of_the_same_providers_share_one_state() {
        let c = Counted::new();
        let inv = call("hello");
        let providers: Vec<_> = (1..=3).map(provider).collect();
        let a: InvokerList = providers.clone().into();
        let b: InvokerList = providers.into();
        for _ in 0..3 {
            assert_eq!(c.get(Providers::shared(&a), &inv, 0), 1);
            assert_eq!(c.get(Providers::shared(&b), &inv, 0), 1);
        }
        let slot_lists = c
            .cache
            .slots
            .with(&inv, |s| s.map(|s| s.lists.load().len()));
        assert_eq!(slot_lists, Some(2), "both allocations bound");
        assert_eq!(c.builds(), 1);
    }

    #[test]
    fn the_cache_keeps_no_provider_alive() {
        let c = Counted::new();
        let inv = call("hello");
        let p = provider(1);
        let list: InvokerList = vec![p.clone(), provider(2)].into();
        c.get(Providers::shared(&list), &inv, 0);
        assert_eq!(Arc::strong_count(&p), 2, "this handle and the list's");
        drop(list);
        assert_eq!(Arc::strong_count(&p), 1);
    }
}
