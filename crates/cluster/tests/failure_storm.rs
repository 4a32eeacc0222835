//! Callers that retry failing calls in a tight loop must not starve the runtime's other tasks
//! (registry sessions, watches, heartbeats, timers), whatever the runtime's shape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use dubbo_cluster::router::RouterChain;
use dubbo_cluster::strategy::register_strategies;
use dubbo_cluster::ClusterInvoker;
use dubbo_core::{
    invoker_fn, ErrorCode, Extensions, Invocation, Invoker, RpcError, StaticDirectory,
};
use dubbo_url::Url;
use tokio::runtime::{Builder, Runtime};

mod common;
use common::{call, SERVICE};

/// What the reference's providers are while the callers loop.
#[derive(Clone, Copy, Debug)]
enum Providers {
    /// None at all: every call is `NoProvider` before any I/O.
    None,
    /// Two that refuse every call at once, as a client in reconnect backoff does.
    Refusing,
}

fn cluster(providers: Providers) -> Arc<ClusterInvoker> {
    let extensions = Extensions::new();
    register_strategies(&extensions);
    let consumer = Url::parse(&format!(
        "consumer://127.0.0.1/{SERVICE}?interface={SERVICE}"
    ))
    .unwrap();
    let invokers: Vec<Arc<dyn Invoker>> = match providers {
        Providers::None => Vec::new(),
        Providers::Refusing => (0..2)
            .map(|i| {
                let url =
                    Url::parse(&format!("dubbo://127.0.0.1:{}/{SERVICE}", 20880 + i)).unwrap();
                Arc::new(invoker_fn(url, |_: Invocation| async {
                    Err(RpcError::framework(
                        ErrorCode::Network,
                        "connection refused",
                    ))
                })) as Arc<dyn Invoker>
            })
            .collect(),
    };
    let directory = Arc::new(StaticDirectory::new(consumer, invokers));
    Arc::new(ClusterInvoker::new(directory, Arc::new(RouterChain::new()), &extensions).unwrap())
}

/// Runs `callers` tasks that call `providers` in a loop until a 50 ms timer task says stop,
/// on `runtime`; returns the calls made, or `None` when the timer never got to run within
/// ten seconds (the callers starved it).
fn storm(runtime: Runtime, callers: usize, providers: Providers) -> Option<usize> {
    let (done, finished) = mpsc::channel();
    // The runtime lives on a thread of its own, so that a starved one cannot hang the test.
    std::thread::spawn(move || {
        let invoker = cluster(providers);
        let stop = Arc::new(AtomicBool::new(false));
        let calls = Arc::new(AtomicUsize::new(0));
        runtime.block_on(async {
            let mut tasks = Vec::new();
            for _ in 0..callers {
                let (invoker, stop, calls) = (invoker.clone(), stop.clone(), calls.clone());
                tasks.push(tokio::spawn(async move {
                    while !stop.load(Ordering::Relaxed) {
                        let error = invoker.invoke(call()).await.unwrap_err();
                        assert!(error.code().is_some(), "{error}");
                        calls.fetch_add(1, Ordering::Relaxed);
                    }
                }));
            }
            let timer = tokio::spawn({
                let stop = stop.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    stop.store(true, Ordering::Relaxed);
                }
            });
            timer.await.unwrap();
            for t in tasks {
                t.await.unwrap();
            }
        });
        let _ = done.send(calls.load(Ordering::Relaxed));
    });
    finished.recv_timeout(Duration::from_secs(10)).ok()
}

fn multi_thread(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap()
}

fn current_thread() -> Runtime {
    Builder::new_current_thread().enable_all().build().unwrap()
}

#[test]
fn no_provider_storm_on_one_worker_lets_a_timer_run() {
    let calls = storm(multi_thread(1), 4, Providers::None);
    assert!(
        calls.is_some_and(|n| n > 0),
        "the timer task never ran: {calls:?}"
    );
}

#[test]
fn no_provider_storm_on_two_workers_lets_a_timer_run() {
    let calls = storm(multi_thread(2), 4, Providers::None);
    assert!(
        calls.is_some_and(|n| n > 0),
        "the timer task never ran: {calls:?}"
    );
}

#[test]
fn no_provider_storm_on_a_current_thread_runtime_lets_a_timer_run() {
    let calls = storm(current_thread(), 4, Providers::None);
    assert!(
        calls.is_some_and(|n| n > 0),
        "the timer task never ran: {calls:?}"
    );
}

#[test]
fn refusing_providers_storm_on_one_worker_lets_a_timer_run() {
    let calls = storm(multi_thread(1), 4, Providers::Refusing);
    assert!(
        calls.is_some_and(|n| n > 0),
        "the timer task never ran: {calls:?}"
    );
}

#[test]
fn refusing_providers_storm_on_a_current_thread_runtime_lets_a_timer_run() {
    let calls = storm(current_thread(), 4, Providers::Refusing);
    assert!(
        calls.is_some_and(|n| n > 0),
        "the timer task never ran: {calls:?}"
    );
}
