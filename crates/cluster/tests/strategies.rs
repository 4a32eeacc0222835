//! Fault-tolerance strategies over in-process fake providers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_cluster::router::RouterChain;
use dubbo_cluster::strategy::{register_strategies, ClusterStrategy, Failback};
use dubbo_cluster::ClusterInvoker;
use dubbo_core::{
    invoker_fn, ErrorCode, Extensions, Invocation, Invoker, InvokerList, LoadBalance, RpcError,
    RpcResponse, StaticDirectory, Value,
};
use dubbo_url::Url;
use tokio_util::sync::CancellationToken;

mod common;
use common::{call, SERVICE};

/// A minimal random balancer, registered here until the framework's balancers land.
struct TestRandom(AtomicUsize);
impl LoadBalance for TestRandom {
    fn select(&self, invokers: &InvokerList, _: &Invocation) -> Option<Arc<dyn Invoker>> {
        // A cheap LCG: different providers first across calls, deterministic across runs.
        let n = self
            .0
            .fetch_add(0x9E37_79B9, Ordering::Relaxed)
            .wrapping_mul(2_654_435_761);
        invokers.get((n >> 7) % invokers.len().max(1)).cloned()
    }
}

fn extensions() -> Extensions {
    let ext = Extensions::new();
    register_strategies(&ext);
    ext.register::<dyn LoadBalance>("random", Arc::new(TestRandom(AtomicUsize::new(1))));
    ext
}

/// How a fake provider answers.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Ok,
    Down,
    Business,
    Slow(u64),
}

struct Fake {
    mode: Arc<Mutex<Mode>>,
    calls: Arc<AtomicUsize>,
}

fn fake(port: u16, mode: Mode) -> (Arc<dyn Invoker>, Fake) {
    let url = Url::parse(&format!("dubbo://127.0.0.1:{port}/{SERVICE}")).unwrap();
    let m = Arc::new(Mutex::new(mode));
    let calls = Arc::new(AtomicUsize::new(0));
    let (m2, c2) = (m.clone(), calls.clone());
    let inv = invoker_fn(url, move |_inv: Invocation| {
        let mode = *m2.lock().unwrap();
        c2.fetch_add(1, Ordering::SeqCst);
        async move {
            match mode {
                Mode::Ok => Ok(RpcResponse::new(Value::String(format!("from {port}")))),
                Mode::Down => Err(RpcError::framework(
                    ErrorCode::Network,
                    "connection refused",
                )),
                Mode::Business => Err(RpcError::business("java.lang.IllegalStateException", "no")),
                Mode::Slow(ms) => {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(RpcResponse::new(Value::String(format!("from {port}"))))
                }
            }
        }
    });
    (Arc::new(inv), Fake { mode: m, calls })
}

fn cluster(query: &str, modes: &[Mode]) -> (ClusterInvoker, Vec<Fake>) {
    let mut invokers = Vec::new();
    let mut fakes = Vec::new();
    for (i, m) in modes.iter().enumerate() {
        let (inv, f) = fake(20000 + u16::try_from(i).unwrap(), *m);
        invokers.push(inv);
        fakes.push(f);
    }
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:20000/{SERVICE}?interface={SERVICE}&{query}"
    ))
    .unwrap();
    let dir = Arc::new(StaticDirectory::new(url, invokers));
    let invoker = ClusterInvoker::new(dir, Arc::new(RouterChain::new()), &extensions()).unwrap();
    (invoker, fakes)
}

fn calls(f: &[Fake]) -> Vec<usize> {
    f.iter().map(|f| f.calls.load(Ordering::SeqCst)).collect()
}

#[tokio::test]
async fn failover_never_repeats_a_provider_and_reports_the_last_code() {
    for _ in 0..20 {
        let (c, f) = cluster("", &[Mode::Down, Mode::Down, Mode::Down, Mode::Down]);
        let err = c.invoke(call()).await.unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::Network));
        assert!(err.message().contains(SERVICE), "{err}");
        let n = calls(&f);
        assert_eq!(n.iter().sum::<usize>(), 3, "retries=2 means three attempts");
        assert!(
            n.iter().all(|c| *c <= 1),
            "a provider was tried twice: {n:?}"
        );
    }
}

