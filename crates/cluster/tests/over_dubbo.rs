//! The cluster invoker over three real dubbo:// providers on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use dubbo_cluster::router::RouterChain;
use dubbo_cluster::strategy::register_strategies;
use dubbo_cluster::ClusterInvoker;
use dubbo_core::{
    invoker_fn, CallReport, ExportTable, Extensions, Invocation, Invoker, MeasuredInvoker,
    RpcResponse, ServiceKey, StaticDirectory, StatsStore, Value,
};
use dubbo_protocol_dubbo::{DubboProtocol, DubboServer, ServerConfig};
use dubbo_url::Url;

mod common;
use common::{call, SERVICE};

async fn provider(id: u16) -> DubboServer {
    let exports = ExportTable::new();
    let url = Url::parse(&format!("dubbo://127.0.0.1:0/{SERVICE}")).unwrap();
    exports.insert(
        ServiceKey::interface_only(SERVICE),
        Arc::new(invoker_fn(url, move |_inv: Invocation| async move {
            Ok(RpcResponse::new(Value::String(format!("provider {id}"))))
        })),
    );
    DubboServer::bind("127.0.0.1:0", ServerConfig::default(), exports)
        .await
        .unwrap()
}

#[tokio::test]
async fn failover_over_dubbo_spreads_calls_and_survives_a_provider_going_away() {
    let (servers, cluster) = cluster_of(3, "loadbalance=random").await;

    let mut answered: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..30 {
        let r = cluster.invoke(call()).await.unwrap();
        *answered.entry(format!("{:?}", r.value)).or_default() += 1;
    }
    assert_eq!(answered.len(), 3, "every provider answered: {answered:?}");

    let gone = servers[1].local_addr().port();
    servers[1].close().await;
    for _ in 0..30 {
        let mut c = call();
        let report = CallReport::attach(&mut c);
        let r = cluster.invoke(c).await.unwrap();
        assert_ne!(r.value, Value::String("provider 1".into()));
        assert_ne!(report.last().unwrap().provider.port(), gone);
    }
}

/// A cluster of `n` real providers behind `query` (e.g. `loadbalance=roundrobin`), each
/// answering with its number.
async fn cluster_of(n: u16, query: &str) -> (Vec<DubboServer>, Arc<ClusterInvoker>) {
    let mut servers = Vec::new();
    for id in 0..n {
        servers.push(provider(id).await);
    }
    let protocol = DubboProtocol::new();
    let stats = Arc::new(StatsStore::new());
    let mut invokers: Vec<Arc<dyn Invoker>> = Vec::new();
    for s in &servers {
        let url = Url::parse(&format!(
            "dubbo://{}/{SERVICE}?interface={SERVICE}&timeout=2000&{query}",
            s.local_addr()
        ))
        .unwrap();
        let remote = dubbo_core::Protocol::refer(&protocol, url).await.unwrap();
        invokers.push(Arc::new(MeasuredInvoker::new(remote, stats.clone())));
    }
    let consumer = invokers[0].url().clone();
    let ext = Extensions::new();
    register_strategies(&ext);
    dubbo_cluster::loadbalance::register_load_balancers(&ext, stats);
    let cluster = ClusterInvoker::new(
        Arc::new(StaticDirectory::new(consumer, invokers)),
        Arc::new(RouterChain::new()),
        &ext,
    )
    .unwrap();
    (servers, Arc::new(cluster))
}

/// Which providers answered each batch of `size` calls started together, `batches` times.
async fn batches(
    cluster: &Arc<ClusterInvoker>,
    batches: usize,
    size: usize,
) -> Vec<BTreeMap<String, usize>> {
    let mut seen = Vec::new();
    for _ in 0..batches {
        let tasks: Vec<_> = (0..size)
            .map(|_| {
                let c = cluster.clone();
                tokio::spawn(async move { c.invoke(call()).await })
            })
            .collect();
        let mut answered: BTreeMap<String, usize> = BTreeMap::new();
        for t in tasks {
            let value = t.await.unwrap().unwrap().value;
            *answered.entry(format!("{value:?}")).or_default() += 1;
        }
        seen.push(answered);
    }
    seen
}

#[tokio::test]
async fn concurrent_calls_reach_every_provider_and_round_robin_spreads_each_batch() {
    let (_servers, cluster) = cluster_of(3, "").await;
    let seen = batches(&cluster, 10, 8).await;
    let providers: std::collections::BTreeSet<_> = seen.iter().flat_map(|b| b.keys()).collect();
    assert_eq!(
        providers.len(),
        3,
        "random reaches every provider: {seen:?}"
    );

    let (_servers, rr) = cluster_of(3, "loadbalance=roundrobin").await;
    rr.invoke(call()).await.unwrap();
    for b in batches(&rr, 5, 9).await {
        assert_eq!(b.len(), 3, "{b:?}");
        assert!(b.values().all(|&n| n == 3), "{b:?}");
    }
}
