//! Route results cached per provider snapshot.

use std::collections::HashMap;
use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::InvokerList;

/// At most this many keys are cached per snapshot; beyond it, calls are routed uncached
/// (protection against keys made of unbounded attachment values).
pub(crate) const MAX_ENTRIES: usize = 1024;

/// What the cacheable routers at the head of a chain made of one snapshot for one key.
#[derive(Clone)]
pub(crate) struct Outcome {
    /// The providers left.
    pub(crate) invokers: InvokerList,
    /// The index of the router that emptied a non-empty list, if one did.
    pub(crate) emptied_by: Option<usize>,
}

/// The cache of one snapshot: replaced whole when the snapshot changes, grown by
/// copy-on-write (rare: once per key and snapshot), read without a lock.
#[derive(Default)]
struct Entries {
    /// The snapshot the entries are for; holding it keeps its address from being reused.
    snapshot: Option<InvokerList>,
    /// The snapshot before it: calls that started before the change still route it.
    previous: Option<InvokerList>,
    /// The first key cached for the snapshot and its result, also in `entries`: most
    /// references route every call under one key (no tag, no per-method rule), and comparing
    /// a few bytes is cheaper than hashing them on every call.
    first: Option<(Box<str>, Arc<Outcome>)>,
    entries: HashMap<String, Arc<Outcome>>,
}

/// Route results per (snapshot, key), for one set of routers.
#[derive(Default)]
pub(crate) struct RouteCache {
    current: ArcSwap<Entries>,
}

/// What [`RouteCache::lookup`] found.
pub(crate) enum Lookup {
    /// A result for this snapshot and key.
    Hit(Arc<Outcome>),
    /// Nothing for this key; the snapshot is the cached one.
    Miss,
    /// The snapshot is the one before the cached one (a call that started before the
    /// change): route it without the cache, and without telling the routers.
    Stale,
    /// The snapshot is not the cached one: routers must be told of it first.
    NewSnapshot,
}

impl RouteCache {
    pub(crate) fn lookup(&self, snapshot: &InvokerList, key: &str) -> Lookup {
        let current = self.current.load();
        match &current.snapshot {
            Some(s) if Arc::ptr_eq(s, snapshot) => {
                if let Some((first, hit)) = &current.first {
                    if **first == *key {
                        return Lookup::Hit(Arc::clone(hit));
                    }
                }
                match current.entries.get(key) {
                    Some(hit) => Lookup::Hit(Arc::clone(hit)),
                    None => Lookup::Miss,
                }
            }
            _ if current
                .previous
                .as_ref()
                .is_some_and(|p| Arc::ptr_eq(p, snapshot)) =>
            {
                Lookup::Stale
            }
            _ => Lookup::NewSnapshot,
        }
    }

    /// Starts caching for `snapshot`, dropping every entry of an earlier one.
    pub(crate) fn reset(&self, snapshot: &InvokerList) {
        self.current.rcu(|old| match &old.snapshot {
            Some(s) if Arc::ptr_eq(s, snapshot) => Arc::clone(old),
            _ => Arc::new(Entries {
                snapshot: Some(InvokerList::clone(snapshot)),
                previous: old.snapshot.clone(),
                first: None,
                entries: HashMap::new(),
            }),
        });
    }

    /// Stores `outcome` for `snapshot` and `key`, unless the cache moved on or is full.
    pub(crate) fn store(&self, snapshot: &InvokerList, key: &str, outcome: &Arc<Outcome>) {
        self.current.rcu(|old| {
            let same = old
                .snapshot
                .as_ref()
                .is_some_and(|s| Arc::ptr_eq(s, snapshot));
            if !same || old.entries.len() >= MAX_ENTRIES || old.entries.contains_key(key) {
                return Arc::clone(old);
            }
            let mut entries = old.entries.clone();
            entries.insert(key.to_owned(), Arc::clone(outcome));
            let first = match &old.first {
                Some(first) => Some(first.clone()),
                None => Some((Box::from(key), Arc::clone(outcome))),
            };
            Arc::new(Entries {
                snapshot: old.snapshot.clone(),
                previous: old.previous.clone(),
                first,
                entries,
            })
        });
    }
}