#[tokio::test]
async fn failover_stops_at_the_calls_deadline_and_reports_the_timeout() {
    let url = Url::parse(&format!("dubbo://127.0.0.1:20000/{SERVICE}")).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let mut invokers: Vec<Arc<dyn Invoker>> = Vec::new();
    for port in [20000u16, 20001, 20002] {
        let calls = calls.clone();
        let url = url.with_port(port);
        invokers.push(Arc::new(invoker_fn(url, move |inv: Invocation| {
            calls.fetch_add(1, Ordering::SeqCst);
            let deadline = inv.context().deadline();
            async move {
                // A provider that answers after the deadline: the attempt times out at it.
                if let Some(d) = deadline {
                    tokio::time::sleep_until(d.into()).await;
                }
                Err(RpcError::framework(ErrorCode::Timeout, "timed out"))
            }
        })));
    }
    let consumer = Url::parse(&format!(
        "dubbo://127.0.0.1:20000/{SERVICE}?interface={SERVICE}"
    ))
    .unwrap();
    let dir = Arc::new(StaticDirectory::new(consumer, invokers));
    let c = ClusterInvoker::new(dir, Arc::new(RouterChain::new()), &extensions()).unwrap();
    let mut inv = call();
    inv.context_mut()
        .set_deadline(std::time::Instant::now() + Duration::from_millis(50));
    let err = c.invoke(inv).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Timeout), "{err}");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "no attempt after the deadline"
    );
}

#[tokio::test]
async fn failover_reaches_the_one_provider_up() {
    for _ in 0..20 {
        let (c, f) = cluster("", &[Mode::Down, Mode::Ok, Mode::Down]);
        let r = c.invoke(call()).await.unwrap();
        assert_eq!(r.value, Value::String("from 20001".into()));
        assert_eq!(f[1].calls.load(Ordering::SeqCst), 1);
    }
}

#[tokio::test]
async fn failover_does_not_retry_business_exceptions() {
    let (c, f) = cluster("", &[Mode::Business, Mode::Business, Mode::Business]);
    let err = c.invoke(call()).await.unwrap_err();
    assert!(err.is_business());
    assert_eq!(calls(&f).iter().sum::<usize>(), 1);
}

#[tokio::test]
async fn method_level_retries_override_the_reference() {
    let (c, f) = cluster(
        "retries=5&sayHello.retries=0",
        &[Mode::Down, Mode::Down, Mode::Down],
    );
    c.invoke(call()).await.unwrap_err();
    assert_eq!(calls(&f).iter().sum::<usize>(), 1);
}

#[tokio::test]
async fn failfast_tries_once() {
    let (c, f) = cluster("cluster=failfast", &[Mode::Down, Mode::Down]);
    assert_eq!(
        c.invoke(call()).await.unwrap_err().code(),
        Some(ErrorCode::Network)
    );
    assert_eq!(calls(&f).iter().sum::<usize>(), 1);
}

#[tokio::test]
async fn failsafe_returns_null_on_framework_failure_only() {
    let (c, _) = cluster("cluster=failsafe", &[Mode::Down]);
    assert_eq!(c.invoke(call()).await.unwrap().value, Value::Null);
    let (c, _) = cluster("cluster=failsafe", &[Mode::Business]);
    assert!(c.invoke(call()).await.unwrap_err().is_business());
}

