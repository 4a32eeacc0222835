//! Per-provider call statistics, kept by the framework for load balancers, limits and QoS.
//!
//! Every consumer-side call to one provider passes through a
//! [`MeasuredInvoker`](crate::MeasuredInvoker), which counts it here: how many calls are in
//! flight, how many ended and failed, how long they took. Least-active, shortest-response and
//! adaptive load balancing read these numbers; the store belongs to one framework, so two
//! frameworks in a process (or two tests) never mix their numbers.
//!
//! The call path takes no lock on the store: an invoker looks its [`ProviderStats`] up once
//! when it is built, and a method's [`CallStats`] is found in an immutable table that is
//! swapped only when a method is seen for the first time.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use arc_swap::ArcSwap;
use std::time::{Duration, Instant};

use dubbo_url::Url;

/// Counters of one provider, or of one method of one provider.
#[derive(Debug, Default)]
pub struct CallStats {
    active: AtomicU32,
    total: AtomicU64,
    failed: AtomicU64,
    elapsed_micros: AtomicU64,
    failed_elapsed_micros: AtomicU64,
    max_elapsed_micros: AtomicU64,
    /// Exponentially weighted moving average of the latency of successful calls, in ns.
    ewma_nanos: AtomicU64,
    /// Nanoseconds since the store's epoch of the last failure; 0 = never.
    last_failure: AtomicU64,
}

/// Weight of the newest sample in the latency average: 1/8, so about the last 8 calls count.
const EWMA_SHIFT: u32 = 3;

impl CallStats {
    /// Calls in flight now.
    pub fn active(&self) -> u32 {
        self.active.load(Ordering::Relaxed)
    }

