//! The cluster invoker over three real dubbo:// providers on 127.0.0.1.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::Arc;

use dubbo_cluster::router::RouterChain;
use dubbo_cluster::strategy::register_strategies;
use dubbo_cluster::ClusterInvoker;
use dubbo_core::{
    invoker_fn, CallReport, ExportTable, Extensions, Invocation, Invoker, MeasuredInvoker,
    MethodSignature, RpcResponse, ServiceKey, StaticDirectory, StatsStore, Value,
};
use dubbo_protocol_dubbo::{DubboProtocol, DubboServer, ServerConfig};
use dubbo_url::Url;

const SERVICE: &str = "org.example.Greeter";

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

fn call() -> Invocation {
    Invocation::new(
        ServiceKey::interface_only(SERVICE),
        Arc::new(MethodSignature::new(
            "sayHello",
            &["java.lang.String"],
            "java.lang.String",
        )),
        vec!["x".into()],
    )
}

#[tokio::test]
async fn failover_over_dubbo_spreads_calls_and_survives_a_provider_going_away() {
    let servers = vec![provider(0).await, provider(1).await, provider(2).await];
    let protocol = DubboProtocol::new();
    let mut invokers: Vec<Arc<dyn Invoker>> = Vec::new();
    let stats = Arc::new(StatsStore::new());
    for s in &servers {
        let url = Url::parse(&format!(
            "dubbo://{}/{SERVICE}?interface={SERVICE}&timeout=2000",
            s.local_addr()
        ))
        .unwrap();
        let remote = dubbo_core::Protocol::refer(&protocol, url).await.unwrap();
        // The measuring stage writes the call reports, as in a reference.
        invokers.push(Arc::new(MeasuredInvoker::new(remote, stats.clone())));
    }
    let consumer = invokers[0].url().clone();
    let ext = Extensions::new();
    register_strategies(&ext);
    let cluster = ClusterInvoker::new(
        Arc::new(StaticDirectory::new(consumer, invokers)),
        Arc::new(RouterChain::new()),
        &ext,
    )
    .unwrap();

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
