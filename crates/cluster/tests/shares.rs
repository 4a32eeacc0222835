//! What callers see of the balancers through a whole cluster invoker: weighted random keeps
//! each provider's share of the calls at its weight, round robin goes round in order, least
//! active spreads calls that do not overlap.
//!
//! The providers are in-process, so that shares can be measured over many thousands of
//! calls quickly; `over_dubbo.rs` runs real connections.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use dubbo_cluster::loadbalance::register_load_balancers;
use dubbo_cluster::router::RouterChain;
use dubbo_cluster::strategy::register_strategies;
use dubbo_cluster::ClusterInvoker;
use dubbo_core::{
    invoker_fn, Extensions, Invocation, Invoker, RpcResponse, StaticDirectory, StatsStore, Value,
};
use dubbo_url::Url;

mod common;
use common::{call, SERVICE};

/// A cluster of providers with `weights`, each answering with its port (20000, 20001, ...).
fn cluster(weights: &[u32], query: &str) -> ClusterInvoker {
    let invokers: Vec<Arc<dyn Invoker>> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let port = 20000 + u16::try_from(i).unwrap();
            let url =
                Url::parse(&format!("dubbo://127.0.0.1:{port}/{SERVICE}?weight={w}")).unwrap();
            Arc::new(invoker_fn(url, move |_inv: Invocation| async move {
                Ok(RpcResponse::new(Value::Int(i32::from(port))))
            })) as _
        })
        .collect();
    let consumer = Url::parse(&format!(
        "dubbo://127.0.0.1:20000/{SERVICE}?interface={SERVICE}&{query}"
    ))
    .unwrap();
    let ext = Extensions::new();
    register_strategies(&ext);
    register_load_balancers(&ext, Arc::new(StatsStore::new()));
    ClusterInvoker::new(
        Arc::new(StaticDirectory::new(consumer, invokers)),
        Arc::new(RouterChain::new()),
        &ext,
    )
    .unwrap()
}

/// The ports that answered `n` calls made one after the other, in order.
async fn answers(cluster: &ClusterInvoker, n: usize) -> Vec<i32> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        match cluster
            .invoke(call())
            .await
            .unwrap()
            .value
            .into_value()
            .unwrap()
        {
            Value::Int(port) => out.push(port),
            other => panic!("unexpected answer {other:?}"),
        }
    }
    out
}

#[tokio::test]
async fn weighted_random_keeps_the_shares_of_the_weights() {
    let weights = [100, 200, 300];
    let cluster = cluster(&weights, "");
    let seen = answers(&cluster, 60_000).await;
    let mut counts: BTreeMap<i32, usize> = BTreeMap::new();
    for p in &seen {
        *counts.entry(*p).or_default() += 1;
    }
    let weight_sum: u32 = weights.iter().sum();
    for (i, w) in weights.iter().enumerate() {
        let port = 20000 + i32::try_from(i).unwrap();
        let share = counts.get(&port).copied().unwrap_or(0) as f64 / seen.len() as f64;
        let want = f64::from(*w) / f64::from(weight_sum);
        assert!(
            (share - want).abs() < 0.02,
            "provider {port}: share {share:.3}, weight share {want:.3} ({counts:?})"
        );
    }
}

#[tokio::test]
async fn round_robin_goes_round_and_least_active_spreads() {
    let rr = cluster(&[100, 100, 100], "loadbalance=roundrobin");
    let seen = answers(&rr, 21).await;
    // Equal weights: every provider once in each round of three, in one fixed order.
    for round in seen.chunks(3) {
        assert_eq!(round, &seen[..3], "{seen:?}");
    }
    let mut first: Vec<i32> = seen[..3].to_vec();
    first.sort_unstable();
    assert_eq!(first, [20000, 20001, 20002], "{seen:?}");

    // Calls that do not overlap leave every provider idle: ties are broken at random.
    let la = cluster(&[100, 100, 100], "loadbalance=leastactive");
    let seen = answers(&la, 60).await;
    let spread: std::collections::BTreeSet<_> = seen.iter().collect();
    assert_eq!(spread.len(), 3, "{seen:?}");
}
