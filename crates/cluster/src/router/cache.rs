//! Route results cached per provider snapshot.

use std::collections::HashMap;
use std::sync::Arc;

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
/// copy-on-write (rare: once per key and snapshot), read without a lock. It lives in the
/// chain's state next to the routers it is for, so that one load of that state serves both.
#[derive(Default)]
pub(crate) struct RouteCache {
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
        match &self.snapshot {
            Some(s) if Arc::ptr_eq(s, snapshot) => {
                if let Some((first, hit)) = &self.first {
                    if **first == *key {
                        return Lookup::Hit(Arc::clone(hit));
                    }
                }
                match self.entries.get(key) {
                    Some(hit) => Lookup::Hit(Arc::clone(hit)),
                    None => Lookup::Miss,
                }
            }
            _ if self
                .previous
                .as_ref()
                .is_some_and(|p| Arc::ptr_eq(p, snapshot)) =>
            {
                Lookup::Stale
            }
            _ => Lookup::NewSnapshot,
        }
    }

    /// The cache for `snapshot`, without any entry of an earlier one; `None` when this one is
    /// already for it.
    pub(crate) fn reset(&self, snapshot: &InvokerList) -> Option<RouteCache> {
        match &self.snapshot {
            Some(s) if Arc::ptr_eq(s, snapshot) => None,
            _ => Some(RouteCache {
                snapshot: Some(InvokerList::clone(snapshot)),
                previous: self.snapshot.clone(),
                first: None,
                entries: HashMap::new(),
            }),
        }
    }

    /// This cache with `outcome` stored for `snapshot` and `key`; `None` when it moved on to
    /// another snapshot, is full or has the key already.
    pub(crate) fn with(
        &self,
        snapshot: &InvokerList,
        key: &str,
        outcome: &Arc<Outcome>,
    ) -> Option<RouteCache> {
        let same = self
            .snapshot
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, snapshot));
        if !same || self.entries.len() >= MAX_ENTRIES || self.entries.contains_key(key) {
            return None;
        }
        let mut entries = self.entries.clone();
        entries.insert(key.to_owned(), Arc::clone(outcome));
        let first = match &self.first {
            Some(first) => Some(first.clone()),
            None => Some((Box::from(key), Arc::clone(outcome))),
        };
        Some(RouteCache {
            snapshot: self.snapshot.clone(),
            previous: self.previous.clone(),
            first,
            entries,
        })
    }
}