    /// Calls that have ended, successful or not.
    pub fn total(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    /// Calls that ended in an error (business or framework).
    pub fn failed(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Calls that ended successfully.
    pub fn succeeded(&self) -> u64 {
        self.total().saturating_sub(self.failed())
    }

    /// Total time of all ended calls.
    pub fn total_elapsed(&self) -> Duration {
        Duration::from_micros(self.elapsed_micros.load(Ordering::Relaxed))
    }

    /// Total time of the successful calls.
    pub fn succeeded_elapsed(&self) -> Duration {
        let all = self.elapsed_micros.load(Ordering::Relaxed);
        let failed = self.failed_elapsed_micros.load(Ordering::Relaxed);
        Duration::from_micros(all.saturating_sub(failed))
    }

    /// The longest call.
    pub fn max_elapsed(&self) -> Duration {
        Duration::from_micros(self.max_elapsed_micros.load(Ordering::Relaxed))
    }

    /// Mean time of the successful calls, `None` before the first one.
    pub fn average_succeeded_elapsed(&self) -> Option<Duration> {
        let n = self.succeeded();
        (n > 0).then(|| self.succeeded_elapsed() / n.min(u64::from(u32::MAX)) as u32)
    }

    /// Moving average of recent successful calls' latency, `None` before the first one.
    pub fn ewma_latency(&self) -> Option<Duration> {
        match self.ewma_nanos.load(Ordering::Relaxed) {
            0 => None,
            n => Some(Duration::from_nanos(n)),
        }
    }

    /// Marks a call as started; [`end`](Self::end) ends it.
    pub fn begin(&self) {
        self.active.fetch_add(1, Ordering::Relaxed);
    }

    /// Marks a call started with [`begin`](Self::begin) as abandoned: its caller dropped it
    /// before it ended (a forking strategy's losing branch, a caller's own timeout). Only the
    /// in-flight count changes; the call is neither a success nor a failure of the provider.
    pub fn abandon(&self) {
        self.active.fetch_sub(1, Ordering::Relaxed);
    }

    /// Marks a call started with [`begin`](Self::begin) as ended. Every `end` must follow its
    /// own `begin` ([`MeasuredInvoker`](crate::MeasuredInvoker) pairs them).
    pub fn end(&self, elapsed: Duration, succeeded: bool, now_since_epoch: Duration) {
        // Plain adds, no compare-and-swap loops: this runs twice on every call.
        self.active.fetch_sub(1, Ordering::Relaxed);
        self.total.fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.elapsed_micros.fetch_add(micros, Ordering::Relaxed);
        if micros > self.max_elapsed_micros.load(Ordering::Relaxed) {
            self.max_elapsed_micros.fetch_max(micros, Ordering::Relaxed);
        }
        if succeeded {
            let sample = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX).max(1);
            // Lost updates under contention only drop a sample from the average.
            let old = self.ewma_nanos.load(Ordering::Relaxed);
            let new = if old == 0 {
                sample
            } else {
                (old - (old >> EWMA_SHIFT)).saturating_add(sample >> EWMA_SHIFT)
            };
            self.ewma_nanos.store(new.max(1), Ordering::Relaxed);
        } else {
            self.failed.fetch_add(1, Ordering::Relaxed);
            self.failed_elapsed_micros
                .fetch_add(micros, Ordering::Relaxed);
            let at = u64::try_from(now_since_epoch.as_nanos()).unwrap_or(u64::MAX);
            self.last_failure.store(at.max(1), Ordering::Relaxed);
        }
    }
}

/// The statistics of one provider of one service, kept per method; the whole is summed when
/// asked for, so a call updates one set of counters only.
#[derive(Debug, Default)]
pub struct ProviderStats {
    methods: ArcSwap<HashMap<String, Arc<CallStats>>>,
    /// The first method given counters, also in `methods`: most references call one or a few
    /// methods, and the consumer looks its method up on every attempt; a comparison of the
    /// name here saves hashing it.
    first: OnceLock<(Box<str>, Arc<CallStats>)>,
}

/// Most methods whose statistics one provider keeps (generic calls may name any method).
const MAX_METHODS: usize = 1024;

impl ProviderStats {
    /// Counters over every method, summed now (the latency average is the busiest method's).
    pub fn all(&self) -> CallStats {
        let sum = CallStats::default();
        let mut busiest = 0;
        for m in self.methods.load().values() {
            let add = |into: &AtomicU64, from: &AtomicU64| {
                into.fetch_add(from.load(Ordering::Relaxed), Ordering::Relaxed);
            };
            sum.active.fetch_add(m.active(), Ordering::Relaxed);
            add(&sum.total, &m.total);
            add(&sum.failed, &m.failed);
            add(&sum.elapsed_micros, &m.elapsed_micros);
            add(&sum.failed_elapsed_micros, &m.failed_elapsed_micros);
            sum.max_elapsed_micros.fetch_max(
                m.max_elapsed_micros.load(Ordering::Relaxed),
                Ordering::Relaxed,
            );
            sum.last_failure
                .fetch_max(m.last_failure.load(Ordering::Relaxed), Ordering::Relaxed);
            if m.total() >= busiest {
                busiest = m.total();
                sum.ewma_nanos
                    .store(m.ewma_nanos.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
        sum
    }

    /// Counters of `method`, created on first use. The lookup takes no lock: a method seen
    /// for the first time swaps in a new table.
    pub fn method(&self, method: &str) -> Arc<CallStats> {
        if let Some((name, stats)) = self.first.get() {
            if **name == *method {
                return stats.clone();
            }
        }
        if let Some(s) = self.methods.load().get(method) {
            if self.first.get().is_none() {
                let _ = self.first.set((Box::from(method), s.clone()));
            }
            return s.clone();
        }
        let mut found = None;
        self.methods.rcu(|map| {
            let mut map = HashMap::clone(map);
            if map.len() < MAX_METHODS || map.contains_key(method) {
                found = Some(map.entry(method.to_owned()).or_default().clone());
            }
            map
        });
        found.unwrap_or_default()
    }

    /// Counters of `method` if it was ever called.
    pub fn get_method(&self, method: &str) -> Option<Arc<CallStats>> {
        self.methods.load().get(method).cloned()
    }
}

/// The framework's statistics of every provider its consumers call, by provider identity
/// (`protocol://host:port/service-key`).
#[derive(Debug)]
pub struct StatsStore {
    epoch: Instant,
    providers: RwLock<HashMap<String, Arc<ProviderStats>>>,
}

impl Default for StatsStore {
    fn default() -> Self {
        Self {
            epoch: Instant::now(),
            providers: RwLock::new(HashMap::new()),
        }
    }
}

impl StatsStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The key of a provider URL: its protocol, address and service key. Two references to
    /// the same provider and service share their numbers, as Java's `RpcStatus` does.
    pub fn identity(url: &Url) -> String {
        let key = crate::protocol::exported_service_key(url);
        format!(
            "{}://{}:{}/{key}",
            url.protocol().unwrap_or(""),
            url.host().unwrap_or(""),
            url.port()
        )
    }

    /// The statistics of the provider `url`, created on first use.
    pub fn provider(&self, url: &Url) -> Arc<ProviderStats> {
        let id = Self::identity(url);
        if let Ok(map) = self.providers.read() {
            if let Some(s) = map.get(&id) {
                return s.clone();
            }
        }
        match self.providers.write() {
            Ok(mut map) => map.entry(id).or_default().clone(),
            Err(_) => Arc::default(),
        }
    }

    /// The statistics of the provider `url`, if any call was made to it.
    pub fn get(&self, url: &Url) -> Option<Arc<ProviderStats>> {
        self.providers
            .read()
            .ok()?
            .get(&Self::identity(url))
            .cloned()
    }

    /// Forgets a provider that is gone (its invokers were destroyed).
    pub fn remove(&self, url: &Url) {
        if let Ok(mut map) = self.providers.write() {
            map.remove(&Self::identity(url));
        }
    }

    /// Time since the store was created, the clock of [`CallStats::end`]'s failure stamps.
    pub fn now(&self) -> Duration {
        self.epoch.elapsed()
    }

    /// `at` on the store's clock (see [`now`](Self::now)).
    pub fn since_epoch(&self, at: Instant) -> Duration {
        at.saturating_duration_since(self.epoch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_calls_and_averages_latency() {
        let store = StatsStore::new();
        let url = Url::parse("dubbo://127.0.0.1:20880/a.B?version=1.0").unwrap();
        let p = store.provider(&url);
        assert!(
            Arc::ptr_eq(&p, &store.provider(&url)),
            "one entry per provider"
        );
        let m = p.method("sayHello");
        m.begin();
        m.begin();
        assert_eq!(m.active(), 2);
        m.end(Duration::from_millis(10), true, store.now());
        m.end(Duration::from_millis(30), false, store.now());
        assert_eq!(m.active(), 0);
        assert_eq!((m.total(), m.failed(), m.succeeded()), (2, 1, 1));
        assert_eq!(m.max_elapsed(), Duration::from_millis(30));
        assert_eq!(
            m.average_succeeded_elapsed(),
            Some(Duration::from_millis(10))
        );
        assert_eq!(m.ewma_latency(), Some(Duration::from_millis(10)));
        let other = Url::parse("dubbo://127.0.0.1:20881/a.B?version=1.0").unwrap();
        assert!(store.get(&other).is_none());
    }
}
