//! The `metrics` filter: records every call of a provider or consumer into a store.

use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

use dubbo_core::{BoxFuture, Filter, Invocation, Next, RpcResult, ServiceKey, Side};
use dubbo_url::Url;

use crate::clock::Clock;
use crate::failure::FailureKind;
use crate::key::KeyRef;
use crate::method_metrics::MethodMetrics;
use crate::store::MetricsStore;

/// Java's name for the filter, as used in `filter=-metrics`.
pub const METRICS_FILTER_NAME: &str = "metrics";

/// Records each call's outcome and response time under its [`MetricKey`](crate::MetricKey).
///
/// The side comes from the URL's `side` parameter (`provider` unless it says `consumer`) and
/// the application from its `application` parameter, so one instance serves every chain of a
/// framework.
#[derive(Debug, Clone)]
pub struct MetricsFilter {
    store: Arc<MetricsStore>,
}

impl MetricsFilter {
    /// A filter recording into `store`.
    pub fn new(store: Arc<MetricsStore>) -> Self {
        Self { store }
    }
}

/// The metrics a call records into: borrowed from the chain that remembers them, so the hot
/// path takes no reference count, or owned when the store had to be asked.
enum Held<'a> {
    Borrowed(&'a MethodMetrics),
    Owned(Arc<MethodMetrics>),
}

impl Deref for Held<'_> {
    type Target = MethodMetrics;

    fn deref(&self) -> &MethodMetrics {
        match self {
            Held::Borrowed(m) => m,
            Held::Owned(m) => m,
        }
    }
}

/// Ends the in-flight count when the call's future is dropped before it completes.
struct InFlight<'a>(Option<Held<'a>>);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Some(m) = self.0.take() {
            m.abandon();
        }
    }
}

/// The side and application a chain's URL names.
fn side_and_application(url: &Url) -> (Side, &str) {
    let side = match url.parameter("side") {
        Some("consumer") => Side::Consumer,
        _ => Side::Provider,
    };
    (side, url.parameter("application").unwrap_or(""))
}

fn key_of<'a>(side: Side, application: &'a str, invocation: &'a Invocation) -> KeyRef<'a> {
    let service = invocation.service();
    KeyRef {
        side,
        application,
        interface: service.interface(),
        method: invocation.method_name(),
        group: service.group().unwrap_or(""),
        version: service.version().unwrap_or(""),
    }
}

/// Records one call into `metrics`.
// Inlined into the filter's `invoke`: the invocation is passed by value, and every call
// boundary it crosses is a copy of it.
#[inline(always)]
fn record<'a>(
    clock: &'a Clock,
    metrics: Held<'a>,
    invocation: Invocation,
    next: Next<'a>,
) -> BoxFuture<'a, RpcResult> {
    metrics.begin();
    let mut guard = InFlight(Some(metrics));
    let started = clock.now();
    // The rest of the chain is built here rather than inside the future: the invocation then
    // moves once, into it, instead of into this future's state first (a copy of a few hundred
    // bytes per call).
    let rest = next.run(invocation);
    Box::pin(async move {
        let result = rest.await;
        let ended = clock.now();
        if let Some(m) = guard.0.take() {
            let failure = result.as_ref().err().map(FailureKind::of);
            m.end_between(clock, started, ended, failure);
        }
        result
    })
}

impl Filter for MetricsFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let (side, application) = side_and_application(next.url());
        let Some(metrics) = self.store.get(&key_of(side, application, &invocation)) else {
            return next.run(invocation);
        };
        record(self.store.clock(), Held::Owned(metrics), invocation, next)
    }

    fn for_chain(&self, url: &Url) -> Option<Arc<dyn Filter>> {
        let (side, application) = side_and_application(url);
        Some(Arc::new(ChainMetrics {
            store: self.store.clone(),
            side,
            application: application.to_owned(),
            known: (0..MAX_KNOWN).map(|_| OnceLock::new()).collect(),
            adding: Mutex::new(()),
        }))
    }
}

/// Most methods one chain remembers; a chain called with more method names (generic calls
/// may name any) looks the others up in the store on each call, as the shared filter does.
const MAX_KNOWN: usize = 32;

/// The metrics filter of one chain: the side and application are read from the chain's URL
/// once, and each method's metrics are remembered after the first call, so a call costs a
/// short scan of this chain's methods instead of hashing the whole key and reading the URL.
struct ChainMetrics {
    store: Arc<MetricsStore>,
    side: Side,
    application: String,
    /// Metrics of the methods called through this chain, filled from the front and never
    /// emptied, so a call can borrow its entry for as long as it runs without a reference
    /// count. The store never drops or replaces an entry, so a remembered one stays the entry
    /// of its key.
    known: Box<[OnceLock<Known>]>,
    /// Held while a method is appended, so two first calls do not fill the same slot.
    adding: Mutex<()>,
}

struct Known {
    service: ServiceKey,
    method: Box<str>,
    metrics: Arc<MethodMetrics>,
}

