//! `shortestresponse`: the provider expected to answer soonest.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::{CallStats, Invocation, Invoker, LoadBalance, StatsStore};

use super::lazy_now::LazyNow;
use super::rng::SelectRng;
use super::snapshot::{ListCache, Providers};
use super::weight::{now_ms, weight_at};
use super::weighted::pick_least;

/// Java's default window (`dubbo.shortestresponse.slide.period`): 30 s.
pub const DEFAULT_SLIDE_PERIOD: Duration = Duration::from_secs(30);
/// How long a list's table is reused before its windows are looked up again.
const TABLE_TTL_MS: u64 = 1_000;
/// How long a window outlives its provider's last appearance in a list.
const RECYCLE_MS: u64 = 60_000;

/// The counters of one provider's method at the start of the current window.
#[derive(Debug)]
struct Window {
    stats: Arc<CallStats>,
    succeeded_offset: AtomicU64,
    elapsed_offset_micros: AtomicU64,
    last_seen_ms: AtomicU64,
}

impl Window {
    /// A window over everything counted so far; the first slide starts a fresh one (Java
    /// also starts from zero offsets).
    fn new(stats: Arc<CallStats>) -> Self {
        Self {
            stats,
            succeeded_offset: AtomicU64::new(0),
            elapsed_offset_micros: AtomicU64::new(0),
            last_seen_ms: AtomicU64::new(0),
        }
    }

    fn reset(&self) {
        self.succeeded_offset
            .store(self.stats.succeeded(), Ordering::Relaxed);
        self.elapsed_offset_micros
            .store(micros(self.stats.succeeded_elapsed()), Ordering::Relaxed);
    }

    /// Mean successful latency in the window times (in-flight + 1), in µs.
    fn estimate_micros(&self) -> u64 {
        let n = self
            .stats
            .succeeded()
            .saturating_sub(self.succeeded_offset.load(Ordering::Relaxed));
        if n == 0 {
            return 0;
        }
        let elapsed = micros(self.stats.succeeded_elapsed())
            .saturating_sub(self.elapsed_offset_micros.load(Ordering::Relaxed));
        (elapsed / n).saturating_mul(u64::from(self.stats.active()) + 1)
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

#[derive(Debug)]
struct Table {
    windows: Vec<Arc<Window>>,
    weights: Vec<u32>,
}

/// Shortest response (Java's `ShortestResponseLoadBalance`): the provider whose mean
/// successful latency over the current window, times its in-flight calls plus one, is
/// smallest; ties are broken by weighted random. The window restarts every slide period
/// (30 s by default), so an old slow spell is forgotten.
///
/// Every call reads every provider's counters once: O(providers), without allocating. The
/// windows and weights are looked up once per list (and each second).
#[derive(Debug)]
pub struct ShortestResponseLoadBalance {
    store: Arc<StatsStore>,
    rng: SelectRng,
    slide_period_ms: u64,
    windows: Mutex<HashMap<String, Arc<Window>>>,
    last_reset_ms: AtomicU64,
    resetting: AtomicBool,
    tables: ListCache<Table>,
}

impl ShortestResponseLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "shortestresponse";

    /// A balancer reading latencies from `store`, with a 30 s window.
    pub fn new(store: Arc<StatsStore>) -> Self {
        Self::with_options(store, DEFAULT_SLIDE_PERIOD, SelectRng::thread_local())
    }

    /// A balancer with its own window length and randomness.
    pub fn with_options(store: Arc<StatsStore>, slide_period: Duration, rng: SelectRng) -> Self {
        Self {
            store,
            rng,
            slide_period_ms: u64::try_from(slide_period.as_millis()).unwrap_or(u64::MAX),
            windows: Mutex::new(HashMap::new()),
            last_reset_ms: AtomicU64::new(now_ms()),
            resetting: AtomicBool::new(false),
            tables: ListCache::new(),
        }
    }

    fn build(&self, invokers: &[Arc<dyn Invoker>], method: &str, now: u64) -> Table {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let mut table = Table {
            windows: Vec::with_capacity(invokers.len()),
            weights: Vec::with_capacity(invokers.len()),
        };
        for inv in invokers {
            let stats = self.store.provider(inv.url()).method(method);
            let key = format!("{}#{method}", StatsStore::identity(inv.url()));
            let window = windows
                .entry(key)
                .and_modify(|w| {
                    if !Arc::ptr_eq(&w.stats, &stats) {
                        *w = Arc::new(Window::new(stats.clone()));
                    }
                })
                .or_insert_with(|| Arc::new(Window::new(stats.clone())))
                .clone();
            window.last_seen_ms.store(now, Ordering::Relaxed);
            table.windows.push(window);
            table.weights.push(weight_at(inv.url(), method, now));
        }
        table
    }

    /// Starts a new window for every provider once the slide period has passed.
    fn slide(&self, now: u64) {
        let last = self.last_reset_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) <= self.slide_period_ms
            || self
                .resetting
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        if let Ok(mut windows) = self.windows.lock() {
            windows.retain(|_, w| {
                now.saturating_sub(w.last_seen_ms.load(Ordering::Relaxed)) <= RECYCLE_MS
            });
            for w in windows.values() {
                w.reset();
            }
        }
        self.last_reset_ms.store(now, Ordering::Relaxed);
        self.resetting.store(false, Ordering::Release);
    }
}

impl ShortestResponseLoadBalance {
    fn pick(&self, providers: Providers<'_>, invocation: &Invocation) -> Option<Arc<dyn Invoker>> {
        let invokers = providers.list;
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let method = invocation.method_name();
        let now = now_ms();
        let table = self
            .tables
            .get_or_build(providers, invocation, &LazyNow::at(now), |list| {
                (self.build(list, method, now), now + TABLE_TTL_MS)
            });
        let table = &table.value;
        let windows = &table.windows;
        let chosen = pick_least(
            windows.len(),
            |i| windows[i].estimate_micros(),
            &table.weights,
            &self.rng,
        );
        self.slide(now);
        invokers.get(chosen).cloned()
    }
}

impl LoadBalance for ShortestResponseLoadBalance {
    super::select_through_pick!();
}
