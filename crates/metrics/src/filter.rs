//! The `metrics` filter: records every call of a provider or consumer into a store.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, OnceLock};

use dubbo_core::{
    BoxFuture, Filter, Invocation, MethodSignature, Next, RpcResult, ServiceKey, Side, Value,
};
use dubbo_url::Url;

use crate::clock::{Clock, Tick};
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

/// Where a call's metrics are: remembered by the chain, or held for the call.
enum Found<'a> {
    Known(&'a MethodMetrics),
    Held(Arc<MethodMetrics>),
}

impl Found<'_> {
    fn metrics(&self) -> &MethodMetrics {
        match self {
            Found::Known(m) => m,
            Found::Held(m) => m,
        }
    }
}

/// Ends the in-flight count when the call's future is dropped before it completes.
struct InFlight<'a>(Option<Found<'a>>);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Some(m) = self.0.take() {
            m.metrics().abandon();
        }
    }
}

/// Runs the rest of the chain as one measured call of `found`'s method.
fn measure<'a>(
    clock: &'a Clock,
    found: Found<'a>,
    invocation: Invocation,
    next: Next<'a>,
) -> BoxFuture<'a, RpcResult> {
    found.metrics().begin();
    let started = clock.now();
    let mut in_flight = InFlight(Some(found));
    let rest = next.run(invocation);
    Box::pin(async move {
        let result = rest.await;
        if let Some(m) = in_flight.0.take() {
            finish(clock, m.metrics(), started, &result);
        }
        result
    })
}

/// The side and application a chain's URL names.
fn side_and_application(url: &Url) -> (Side, &str) {
    let side = match url.parameter("side") {
        Some("consumer") => Side::Consumer,
        _ => Side::Provider,
    };
    (side, url.parameter("application").unwrap_or(""))
}

/// The method a call is counted under: its own, and for a generic call (`$invoke`,
/// `$invokeAsync`) the method it names, its first argument when that is a string — as Java's
/// metrics filters count it (`MethodMetric` takes `RpcUtils.getMethodName`), on both sides.
fn counted_method(invocation: &Invocation) -> Cow<'_, str> {
    if invocation.method().is_generic() {
        if let Some(first) = invocation.args().first() {
            match first.as_value() {
                Some(Value::String(m)) => return Cow::Borrowed(m),
                Some(_) => {}
                None => {
                    if let Ok(Value::String(m)) = first.to_value() {
                        return Cow::Owned(m);
                    }
                }
            }
        }
    }
    Cow::Borrowed(invocation.method_name())
}

fn key_of<'a>(
    side: Side,
    application: &'a str,
    invocation: &'a Invocation,
    method: &'a str,
) -> KeyRef<'a> {
    let service = invocation.service();
    KeyRef {
        side,
        application,
        interface: service.interface(),
        method,
        group: service.group().unwrap_or(""),
        version: service.version().unwrap_or(""),
    }
}

/// Records a started call's outcome.
#[inline]
fn finish(clock: &Clock, metrics: &MethodMetrics, started: Tick, result: &RpcResult) {
    let ended = clock.now();
    let failure = result.as_ref().err().map(FailureKind::of);
    metrics.end_between(clock, started, ended, failure);
}

impl Filter for MetricsFilter {
    // The shared filter, in a chain built without `for_chain`: it reads the URL and asks the
    // store on every call, so it is not the hot path; chains built by `FilterChain::build` get
    // a `ChainMetrics`, which resolves both once.
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let (side, application) = side_and_application(next.url());
        let method = counted_method(&invocation);
        let found = self
            .store
            .get(&key_of(side, application, &invocation, &method));
        drop(method);
        let Some(metrics) = found else {
            return next.run(invocation);
        };
        measure(self.store.clock(), Found::Held(metrics), invocation, next)
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
    /// count. The store never drops or replaces an entry, so a remembered one stays
    /// the entry of its key.
    known: Box<[OnceLock<Known>]>,
    /// Held while a method is appended, so two first calls do not fill the same slot.
    adding: Mutex<()>,
}

struct Known {
    service: ServiceKey,
    /// The first call's signature, held so that later calls sharing it (the usual case: a
    /// reference keeps one per method) match by pointer before any string is compared. Generic
    /// calls share one signature for every method they name, so they match by name only.
    signature: Arc<MethodSignature>,
    method: Box<str>,
    metrics: Arc<MethodMetrics>,
}