impl ChainMetrics {
    fn find(&self, invocation: &Invocation) -> Option<&Known> {
        let method = invocation.method_name();
        let service = invocation.service();
        self.known
            .iter()
            .map_while(OnceLock::get)
            .find(|k| *k.method == *method && k.service == *service)
    }

    fn metrics(&self, invocation: &Invocation) -> Option<Held<'_>> {
        if let Some(k) = self.find(invocation) {
            return Some(Held::Borrowed(&k.metrics));
        }
        let key = key_of(self.side, &self.application, invocation);
        // Only a key the store already holds is remembered: a method the store folds into
        // its overflow entry, or drops when full, goes through `get` every time, so the
        // store's folded and dropped counts stay what they were without this cache.
        let Some(found) = self.store.existing(&key) else {
            return self.store.get(&key).map(Held::Owned);
        };
        // A poisoned lock only means another first call panicked; the slots stay consistent
        // because each is set at most once.
        let _adding = self.adding.lock().unwrap_or_else(|e| e.into_inner());
        if self.find(invocation).is_none() {
            if let Some(free) = self.known.iter().find(|k| k.get().is_none()) {
                let _ = free.set(Known {
                    service: invocation.service().clone(),
                    method: invocation.method_name().into(),
                    metrics: found.clone(),
                });
            }
        }
        Some(Held::Owned(found))
    }
}

impl Filter for ChainMetrics {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        match self.metrics(&invocation) {
            Some(metrics) => record(self.store.clock(), metrics, invocation, next),
            None => next.run(invocation),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};
    use std::time::Instant;

    use dubbo_core::{
        invoker_fn, FilterChain, FilterSpec, Invoker, MethodSignature, RpcResponse, Stage, Value,
    };

    use super::*;

    /// Runs a future that never waits (the target answers at once).
    fn ready<F: Future>(f: F) -> F::Output {
        let mut f = pin!(f);
        match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(out) => out,
            Poll::Pending => panic!("the test target never waits"),
        }
    }

    fn chain(store: &Arc<MetricsStore>) -> FilterChain {
        let url = Url::parse("dubbo://127.0.0.1:20880/a.B?side=consumer&application=app").unwrap();
        let target = Arc::new(invoker_fn(url.clone(), |_| async {
            Ok(RpcResponse::new(Value::Null))
        }));
        let spec = Arc::new(FilterSpec::new(
            METRICS_FILTER_NAME,
            0,
            &[Stage::Cluster],
            Arc::new(MetricsFilter::new(store.clone())),
        ));
        FilterChain::build(&[spec], Stage::Cluster, &url, target)
    }

    fn call(method: &str) -> Invocation {
        Invocation::new(
            ServiceKey::new("a.B", Some("g"), None),
            Arc::new(MethodSignature::new(method, &[] as &[&str], "void")),
            Vec::new(),
        )
    }

    #[test]
    fn a_chain_records_under_the_same_key_as_the_shared_filter() {
        let store = Arc::new(MetricsStore::default());
        let chain = chain(&store);
        for _ in 0..3 {
            ready(chain.invoke(call("m"))).unwrap();
        }
        let entries = store.entries();
        assert_eq!(entries.len(), 1);
        let (key, metrics) = &entries[0];
        assert_eq!(key.side, Side::Consumer);
        assert_eq!(&*key.application, "app");
        assert_eq!(&*key.method, "m");
        assert_eq!(&*key.group, "g");
        assert_eq!(metrics.snapshot(Instant::now()).total, 3);
    }

    #[test]
    fn response_times_are_those_of_the_monotonic_clock() {
        let store = Arc::new(MetricsStore::default());
        let url = Url::parse("dubbo://127.0.0.1:20880/a.B?side=consumer&application=app").unwrap();
        let target = Arc::new(invoker_fn(url.clone(), |_| async {
            let t = Instant::now();
            while t.elapsed() < std::time::Duration::from_millis(3) {
                std::hint::spin_loop();
            }
            Ok(RpcResponse::new(Value::Null))
        }));
        let spec = Arc::new(FilterSpec::new(
            METRICS_FILTER_NAME,
            0,
            &[Stage::Cluster],
            Arc::new(MetricsFilter::new(store.clone())),
        ));
        let chain = FilterChain::build(&[spec], Stage::Cluster, &url, target);
        ready(chain.invoke(call("slow"))).unwrap();
        let entries = store.entries();
        let s = entries[0].1.snapshot(Instant::now());
        // At least the 3 ms spun (less 0.5 % for the clock's rate); more only if the thread
        // was preempted.
        assert!(
            s.rt_last_ms >= 2.985 && s.rt_last_ms < 100.0,
            "{} ms",
            s.rt_last_ms
        );
        assert_eq!(s.window.total, 1);
    }

    #[test]
    fn folded_methods_are_counted_on_every_call() {
        let store = Arc::new(MetricsStore::default().with_max_methods_per_service(1));
        let chain = chain(&store);
        ready(chain.invoke(call("first"))).unwrap();
        for _ in 0..3 {
            ready(chain.invoke(call("other"))).unwrap();
        }
        assert_eq!(store.folded(), 3);
        assert_eq!(store.entries().len(), 2);
    }
}
