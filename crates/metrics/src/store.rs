//! The metrics of every key seen by one framework, looked up without locks.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use arc_swap::ArcSwap;

use crate::clock::Clock;
use crate::key::{KeyRef, MetricKey};
use crate::method_metrics::MethodMetrics;
use crate::window::WindowConfig;
use crate::MetricsError;

/// How many keys a store keeps unless told otherwise. Generic calls can name any method, so
/// the number of keys is capped; calls of keys beyond it are counted in
/// [`MetricsStore::dropped`] only.
pub const DEFAULT_MAX_KEYS: usize = 10_000;

/// How many distinct method names one service (side, application, interface, group, version)
/// keeps unless told otherwise. Generic calls can invent method names; beyond the cap a
/// service's calls are folded into the method [`FOLDED_METHOD`] and counted in
/// [`MetricsStore::folded`].
pub const DEFAULT_MAX_METHODS_PER_SERVICE: usize = 200;

/// The `method` label of the calls folded together once their service reached its cap.
pub const FOLDED_METHOD: &str = "__other__";

type Buckets = HashMap<u64, Vec<Arc<Entry>>, BuildHasherDefault<PassThrough>>;

#[derive(Debug)]
struct Entry {
    key: MetricKey,
    metrics: Arc<MethodMetrics>,
}

/// The call metrics of one framework (and the applications built from it): one
/// [`MethodMetrics`] per [`MetricKey`].
///
/// Reads of existing keys load a shared map snapshot and compare strings; a new key copies
/// the map once (keys are few and long-lived).
#[derive(Debug)]
pub struct MetricsStore {
    window: WindowConfig,
    origin: Instant,
    /// Times the filter's calls; its origin is `origin`.
    clock: Clock,
    max_keys: usize,
    max_methods: usize,
    dropped: AtomicU64,
    folded: AtomicU64,
    map: ArcSwap<Buckets>,
    /// Distinct methods per service (by [`service_hash`]); only touched when a key is new.
    methods: Mutex<HashMap<u64, usize, BuildHasherDefault<PassThrough>>>,
}

impl Default for MetricsStore {
    fn default() -> Self {
        Self::new(WindowConfig::default(), DEFAULT_MAX_KEYS)
    }
}

impl MetricsStore {
    /// A store whose keys keep a window of shape `window`, holding at most `max_keys` keys.
    pub fn new(window: WindowConfig, max_keys: usize) -> Self {
        let origin = Instant::now();
        Self {
            window,
            origin,
            clock: Clock::new(origin),
            max_keys,
            max_methods: DEFAULT_MAX_METHODS_PER_SERVICE,
            dropped: AtomicU64::new(0),
            folded: AtomicU64::new(0),
            map: ArcSwap::from_pointee(Buckets::default()),
            methods: Mutex::new(HashMap::default()),
        }
    }

    /// The same store keeping at most `max_methods` distinct methods per service (at least 1;
    /// the folded method comes on top).
    pub fn with_max_methods_per_service(mut self, max_methods: usize) -> Self {
        self.max_methods = max_methods.max(1);
        self
    }

    /// A store with a window checked for sense: at least one bucket, and a window of at least
    /// one millisecond per bucket.
    pub fn with_window(
        bucket_num: usize,
        time_window_seconds: u64,
        max_keys: usize,
    ) -> Result<Self, MetricsError> {
        if bucket_num == 0 {
            return Err(MetricsError::InvalidWindow(
                "bucket-num must be at least 1".into(),
            ));
        }
        if time_window_seconds == 0 {
            return Err(MetricsError::InvalidWindow(
                "time-window-seconds must be at least 1".into(),
            ));
        }
        Ok(Self::new(
            WindowConfig {
                bucket_num,
                time_window: std::time::Duration::from_secs(time_window_seconds),
            },
            max_keys,
        ))
    }

    /// The metrics of `key`, created on first use; `None` when the store is full (the call is
    /// then counted in [`dropped`](Self::dropped)). A new method of a service that already
    /// has its cap of methods gets the metrics of [`FOLDED_METHOD`] instead.
    pub fn get(&self, key: &KeyRef<'_>) -> Option<Arc<MethodMetrics>> {
        let hash = key.hash64();
        if let Some(found) = find(&self.map.load(), hash, key) {
            return Some(found);
        }
        if key.method != FOLDED_METHOD && !self.admit_method(key) {
            self.folded.fetch_add(1, Ordering::Relaxed);
            let folded = KeyRef {
                method: FOLDED_METHOD,
                ..*key
            };
            let hash = folded.hash64();
            if let Some(found) = find(&self.map.load(), hash, &folded) {
                return Some(found);
            }
            return self.insert(hash, &folded);
        }
        self.insert(hash, key)
    }

    /// The metrics of `key` if the store holds that very key; unlike [`get`](Self::get) it
    /// neither adds, folds nor counts anything.
    pub fn existing(&self, key: &KeyRef<'_>) -> Option<Arc<MethodMetrics>> {
        find(&self.map.load(), key.hash64(), key)
    }

