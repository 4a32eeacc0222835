//! Nanoseconds the `metrics` filter adds to a call on its path: the same ready target called
//! through a chain with the filter and through an empty chain, minimum over many short runs
//! (on a shared machine the minimum is the run least disturbed by other processes).
//!
//! Built with mimalloc, as the benchmark programs (bench/) and production builds
//! (docs/guide.md) are: the filter allocates its future once per call.

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Instant;

use dubbo_core::{
    invoker_fn, FilterChain, FilterSpec, Invocation, Invoker, MethodSignature, RpcResponse,
    ServiceKey, Stage, Value,
};
use dubbo_metrics::{MetricsFilter, MetricsStore, METRICS_FILTER_NAME};
use dubbo_url::Url;

/// Runs a future that never waits (the target answers at once).
fn ready<F: Future>(f: F) -> Option<F::Output> {
    match pin!(f)
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(out) => Some(out),
        Poll::Pending => None,
    }
}

fn chain(with_metrics: bool, store: &Arc<MetricsStore>) -> Option<FilterChain> {
    let url = Url::parse(
        "dubbo://127.0.0.1:20880/org.apache.dubbo.interop.InteropService?side=consumer&application=bench",
    )
    .ok()?;
    let target = Arc::new(invoker_fn(url.clone(), |_| async {
        Ok(RpcResponse::new(Value::Null))
    }));
    let specs = if with_metrics {
        vec![Arc::new(FilterSpec::new(
            METRICS_FILTER_NAME,
            0,
            &[Stage::Cluster],
            Arc::new(MetricsFilter::new(store.clone())),
        ))]
    } else {
        Vec::new()
    };
    Some(FilterChain::build(&specs, Stage::Cluster, &url, target))
}

/// Nanoseconds per call of one run of `N` calls.
fn run_ns(chain: &FilterChain, call: &Invocation) -> f64 {
    const N: u32 = 20_000;
    let t = Instant::now();
    for _ in 0..N {
        std::hint::black_box(ready(chain.invoke(call.clone())));
    }
    t.elapsed().as_nanos() as f64 / f64::from(N)
}

/// The best run of each chain. Runs alternate between the two, so a burst of load from other
/// processes, or a change of clock speed, falls on both alike.
fn best_ns(with: &FilterChain, without: &FilterChain, call: &Invocation) -> (f64, f64) {
    let (mut a, mut b) = (f64::MAX, f64::MAX);
    for _ in 0..200 {
        a = a.min(run_ns(with, call));
        b = b.min(run_ns(without, call));
    }
    (a, b)
}

fn main() {
    let store = Arc::new(MetricsStore::default());
    let (Some(with), Some(without)) = (chain(true, &store), chain(false, &store)) else {
        eprintln!("cannot build the chains");
        return;
    };
    let call = Invocation::new(
        ServiceKey::new(
            "org.apache.dubbo.interop.InteropService",
            None,
            Some("1.0.0"),
        ),
        Arc::new(MethodSignature::new(
            "sayHello",
            &["java.lang.String"],
            "java.lang.String",
        )),
        vec![Value::String("world".into())],
    );
    let (a, b) = best_ns(&with, &without, &call);
    println!("call through a chain with the metrics filter: {a:.1} ns (min of 200 runs)");
    println!("call through an empty chain: {b:.1} ns");
    println!(
        "the metrics filter adds: {:.1} ns per call (two clock reads included; mimalloc)",
        a - b
    );
}