impl ChainMetrics {
    /// The remembered entry of this call; `method` is its [`counted_method`].
    fn find(&self, invocation: &Invocation, method: &str) -> Option<&Known> {
        let signature = invocation.method();
        let service = invocation.service();
        let mut known = self.known.iter().map_while(OnceLock::get);
        let generic = signature.is_generic();
        if !generic {
            if let Some(found) = known
                .clone()
                .find(|k| Arc::ptr_eq(&k.signature, signature) && same_key(&k.service, service))
            {
                return Some(found);
            }
        }
        known.find(|k| *k.method == *method && k.service == *service)
    }

    fn locate(&self, invocation: &Invocation) -> Option<Found<'_>> {
        // Once per call: for a generic call it may decode the first argument.
        let method = counted_method(invocation);
        if let Some(k) = self.find(invocation, &method) {
            return Some(Found::Known(&k.metrics));
        }
        let key = key_of(self.side, &self.application, invocation, &method);
        // Only a key the store already holds is remembered: a method the store folds into
        // its overflow entry, or drops when full, goes through `get` every time, so the
        // store's folded and dropped counts stay what they were without this cache.
        let Some(found) = self.store.existing(&key) else {
            return self.store.get(&key).map(Found::Held);
        };
        // A poisoned lock only means another first call panicked; the slots stay consistent
        // because each is set at most once.
        let _adding = self.adding.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = self.find(invocation, &method) {
            return Some(Found::Known(&k.metrics));
        }
        if let Some(free) = self.known.iter().find(|k| k.get().is_none()) {
            // Only this thread fills slots (under `adding`), so the slot found empty is
            // filled with this method.
            let known = free.get_or_init(|| Known {
                service: invocation.service().clone(),
                signature: invocation.method().clone(),
                method: (*method).into(),
                metrics: found.clone(),
            });
            return Some(Found::Known(&known.metrics));
        }
        Some(Found::Held(found))
    }
}

/// Whether two service keys share their strings' storage, as a key cloned from another does:
/// then they are equal without comparing a byte. Both keys are alive while compared, so equal
/// addresses are the same strings. `false` says nothing; the caller then compares contents.
fn same_key(a: &ServiceKey, b: &ServiceKey) -> bool {
    fn same(a: &str, b: &str) -> bool {
        std::ptr::eq(a, b)
    }
    let same_opt = |a: Option<&str>, b: Option<&str>| match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    };
    same(a.interface(), b.interface())
        && same_opt(a.group(), b.group())
        && same_opt(a.version(), b.version())
}

impl Filter for ChainMetrics {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        match self.locate(&invocation) {
            Some(found) => measure(self.store.clock(), found, invocation, next),
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
        invoker_fn, FilterChain, FilterSpec, Invoker, MethodSignature, Payload, RpcResponse, Stage,
        Value,
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
    fn a_cancelled_call_leaves_flight_without_an_outcome() {
        let store = Arc::new(MetricsStore::default().with_max_methods_per_service(1));
        let url = Url::parse("dubbo://127.0.0.1:20880/a.B?side=consumer&application=app").unwrap();
        let target = Arc::new(invoker_fn(url.clone(), |_| {
            std::future::pending::<RpcResult>()
        }));
        let spec = Arc::new(FilterSpec::new(
            METRICS_FILTER_NAME,
            0,
            &[Stage::Cluster],
            Arc::new(MetricsFilter::new(store.clone())),
        ));
        let chain = FilterChain::build(&[spec], Stage::Cluster, &url, target);
        // "m" is remembered by the chain; "other" is folded and held for the call.
        for method in ["m", "m", "other"] {
            let mut f = pin!(chain.invoke(call(method)));
            let waker = Waker::noop();
            assert!(f
                .as_mut()
                .poll(&mut Context::from_waker(waker))
                .is_pending());
            let in_flight: i64 = store
                .entries()
                .iter()
                .map(|(_, m)| m.snapshot(Instant::now()).processing)
                .sum();
            assert_eq!(in_flight, 1, "{method}");
        }
        for (key, m) in store.entries() {
            let s = m.snapshot(Instant::now());
            assert_eq!((s.processing, s.total), (0, 0), "{}", key.method);
        }
    }

