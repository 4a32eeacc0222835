//! `adaptive`: power of two choices over a load estimated from the providers' own reports.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use arc_swap::ArcSwap;
use dubbo_core::{
    Invocation, Invoker, LoadBalance, Outcome, ResultObserver, RpcResult, StatsStore,
};

use super::lazy_now::LazyNow;
use super::provider_load::ProviderLoad;
use super::rng::SelectRng;
use super::snapshot::{ListCache, Providers};
use super::weight::now_ms;
use super::weighted::{pick_weighted_among, WeightTable};

/// The attachment that carries the load report: asked for in the request (value
/// [`ADAPTIVE_REQUEST_VALUE`]), answered in the response as `curTime:<ms>,load:<cpu>`.
/// Java's `Constants.ADAPTIVE_LOADBALANCE_ATTACHMENT_KEY`.
pub const ADAPTIVE_ATTACHMENT_KEY: &str = "lb_adaptive";
/// What a consumer puts in the request's [`ADAPTIVE_ATTACHMENT_KEY`] (Java's default).
pub const ADAPTIVE_REQUEST_VALUE: &str = "mem,load";
/// The call timeout assumed when neither the invocation nor the URL sets one, in ms.
pub const DEFAULT_TIMEOUT_MS: u64 = 1000;
/// Most providers whose state one balancer keeps.
const MAX_PROVIDERS: usize = 65_536;

/// Adaptive load balancing (Java's `AdaptiveLoadBalance`, Dubbo's flexible-service
/// proposal): two different providers are drawn at random and the one with the lower load
/// takes the call (on equal loads, one of the two by weight).
///
/// A provider's load combines the CPU load it reports in the response attachment
/// [`ADAPTIVE_ATTACHMENT_KEY`], a moving average of the call latency that decays with the
/// call timeout, the calls in flight to it and its success ratio and weight (see
/// [`ProviderLoad::load`](super::ProviderLoad::load)). Its [`ResultObserver`] feeds
/// it. Providers report when the request asks: the consumer filter
/// [`AdaptiveRequestFilter`](super::AdaptiveRequestFilter) asks on references with
/// `loadbalance=adaptive`, and the provider filter
/// [`LoadReportFilter`](super::LoadReportFilter) (or Java's `ProfilerServerFilter`) answers.
///
/// The providers' states, weights and URL timeouts are looked up once per list (and each
/// second while a provider warms up), so a selection formats no identity.
#[derive(Debug)]
pub struct AdaptiveLoadBalance {
    rng: SelectRng,
    providers: ArcSwap<HashMap<String, Arc<ProviderLoad>>>,
    writer: Mutex<()>,
    tables: ListCache<Table>,
}

/// What a selection reads of each provider of one list, in list order.
#[derive(Debug)]
struct Table {
    loads: Vec<Arc<ProviderLoad>>,
    weights: Vec<u32>,
    /// The URL's `<method>.timeout` / `timeout`, or the default.
    timeouts_ms: Vec<u64>,
}

impl Default for AdaptiveLoadBalance {
    fn default() -> Self {
        Self::with_rng(SelectRng::thread_local())
    }
}

