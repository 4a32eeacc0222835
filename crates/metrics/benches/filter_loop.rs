//! Nanoseconds the `metrics` filter adds to a call on its path: the same ready target called
//! through a chain with the filter and through an empty chain, minimum over many short runs
//! (on a shared machine the minimum is the run least disturbed by other processes).
//!
//! Built with mimalloc, as the benchmark programs (bench/) and production builds
//! (docs/guide.md) are, so any allocation on the path costs what it does there.
//!
//! Each run is timed twice: by the wall clock and by this thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`). On a machine shared with other work the CPU time is the
//! steadier of the two: time the thread spends waiting for a core is not counted.

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

/// This thread's CPU time in nanoseconds.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Calls per run.
const N: u32 = 20_000;
/// Runs of each chain, each way.
const RUNS: u64 = 200;

/// Wall and thread-CPU nanoseconds per call of one run of `N` calls.
fn run_ns(chain: &FilterChain, call: &Invocation) -> (f64, f64) {
    let cpu = thread_cpu_ns();
    let t = Instant::now();
    for _ in 0..N {
        std::hint::black_box(ready(chain.invoke(call.clone())));
    }
    let wall = t.elapsed().as_nanos() as f64;
    let cpu = thread_cpu_ns().saturating_sub(cpu) as f64;
    (wall / f64::from(N), cpu / f64::from(N))
}

/// The best run of each chain, by wall time and by CPU time (each minimum taken on its own):
/// `(with wall, without wall, with cpu, without cpu)`. Runs alternate between the two, so a
/// burst of load from other processes, or a change of clock speed, falls on both alike.
fn best_ns(with: &FilterChain, without: &FilterChain, call: &Invocation) -> [f64; 4] {
    let mut best = [f64::MAX; 4];
    for _ in 0..RUNS {
        let (aw, ac) = run_ns(with, call);
        let (bw, bc) = run_ns(without, call);
        best[0] = best[0].min(aw);
        best[1] = best[1].min(bw);
        best[2] = best[2].min(ac);
        best[3] = best[3].min(bc);
    }
    best
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
    let [aw, bw, ac, bc] = best_ns(&with, &without, &call);
    println!("call through a chain with the metrics filter: {aw:.1} ns wall, {ac:.1} ns thread CPU (min of 200 runs)");
    println!("call through an empty chain: {bw:.1} ns wall, {bc:.1} ns thread CPU");
    println!(
        "the metrics filter adds: {:.1} ns wall, {:.1} ns thread CPU per call (mimalloc)",
        aw - bw,
        ac - bc
    );
    // Every call through the chain with the filter must have been recorded.
    let recorded: u64 = store
        .entries()
        .iter()
        .map(|(_, m)| m.snapshot(Instant::now()).succeeded)
        .sum();
    println!("calls recorded: {recorded} of {}", RUNS * u64::from(N));
}