    /// Whether the service of `key` may take one more method name; counts it if so. Called
    /// only for keys not in the map yet, so a known method never counts twice (a race of two
    /// first calls of one method may count it twice, which only tightens the cap).
    fn admit_method(&self, key: &KeyRef<'_>) -> bool {
        let mut methods = self.methods.lock().unwrap_or_else(PoisonError::into_inner);
        let count = methods.entry(service_hash(key)).or_insert(0);
        if *count >= self.max_methods {
            return false;
        }
        *count += 1;
        true
    }

    fn insert(&self, hash: u64, key: &KeyRef<'_>) -> Option<Arc<MethodMetrics>> {
        let mut result = None;
        let mut full = false;
        self.map.rcu(|map| {
            // Another task may have added it since the lookup.
            if let Some(found) = find(map, hash, key) {
                result = Some(found);
                return Arc::clone(map);
            }
            if map.values().map(Vec::len).sum::<usize>() >= self.max_keys {
                full = true;
                return Arc::clone(map);
            }
            let metrics = Arc::new(MethodMetrics::new(self.window, self.origin));
            let mut next = Buckets::clone(map);
            next.entry(hash).or_default().push(Arc::new(Entry {
                key: key.to_owned_key(),
                metrics: metrics.clone(),
            }));
            result = Some(metrics);
            Arc::new(next)
        });
        if full {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        result
    }

    /// Calls not recorded because the store held [`DEFAULT_MAX_KEYS`] (or the configured
    /// maximum) keys.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Calls recorded under [`FOLDED_METHOD`] because their service had reached its cap of
    /// distinct methods.
    pub fn folded(&self) -> u64 {
        self.folded.load(Ordering::Relaxed)
    }

    /// Every key with its metrics, sorted by key (side, application, interface, method, group,
    /// version) so that renderings are stable.
    pub fn entries(&self) -> Vec<(MetricKey, Arc<MethodMetrics>)> {
        let map = self.map.load();
        let mut all: Vec<(MetricKey, Arc<MethodMetrics>)> = map
            .values()
            .flatten()
            .map(|e| (e.key.clone(), e.metrics.clone()))
            .collect();
        all.sort_by(|a, b| {
            let k = |m: &MetricKey| {
                (
                    m.side.as_str(),
                    m.application.clone(),
                    m.interface.clone(),
                    m.method.clone(),
                    m.group.clone(),
                    m.version.clone(),
                )
            };
            k(&a.0).cmp(&k(&b.0))
        });
        all
    }

    /// The clock calls recorded through the filter are timed with.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The window shape every key uses.
    pub fn window(&self) -> WindowConfig {
        self.window
    }
}

/// The hash of a key's service: the key without its method.
fn service_hash(key: &KeyRef<'_>) -> u64 {
    KeyRef { method: "", ..*key }.hash64()
}

fn find(map: &Buckets, hash: u64, key: &KeyRef<'_>) -> Option<Arc<MethodMetrics>> {
    map.get(&hash)?
        .iter()
        .find(|e| key.matches(&e.key))
        .map(|e| e.metrics.clone())
}

/// The map's keys are already hashes.
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_core::Side;

    fn key(method: &str) -> KeyRef<'_> {
        KeyRef {
            side: Side::Provider,
            application: "app",
            interface: "a.B",
            method,
            group: "",
            version: "1.0",
        }
    }

    #[test]
    fn same_key_same_metrics_and_cap_counts_drops() {
        let store = MetricsStore::new(WindowConfig::default(), 2);
        let a = store.get(&key("a"));
        let a2 = store.get(&key("a"));
        assert!(matches!((&a, &a2), (Some(x), Some(y)) if Arc::ptr_eq(x, y)));
        assert!(store.get(&key("b")).is_some());
        assert!(store.get(&key("c")).is_none());
        assert!(store.get(&key("c")).is_none());
        assert_eq!(store.dropped(), 2);
        let names: Vec<String> = store
            .entries()
            .iter()
            .map(|(k, _)| k.method.to_string())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn methods_beyond_the_cap_of_a_service_are_folded() {
        let store = MetricsStore::new(WindowConfig::default(), 100).with_max_methods_per_service(2);
        let a = store.get(&key("a"));
        assert!(store.get(&key("b")).is_some());
        let c = store.get(&key("c"));
        let d = store.get(&key("d"));
        assert!(matches!((&c, &d), (Some(x), Some(y)) if Arc::ptr_eq(x, y)));
        assert!(matches!((&a, &store.get(&key("a"))), (Some(x), Some(y)) if Arc::ptr_eq(x, y)));
        assert_eq!(store.folded(), 2);
        // Another service has its own cap.
        let other = KeyRef {
            interface: "a.C",
            ..key("c")
        };
        assert!(store.get(&other).is_some());
        assert_eq!(store.folded(), 2);
        let names: Vec<String> = store
            .entries()
            .iter()
            .map(|(k, _)| format!("{}#{}", k.interface, k.method))
            .collect();
        assert_eq!(names, ["a.B#__other__", "a.B#a", "a.B#b", "a.C#c"]);
    }

    #[test]
    fn window_is_checked() {
        assert!(MetricsStore::with_window(0, 120, 10).is_err());
        assert!(MetricsStore::with_window(10, 0, 10).is_err());
        assert!(MetricsStore::with_window(10, 120, 10).is_ok());
    }
}