#[tokio::test(start_paused = true)]
async fn failback_retries_after_the_failure_clears() {
    let (inv, f) = fake(20100, Mode::Down);
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:20100/{SERVICE}?interface={SERVICE}"
    ))
    .unwrap();
    let dir = Arc::new(StaticDirectory::new(url, vec![inv]));
    let strategy = Arc::new(Failback::new(3, 10, Duration::from_secs(5)));
    let c = ClusterInvoker::with_strategy(
        dir,
        Arc::new(RouterChain::new()),
        &extensions(),
        strategy.clone(),
    )
    .unwrap();
    let stop = CancellationToken::new();
    let work = c.background().expect("failback has a retry timer");
    let task = tokio::spawn(work(stop.clone()));
    assert!(c.background().is_none(), "taken once");

    let r = c.invoke(call()).await.unwrap();
    assert_eq!(r.value, Value::Null, "a failed call answers null at once");
    assert_eq!(strategy.queued(), 1);
    assert_eq!(f.calls.load(Ordering::SeqCst), 1);

    tokio::time::sleep(Duration::from_millis(5100)).await;
    assert_eq!(f.calls.load(Ordering::SeqCst), 2, "first retry after 5 s");
    assert_eq!(strategy.queued(), 1, "still failing, still queued");

    *f.mode.lock().unwrap() = Mode::Ok;
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(f.calls.load(Ordering::SeqCst), 3);
    assert_eq!(strategy.queued(), 0, "succeeded, dequeued");

    tokio::time::sleep(Duration::from_secs(30)).await;
    assert_eq!(f.calls.load(Ordering::SeqCst), 3, "no more retries");
    stop.cancel();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn failback_gives_up_after_its_retries_and_bounds_its_queue() {
    let (inv, f) = fake(20101, Mode::Down);
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:20101/{SERVICE}?interface={SERVICE}"
    ))
    .unwrap();
    let dir = Arc::new(StaticDirectory::new(url, vec![inv]));
    let strategy = Arc::new(Failback::new(2, 1, Duration::from_secs(5)));
    let c = ClusterInvoker::with_strategy(
        dir,
        Arc::new(RouterChain::new()),
        &extensions(),
        strategy.clone(),
    )
    .unwrap();
    let stop = CancellationToken::new();
    let task = tokio::spawn(c.background().unwrap()(stop.clone()));
    c.invoke(call()).await.unwrap();
    c.invoke(call()).await.unwrap();
    assert_eq!(strategy.queued(), 1, "the second failure did not fit");
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(
        f.calls.load(Ordering::SeqCst),
        2 + 2,
        "two calls, two retries of one"
    );
    assert_eq!(strategy.queued(), 0);
    strategy.destroy();
    task.await.unwrap();
    drop(stop);
}

#[tokio::test]
async fn forking_returns_the_first_success() {
    let (c, f) = cluster(
        "cluster=forking&forks=3&timeout=2000",
        &[Mode::Slow(300), Mode::Slow(10), Mode::Down],
    );
    let start = std::time::Instant::now();
    let r = c.invoke(call()).await.unwrap();
    assert_eq!(r.value, Value::String("from 20001".into()));
    assert!(start.elapsed() < Duration::from_millis(250));
    assert_eq!(calls(&f), vec![1, 1, 1]);
}

#[tokio::test]
async fn forking_times_out_and_reports_all_failures() {
    let (c, _) = cluster(
        "cluster=forking&timeout=50",
        &[Mode::Slow(500), Mode::Slow(500)],
    );
    assert_eq!(
        c.invoke(call()).await.unwrap_err().code(),
        Some(ErrorCode::Timeout)
    );
    let (c, _) = cluster("cluster=forking&forks=0", &[Mode::Down, Mode::Down]);
    assert_eq!(
        c.invoke(call()).await.unwrap_err().code(),
        Some(ErrorCode::Network)
    );
}

#[tokio::test]
async fn broadcast_calls_everyone_and_fails_if_any_fails() {
    let (c, f) = cluster("cluster=broadcast", &[Mode::Ok, Mode::Ok, Mode::Ok]);
    c.invoke(call()).await.unwrap();
    assert_eq!(calls(&f), vec![1, 1, 1]);
    let (c, f) = cluster("cluster=broadcast", &[Mode::Ok, Mode::Business, Mode::Ok]);
    assert!(c.invoke(call()).await.unwrap_err().is_business());
    assert_eq!(calls(&f), vec![1, 1, 1], "the others are still called");
    let (c, f) = cluster(
        "cluster=broadcast&broadcast.fail.percent=0",
        &[Mode::Down, Mode::Ok, Mode::Ok],
    );
    assert!(c.invoke(call()).await.is_err());
    assert_eq!(calls(&f), vec![1, 0, 0], "stops at the first failure");
}

