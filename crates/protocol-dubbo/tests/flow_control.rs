//! The adaptive `flowcontrol` limits over a real dubbo:// server on 127.0.0.1: a provider
//! warmed by normal load, then hit by a spike of callers, keeps its calls in progress near what
//! it can serve and refuses the rest, but only while the CPUs are busy.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_core::filters::{
    builtin_filters, CpuUsage, FlowControlFilter, AUTO_CONCURRENCY_LIMIER, HEURISTIC_SMOOTHING,
};
use dubbo_core::{
    invoker_fn, ErrorCode, FilterChain, FilterSpec, Invocation, Invoker, MethodSignature, Protocol,
    RpcResponse, ServiceKey, Stage, Value,
};
use dubbo_protocol_dubbo::DubboProtocol;
use dubbo_url::Url;
use tokio::sync::Semaphore;

const SERVICE: &str = "org.example.Work";
/// The provider serves this many calls at once; more wait for a worker.
const WORKERS: usize = 4;
/// Each call's work.
const WORK: Duration = Duration::from_millis(10);
/// Callers of the warm-up (as many as there are workers: no queue) and of the spike.
const WARM_CALLERS: usize = WORKERS;
const SPIKE_CALLERS: usize = 64;

/// Calls admitted past the filters and not yet answered, and the most of them seen since the
/// last reset.
#[derive(Default)]
struct Admitted {
    now: AtomicUsize,
    peak: AtomicUsize,
}

fn work_service(url: Url, admitted: Arc<Admitted>) -> Arc<dyn Invoker> {
    let workers = Arc::new(Semaphore::new(WORKERS));
    Arc::new(invoker_fn(url, move |_inv: Invocation| {
        let admitted = admitted.clone();
        let workers = workers.clone();
        async move {
            let n = admitted.now.fetch_add(1, Ordering::SeqCst) + 1;
            admitted.peak.fetch_max(n, Ordering::SeqCst);
            let permit = workers.acquire().await.unwrap();
            tokio::time::sleep(WORK).await;
            drop(permit);
            admitted.now.fetch_sub(1, Ordering::SeqCst);
            Ok(RpcResponse::new(Value::String("done".into())))
        }
    }))
}

fn call() -> Invocation {
    Invocation::new(
        ServiceKey::interface_only(SERVICE),
        Arc::new(MethodSignature::new::<&str>(
            "work",
            &[],
            "java.lang.String",
        )),
        vec![],
    )
}

#[derive(Debug, Default)]
struct Outcome {
    served: usize,
    refused: usize,
    /// Other failures, with a message each.
    failed: Vec<String>,
    /// Latencies of the served calls, ms, sorted.
    latencies_ms: Vec<f64>,
}

impl Outcome {
    fn p50_ms(&self) -> f64 {
        self.latencies_ms
            .get(self.latencies_ms.len() / 2)
            .copied()
            .unwrap_or(f64::NAN)
    }
}

/// `callers` callers each call in a loop for `run`; a refused caller backs off 2 ms, as a
/// consumer would before trying elsewhere.
async fn drive(reference: &Arc<dyn Invoker>, callers: usize, run: Duration) -> Outcome {
    let end = Instant::now() + run;
    let tasks: Vec<_> = (0..callers)
        .map(|_| {
            let r = reference.clone();
            tokio::spawn(async move {
                let mut o = Outcome::default();
                while Instant::now() < end {
                    let t = Instant::now();
                    match r.invoke(call()).await {
                        Ok(_) => {
                            o.served += 1;
                            o.latencies_ms.push(t.elapsed().as_secs_f64() * 1e3);
                        }
                        Err(e) if e.code() == Some(ErrorCode::LimitExceeded) => {
                            assert!(e.message().contains("FlowControl"), "{e}");
                            o.refused += 1;
                            tokio::time::sleep(Duration::from_millis(2)).await;
                        }
                        Err(e) => o.failed.push(e.to_string()),
                    }
                }
                o
            })
        })
        .collect();
    let mut all = Outcome::default();
    for t in tasks {
        let o = t.await.unwrap();
        all.served += o.served;
        all.refused += o.refused;
        all.failed.extend(o.failed);
        all.latencies_ms.extend(o.latencies_ms);
    }
    all.latencies_ms.sort_by(f64::total_cmp);
    all
}

/// Exports the service at `url` behind the provider filters of `specs` and refers to it.
async fn export_and_refer(
    protocol: &DubboProtocol,
    url: &Url,
    specs: &[Arc<FilterSpec>],
    admitted: Arc<Admitted>,
) -> Arc<dyn Invoker> {
    let service: Arc<dyn Invoker> = Arc::new(FilterChain::build(
        specs,
        Stage::Provider,
        url,
        work_service(url.clone(), admitted),
    ));
    protocol.export(url.clone(), service).await.unwrap();
    let addr = protocol.server_addr(url).unwrap();
    let consumer = Url::parse(&format!(
        "dubbo://{addr}/{SERVICE}?timeout=5000&side=consumer"
    ))
    .unwrap();
    protocol.refer(consumer).await.unwrap()
}