    #[test]
    fn keys_sharing_storage_are_equal_and_others_are_compared() {
        let a = ServiceKey::new("a.B", Some("g"), Some("1.0"));
        let b = a.clone();
        let c = ServiceKey::new("a.B", Some("g"), Some("1.0"));
        let d = ServiceKey::new("a.B", None, Some("1.0"));
        assert!(same_key(&a, &b) && a == b);
        // Equal but separately built: not known by address, equal by content.
        assert!(!same_key(&a, &c) && a == c);
        assert!(!same_key(&a, &d) && a != d);
        assert!(same_key(&d, &d.clone()));
    }

    #[test]
    fn the_url_can_remove_the_filter() {
        let store = Arc::new(MetricsStore::default());
        let url = Url::parse(
            "dubbo://127.0.0.1:20880/a.B?side=consumer&application=app&reference.filter=-metrics",
        )
        .unwrap();
        let target = Arc::new(invoker_fn(url.clone(), |_| async {
            Ok(RpcResponse::new(Value::Null))
        }));
        let spec = Arc::new(FilterSpec::new(
            METRICS_FILTER_NAME,
            0,
            &[Stage::Cluster],
            Arc::new(MetricsFilter::new(store.clone())),
        ));
        let chain = FilterChain::build(&[spec], Stage::Cluster, &url, target);
        assert!(chain.is_empty());
        ready(chain.invoke(call("m"))).unwrap();
        assert!(store.entries().is_empty());
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

    /// A generic call is counted under the method it names, as Java counts it: through a
    /// chain (one `$invoke` signature naming several methods, the name given as a tree and
    /// as Hessian bytes off the wire) and through the shared filter; a generic call whose
    /// first argument is not a name stays `$invoke`.
    #[test]
    fn generic_calls_are_counted_under_the_method_they_name() {
        let generic = Arc::new(MethodSignature::generic_invoke());
        let invoke = |first: Payload| {
            Invocation::with_payloads(
                ServiceKey::new("a.B", Some("g"), None),
                generic.clone(),
                vec![first, Payload::null(), Payload::null()],
            )
        };
        let wire = |name: &str| {
            let bytes = dubbo_hessian2::to_vec(&Value::from(name)).unwrap();
            Payload::Hessian2(dubbo_hessian2::Encoded::new(bytes.into()))
        };
        let store = Arc::new(MetricsStore::default());
        let chain = chain(&store);
        ready(chain.invoke(call("sayHello"))).unwrap();
        ready(chain.invoke(invoke(Payload::Value(Value::from("sayHello"))))).unwrap();
        ready(chain.invoke(invoke(wire("sayHello")))).unwrap();
        ready(chain.invoke(invoke(Payload::Value(Value::from("other"))))).unwrap();
        ready(chain.invoke(invoke(wire("other")))).unwrap();
        ready(chain.invoke(invoke(Payload::Value(Value::Int(1))))).unwrap();
        let url = Url::parse("dubbo://127.0.0.1:20880/a.B?side=consumer&application=app").unwrap();
        let shared = FilterChain::build(
            &[Arc::new(FilterSpec::new(
                METRICS_FILTER_NAME,
                0,
                &[Stage::Cluster],
                Arc::new(SharedOnly(MetricsFilter::new(store.clone()))),
            ))],
            Stage::Cluster,
            &url,
            Arc::new(invoker_fn(url.clone(), |_| async {
                Ok(RpcResponse::new(Value::Null))
            })),
        );
        ready(shared.invoke(invoke(wire("other")))).unwrap();
        let mut counts: Vec<(String, u64)> = store
            .entries()
            .iter()
            .map(|(k, m)| (k.method.to_string(), m.snapshot(Instant::now()).total))
            .collect();
        counts.sort();
        assert_eq!(
            counts,
            [
                ("$invoke".to_owned(), 1),
                ("other".to_owned(), 3),
                ("sayHello".to_owned(), 3)
            ]
        );
    }

    /// The metrics filter without its per-chain form.
    struct SharedOnly(MetricsFilter);

    impl Filter for SharedOnly {
        fn invoke<'a>(
            &'a self,
            invocation: Invocation,
            next: Next<'a>,
        ) -> BoxFuture<'a, RpcResult> {
            self.0.invoke(invocation, next)
        }
    }
}