#[tokio::test]
async fn available_takes_the_first_available() {
    let (c, f) = cluster("cluster=available", &[Mode::Ok, Mode::Ok]);
    for _ in 0..5 {
        c.invoke(call()).await.unwrap();
    }
    assert_eq!(calls(&f), vec![5, 0]);
}

#[tokio::test]
async fn no_provider_names_the_service() {
    for cluster_name in ["failover", "failfast", "forking", "broadcast", "available"] {
        let (c, _) = cluster(&format!("cluster={cluster_name}"), &[]);
        let err = c.invoke(call()).await.unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::NoProvider), "{cluster_name}");
        assert!(err.message().contains(SERVICE), "{cluster_name}: {err}");
    }
}

#[tokio::test]
async fn unavailable_providers_are_skipped() {
    struct Gone(Url, Arc<AtomicBool>);
    impl Invoker for Gone {
        fn invoke(&self, _: Invocation) -> dubbo_core::BoxFuture<'_, dubbo_core::RpcResult> {
            self.1.store(true, Ordering::SeqCst);
            Box::pin(async { Err(RpcError::framework(ErrorCode::Network, "down")) })
        }
        fn url(&self) -> &Url {
            &self.0
        }
        fn is_available(&self) -> bool {
            false
        }
    }
    let touched = Arc::new(AtomicBool::new(false));
    let gone: Arc<dyn Invoker> = Arc::new(Gone(
        Url::parse(&format!("dubbo://127.0.0.1:1/{SERVICE}")).unwrap(),
        touched.clone(),
    ));
    let (up, _) = fake(2, Mode::Ok);
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:1/{SERVICE}?interface={SERVICE}"
    ))
    .unwrap();
    let dir = Arc::new(StaticDirectory::new(url, vec![gone, up]));
    let c = ClusterInvoker::new(dir, Arc::new(RouterChain::new()), &extensions()).unwrap();
    for _ in 0..10 {
        c.invoke(call()).await.unwrap();
    }
    assert!(!touched.load(Ordering::SeqCst));
}

#[tokio::test]
async fn mock_answers_locally() {
    let (c, f) = cluster("mock=force:return 42", &[Mode::Ok]);
    assert_eq!(c.invoke(call()).await.unwrap().value, Value::Int(42));
    assert_eq!(calls(&f), vec![0]);
    let (c, _) = cluster("mock=fail:return \"fallback\"", &[Mode::Down]);
    assert_eq!(
        c.invoke(call()).await.unwrap().value,
        Value::String("fallback".into())
    );
    let (c, _) = cluster("mock=fail:return empty", &[Mode::Business]);
    assert!(c.invoke(call()).await.unwrap_err().is_business());
    let (c, _) = cluster("mock=throw", &[Mode::Down]);
    assert!(c.invoke(call()).await.unwrap_err().is_business());
}

#[test]
fn unknown_names_are_config_errors() {
    let url = Url::parse(&format!("dubbo://127.0.0.1:1/{SERVICE}?cluster=nope")).unwrap();
    let dir = Arc::new(StaticDirectory::new(url, vec![]));
    let err = ClusterInvoker::new(dir, Arc::new(RouterChain::new()), &extensions()).unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Config));
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:1/{SERVICE}?sayHello.loadbalance=nope"
    ))
    .unwrap();
    let dir = Arc::new(StaticDirectory::new(url, vec![]));
    let err = ClusterInvoker::new(dir, Arc::new(RouterChain::new()), &extensions()).unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Config));
}