impl AdaptiveLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "adaptive";

    /// A balancer with no provider state yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A balancer drawing from `rng` (seeded in tests).
    pub fn with_rng(rng: SelectRng) -> Self {
        Self {
            rng,
            providers: ArcSwap::from_pointee(HashMap::new()),
            writer: Mutex::new(()),
            tables: ListCache::new(),
        }
    }

    /// The state of the provider `invoker`, created on first use.
    pub fn provider_load(&self, invoker: &dyn Invoker) -> Arc<ProviderLoad> {
        let key = StatsStore::identity(invoker.url());
        if let Some(p) = self.providers.load().get(&key) {
            return p.clone();
        }
        let _guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let current = self.providers.load_full();
        if let Some(p) = current.get(&key) {
            return p.clone();
        }
        let load = Arc::new(ProviderLoad::new(now_ms()));
        if current.len() < MAX_PROVIDERS {
            let mut next = HashMap::clone(&current);
            next.insert(key, load.clone());
            self.providers.store(Arc::new(next));
        }
        load
    }

    /// The states of `invokers`, the missing ones created in one copy of the map rather
    /// than one copy per provider.
    fn provider_loads(&self, invokers: &[Arc<dyn Invoker>]) -> Vec<Arc<ProviderLoad>> {
        let keys: Vec<String> = invokers
            .iter()
            .map(|inv| StatsStore::identity(inv.url()))
            .collect();
        let current = self.providers.load();
        if keys.iter().all(|k| current.contains_key(k)) {
            return keys
                .iter()
                .filter_map(|k| current.get(k).cloned())
                .collect();
        }
        drop(current);
        let _guard = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let mut next = HashMap::clone(&self.providers.load_full());
        let now = now_ms();
        let loads = keys
            .into_iter()
            .map(|k| {
                if let Some(p) = next.get(&k) {
                    return p.clone();
                }
                let load = Arc::new(ProviderLoad::new(now));
                if next.len() < MAX_PROVIDERS {
                    next.insert(k, load.clone());
                }
                load
            })
            .collect();
        self.providers.store(Arc::new(next));
        loads
    }

    fn build(&self, invokers: &[Arc<dyn Invoker>], method: &str, now: u64) -> (Table, u64) {
        let (weights, valid_until) = WeightTable::build(invokers, method, now);
        let table = Table {
            loads: self.provider_loads(invokers),
            weights: weights.weights,
            timeouts_ms: invokers
                .iter()
                .map(|inv| parse_timeout(inv.url().method_parameter(method, "timeout")))
                .collect(),
        };
        (table, valid_until)
    }

    fn pick(&self, providers: Providers<'_>, invocation: &Invocation) -> Option<Arc<dyn Invoker>> {
        let invokers = providers.list;
        invokers.first()?;
        let now = now_ms();
        let method = invocation.method_name();
        let table = self
            .tables
            .get_or_build(providers, invocation, &LazyNow::at(now), |list| {
                self.build(list, method, now)
            });
        let table = &table.value;
        let chosen = if invokers.len() == 1 {
            0
        } else {
            let (a, b) = self.rng.two_distinct(invokers.len());
            // The call's own timeout wins over the providers' (even when it does not parse,
            // which counts as the default, as before).
            let call_timeout = invocation
                .attachments()
                .get_str("timeout")
                .map(|t| parse_timeout(Some(t)));
            let weight = |i: usize| table.weights.get(i).copied().unwrap_or(0);
            let load = |i: usize| {
                let timeout = call_timeout
                    .or_else(|| table.timeouts_ms.get(i).copied())
                    .unwrap_or(DEFAULT_TIMEOUT_MS);
                table
                    .loads
                    .get(i)
                    .map_or(0.0, |l| l.load(weight(i), timeout, now))
            };
            let (load_a, load_b) = (load(a), load(b));
            if load_a.to_bits() == load_b.to_bits() {
                [a, b][pick_weighted_among(&[0, 1], &[weight(a), weight(b)], &self.rng)]
            } else if load_a > load_b {
                b
            } else {
                a
            }
        };
        if let Some(l) = table.loads.get(chosen) {
            l.picked(now);
        }
        invokers.get(chosen).cloned()
    }
}

/// A timeout setting in ms: the default when absent, not a number or 0.
fn parse_timeout(value: Option<&str>) -> u64 {
    value
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&t| t > 0)
        .unwrap_or(DEFAULT_TIMEOUT_MS)
}

/// Parses a provider's report `curTime:<ms>,load:<cpu>`; a missing or malformed field
/// counts as 0, as in Java.
pub fn parse_report(report: &str) -> (u64, f64) {
    let mut time = 0;
    let mut load = 0.0;
    for part in report.split(',') {
        let mut kv = part.split(':');
        let (Some(k), Some(v), None) = (kv.next(), kv.next(), kv.next()) else {
            continue;
        };
        match k.trim() {
            "curTime" => time = v.trim().parse().unwrap_or(0),
            "load" => {
                load = v
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|l| l.is_finite() && *l >= 0.0)
                    .unwrap_or(0.0)
            }
            _ => {}
        }
    }
    (time, load)
}

impl LoadBalance for AdaptiveLoadBalance {
    super::select_through_pick!();

    fn observer(&self) -> Option<&dyn ResultObserver> {
        Some(self)
    }
}

impl ResultObserver for AdaptiveLoadBalance {
    fn on_result(
        &self,
        provider: &dyn Invoker,
        _invocation: &Invocation,
        result: &RpcResult,
        elapsed: Duration,
    ) {
        let load = self.provider_load(provider);
        if matches!(Outcome::of(result), Outcome::Failed(_)) {
            load.failed();
            return;
        }
        load.succeeded();
        let Ok(response) = result else {
            return;
        };
        if let Some(report) = response
            .attachments
            .get_str(ADAPTIVE_ATTACHMENT_KEY)
            .filter(|r| !r.is_empty())
        {
            let (time, cpu) = parse_report(report);
            let rt = i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX);
            load.report(time, cpu, rt);
        }
    }
}