/// Exports the service with `flowcontrol=algorithm` behind the built-in provider filters, the
/// flow control gated by a CPU usage fixed at `cpu`; warms it, then spikes it. Returns the
/// spike's outcome and the peak of admitted calls in its last second.
async fn warm_then_spike(algorithm: &str, cpu: f64) -> (Outcome, usize) {
    let protocol = DubboProtocol::new();
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:0/{SERVICE}?bind.port=0&side=provider&flowcontrol={algorithm}"
    ))
    .unwrap();
    let admitted = Arc::new(Admitted::default());
    let specs: Vec<Arc<FilterSpec>> = builtin_filters()
        .into_iter()
        .map(|spec| {
            if spec.name == "flowcontrol" {
                let f = FlowControlFilter::with_cpu_usage(Arc::new(CpuUsage::fixed(cpu)));
                Arc::new(
                    FilterSpec::new("flowcontrol", 0, &[Stage::Provider], Arc::new(f))
                        .when_url_has(&["flowcontrol"]),
                )
            } else {
                spec
            }
        })
        .collect();
    let reference = export_and_refer(&protocol, &url, &specs, admitted.clone()).await;

    let warm = drive(&reference, WARM_CALLERS, Duration::from_millis(1500)).await;
    assert!(warm.failed.is_empty(), "{:?}", warm.failed);
    // Calls do not queue, so the bound (1.3 times what the rate needs) admits the four callers;
    // only a call delayed by a busy machine can push one over it now and then.
    assert!(warm.refused * 20 <= warm.served, "{warm:?}");
    assert!(warm.served > 100, "{warm:?}");

    // The spike: its first second lets the bound settle; the peak is taken over the second one.
    let spike = {
        let reference = reference.clone();
        tokio::spawn(
            async move { drive(&reference, SPIKE_CALLERS, Duration::from_millis(2000)).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(1000)).await;
    admitted
        .peak
        .store(admitted.now.load(Ordering::SeqCst), Ordering::SeqCst);
    let outcome = spike.await.unwrap();
    let peak = admitted.peak.load(Ordering::SeqCst);
    eprintln!(
        "{algorithm} cpu {cpu}: warm {} served; spike {} served, {} refused, median {:.1} ms, peak admitted {peak}",
        warm.served,
        outcome.served,
        outcome.refused,
        outcome.p50_ms()
    );
    protocol.shutdown(Duration::ZERO).await;
    (outcome, peak)
}

async fn check_busy(algorithm: &str) {
    let (o, peak) = warm_then_spike(algorithm, 1.0).await;
    assert!(o.failed.is_empty(), "{algorithm}: {:?}", o.failed);
    assert!(
        o.refused > 0,
        "{algorithm}: a spike of {SPIKE_CALLERS} callers over {WORKERS} workers is refused in part"
    );
    // Four workers at 10 ms serve ~400 calls/s; the spike keeps them busy.
    assert!(o.served > 200, "{algorithm}: {} served", o.served);
    // Unlimited, all 64 callers would be admitted and wait ~160 ms each.
    assert!(peak <= 3 * WORKERS, "{algorithm}: {peak} admitted at once");
    assert!(
        o.p50_ms() < 60.0,
        "{algorithm}: served calls' median {:.1} ms",
        o.p50_ms()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heuristic_smoothing_refuses_a_spike_while_the_cpus_are_busy() {
    check_busy(HEURISTIC_SMOOTHING).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_concurrency_limier_refuses_a_spike_while_the_cpus_are_busy() {
    check_busy(AUTO_CONCURRENCY_LIMIER).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_cpus_refuse_nothing() {
    let (o, peak) = warm_then_spike(HEURISTIC_SMOOTHING, 0.0).await;
    assert!(o.failed.is_empty(), "{:?}", o.failed);
    assert_eq!(o.refused, 0);
    // Every caller is admitted and waits for a worker.
    assert!(peak > 40, "{peak} admitted at once");
    assert!(o.p50_ms() > 100.0, "median {:.1} ms", o.p50_ms());
}

#[tokio::test]
async fn an_unknown_name_fails_calls_with_a_config_error() {
    let protocol = DubboProtocol::new();
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:0/{SERVICE}?bind.port=0&side=provider&flowcontrol=autoConcurrencyLimiter"
    ))
    .unwrap();
    let reference = export_and_refer(&protocol, &url, &builtin_filters(), Arc::default()).await;
    let err = reference.invoke(call()).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Config), "{err}");
    assert!(
        err.message().contains("flowcontrol=autoConcurrencyLimiter"),
        "{err}"
    );
    protocol.shutdown(Duration::ZERO).await;
}

/// The gate's own sampler, on this machine: with every CPU spinning it reads busy within a
/// couple of its periods.
#[test]
fn the_sampler_sees_busy_cpus() {
    let usage = CpuUsage::start();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
    let spinners: Vec<_> = (0..cpus)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
                }
            })
        })
        .collect();
    let start = Instant::now();
    let mut seen = 0.0;
    while start.elapsed() < Duration::from_secs(4) {
        seen = usage.get();
        if seen >= dubbo_core::filters::BUSY_CPU {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    for s in spinners {
        s.join().unwrap();
    }
    assert!(
        seen >= dubbo_core::filters::BUSY_CPU,
        "usage {seen} with every CPU spinning"
    );
}