/// `GET /greetings/{name}`: an idempotent verb.
static GET_GREETING: dubbo_core::rest::RestMethod = dubbo_core::rest::RestMethod {
    java_name: "sayHello",
    verb: Some("GET"),
    path: "/greetings/{name}",
    params: &[],
    consumes: &[],
    produces: &[],
    status: 0,
    headers: &[],
    returns: "String",
    returns_schema: None,
    cors: None,
    overloaded: false,
};

/// `POST /greetings`: not idempotent.
static POST_GREETING: dubbo_core::rest::RestMethod = dubbo_core::rest::RestMethod {
    java_name: "sayHello",
    verb: Some("POST"),
    path: "/greetings",
    params: &[],
    consumes: &[],
    produces: &[],
    status: 0,
    headers: &[],
    returns: "String",
    returns_schema: None,
    cors: None,
    overloaded: false,
};

fn rest_call(mapping: &'static dubbo_core::rest::RestMethod) -> Invocation {
    Invocation::new(
        dubbo_core::ServiceKey::interface_only(SERVICE),
        Arc::new(
            dubbo_core::MethodSignature::new("sayHello", &["java.lang.String"], "java.lang.String")
                .with_rest(mapping),
        ),
        vec!["x".into()],
    )
}

/// A `rest://` provider failing every call with `error`.
fn rest_provider(error: RpcError) -> (Arc<dyn Invoker>, Arc<AtomicUsize>) {
    let url = Url::parse(&format!("rest://127.0.0.1:20110/{SERVICE}")).unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let inv = invoker_fn(url, move |_inv: Invocation| {
        counted.fetch_add(1, Ordering::SeqCst);
        let e = error.clone();
        async move { Err(e) }
    });
    (Arc::new(inv), calls)
}

#[tokio::test(start_paused = true)]
async fn failback_resends_to_rest_providers_only_connection_failures_of_idempotent_verbs() {
    let network = || RpcError::framework(ErrorCode::Network, "connection refused");
    // (the failure, the call, whether it is queued for a retry)
    let cases = [
        (network(), &GET_GREETING, true),
        (network(), &POST_GREETING, false),
        // An HTTP answer is the service's word: 503 and 404 are not retried.
        (
            RpcError::framework(ErrorCode::ShuttingDown, "HTTP 503"),
            &GET_GREETING,
            false,
        ),
        (
            RpcError::business(
                "org.apache.dubbo.remoting.http12.exception.HttpStatusException",
                "404",
            ),
            &GET_GREETING,
            false,
        ),
    ];
    for (error, mapping, queued) in cases {
        let (inv, calls) = rest_provider(error.clone());
        let url = Url::parse(&format!(
            "rest://127.0.0.1:20110/{SERVICE}?interface={SERVICE}"
        ))
        .unwrap();
        let dir = Arc::new(StaticDirectory::new(url, vec![inv]));
        let strategy = Arc::new(Failback::new(3, 10, Duration::from_secs(5)));
        let c = ClusterInvoker::with_strategy(
            dir,
            Arc::new(RouterChain::new()),
            &extensions(),
            strategy.clone(),
        )
        .unwrap();
        let stop = CancellationToken::new();
        let task = tokio::spawn(c.background().unwrap()(stop.clone()));
        let result = c.invoke(rest_call(mapping)).await;
        let what = format!("{} {}: {error}", mapping.client_verb(), mapping.path);
        if queued {
            assert_eq!(result.unwrap().value, Value::Null, "{what}: null at once");
            assert_eq!(strategy.queued(), 1, "{what}");
            tokio::time::sleep(Duration::from_millis(5100)).await;
            assert_eq!(calls.load(Ordering::SeqCst), 2, "{what}: resent after 5 s");
        } else {
            let e = result.unwrap_err();
            assert_eq!(e.code(), error.code(), "{what}: the failure itself");
            assert_eq!(strategy.queued(), 0, "{what}: not queued");
            tokio::time::sleep(Duration::from_secs(30)).await;
            assert_eq!(calls.load(Ordering::SeqCst), 1, "{what}: sent once");
        }
        stop.cancel();
        task.await.unwrap();
    }
}
