//! Calls of one burst sharing a draw keep every provider's share of the calls at its weight.
//!
//! The providers are in-process: each reports an open write while the test says a burst is
//! under way, as a dubbo:// provider does while its connection's writer has not flushed.
//! The real connections are exercised by `over_dubbo.rs`; this measures shares over many
//! thousands of calls, which only an in-process provider makes quick.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use dubbo_cluster::loadbalance::register_load_balancers;
use dubbo_cluster::router::RouterChain;
use dubbo_cluster::strategy::{register_strategies, MAX_BURST_JOINS};
use dubbo_cluster::ClusterInvoker;
use dubbo_core::{
    BoxFuture, Extensions, Invocation, Invoker, RpcResponse, RpcResult, StaticDirectory,
    StatsStore, Value,
};
use dubbo_url::Url;

mod common;
use common::{call, SERVICE};

/// A provider answering with its port, whose write is open while `burst` is set.
struct Provider {
    url: Url,
    port: u16,
    burst: Arc<AtomicBool>,
}

impl Invoker for Provider {
    fn invoke(&self, _invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        let port = i32::from(self.port);
        Box::pin(async move { Ok(RpcResponse::new(Value::Int(port))) })
    }
    fn url(&self) -> &Url {
        &self.url
    }
    fn has_open_write(&self) -> bool {
        self.burst.load(Ordering::Relaxed)
    }
}

fn cluster(weights: &[u32], query: &str) -> (ClusterInvoker, Arc<AtomicBool>) {
    let burst = Arc::new(AtomicBool::new(false));
    let invokers: Vec<Arc<dyn Invoker>> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let port = 20000 + u16::try_from(i).unwrap();
            Arc::new(Provider {
                url: Url::parse(&format!("dubbo://127.0.0.1:{port}/{SERVICE}?weight={w}")).unwrap(),
                port,
                burst: burst.clone(),
            }) as _
        })
        .collect();
    let consumer = Url::parse(&format!(
        "dubbo://127.0.0.1:20000/{SERVICE}?interface={SERVICE}&{query}"
    ))
    .unwrap();
    let ext = Extensions::new();
    register_strategies(&ext);
    register_load_balancers(&ext, Arc::new(StatsStore::new()));
    let cluster = ClusterInvoker::new(
        Arc::new(StaticDirectory::new(consumer, invokers)),
        Arc::new(RouterChain::new()),
        &ext,
    )
    .unwrap();
    (cluster, burst)
}

/// The ports that answered `runs` runs of `size` calls each, the calls after each run's
/// first made while a write is open.
async fn runs(
    cluster: &ClusterInvoker,
    burst: &AtomicBool,
    runs: usize,
    size: usize,
) -> Vec<Vec<i32>> {
    let mut out = Vec::with_capacity(runs);
    for _ in 0..runs {
        let mut run = Vec::with_capacity(size);
        for k in 0..size {
            // The first call finds every write flushed and draws; its frame opens the write
            // that the calls after it find.
            burst.store(k > 0, Ordering::Relaxed);
            match cluster
                .invoke(call())
                .await
                .unwrap()
                .value
                .into_value()
                .unwrap()
            {
                Value::Int(port) => run.push(port),
                other => panic!("unexpected answer {other:?}"),
            }
        }
        // The writer flushed: the next run draws anew.
        burst.store(false, Ordering::Relaxed);
        out.push(run);
    }
    out
}

#[tokio::test]
async fn bursts_share_one_draw_and_the_shares_stay_those_of_the_weights() {
    let weights = [100, 200, 300];
    let (cluster, burst) = cluster(&weights, "");
    let size = MAX_BURST_JOINS + 1;
    let seen = runs(&cluster, &burst, 96_000 / size, size).await;
    let mut counts: BTreeMap<i32, usize> = BTreeMap::new();
    for run in &seen {
        assert!(
            run.iter().all(|p| *p == run[0]),
            "one draw and its joins: {run:?}"
        );
        for p in run {
            *counts.entry(*p).or_default() += 1;
        }
    }
    let total: usize = counts.values().sum();
    let weight_sum: u32 = weights.iter().sum();
    for (i, w) in weights.iter().enumerate() {
        let port = 20000 + i32::try_from(i).unwrap();
        let share = counts.get(&port).copied().unwrap_or(0) as f64 / total as f64;
        let want = f64::from(*w) / f64::from(weight_sum);
        assert!(
            (share - want).abs() < 0.03,
            "provider {port}: share {share:.3}, weight share {want:.3} ({counts:?})"
        );
    }
}

#[tokio::test]
async fn a_run_longer_than_the_joins_draws_again_and_a_closed_write_is_not_joined() {
    let (cluster, burst) = cluster(&[100, 100, 100], "");
    // With the write closed, every call draws: runs of 30 see every provider.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..30 {
        if let Value::Int(p) = cluster
            .invoke(call())
            .await
            .unwrap()
            .value
            .into_value()
            .unwrap()
        {
            seen.insert(p);
        }
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
    // Runs of 17 with the write open: the 17th call draws again, so over many runs some
    // run ends on another provider.
    let long = runs(&cluster, &burst, 40, MAX_BURST_JOINS + 2).await;
    for run in &long {
        let first = &run[..=MAX_BURST_JOINS];
        assert!(first.iter().all(|p| *p == first[0]), "{run:?}");
    }
    assert!(
        long.iter().any(|run| run[MAX_BURST_JOINS + 1] != run[0]),
        "a draw is shared by at most {MAX_BURST_JOINS} calls after it"
    );
}

#[tokio::test]
async fn round_robin_and_least_active_never_share_a_pick() {
    for lb in ["roundrobin", "leastactive"] {
        let (cluster, burst) = cluster(&[100, 100, 100], &format!("loadbalance={lb}"));
        let seen = runs(&cluster, &burst, 10, 21).await;
        for run in &seen {
            let mut per: BTreeMap<i32, usize> = BTreeMap::new();
            for p in run {
                *per.entry(*p).or_default() += 1;
            }
            if lb == "roundrobin" {
                assert!(per.values().all(|&n| n == 7), "{lb}: {run:?}");
            } else {
                assert!(per.len() > 1, "{lb}: {run:?}");
            }
        }
    }
}
