//! One selection among 1,000 providers, for each balancer.
//!
//! `cargo bench -p dubbo-cluster --bench select`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use dubbo_cluster::loadbalance::{
    weight, AdaptiveLoadBalance, ConsistentHashLoadBalance, LeastActiveLoadBalance, P2cLoadBalance,
    RandomLoadBalance, RoundRobinLoadBalance, ShortestResponseLoadBalance,
};
use dubbo_core::{
    invoker_fn, Invocation, Invoker, InvokerList, LoadBalance, MethodSignature, RpcResponse,
    ServiceKey, StatsStore, Value,
};
use dubbo_url::Url;

const PROVIDERS: usize = 1000;

/// Providers as a registry lists them: a start time long past, and assorted weights.
fn providers(extra: &str) -> Vec<Arc<dyn Invoker>> {
    let started = weight::now_ms() - 3_600_000;
    (0..PROVIDERS)
        .map(|i| {
            let url = Url::parse(&format!(
                "dubbo://10.0.{}.{}:20880/a.Greeter?timestamp={started}&weight={}{extra}",
                i / 250,
                i % 250,
                50 + (i % 4) * 50
            ))
            .unwrap();
            Arc::new(invoker_fn(url, |_inv| async {
                Ok(RpcResponse::new(Value::Null))
            })) as Arc<dyn Invoker>
        })
        .collect()
}

fn call(arg: &str) -> Invocation {
    Invocation::new(
        ServiceKey::interface_only("a.Greeter"),
        Arc::new(MethodSignature::new(
            "sayHello",
            &["java.lang.String"],
            "java.lang.String",
        )),
        vec![Value::String(arg.into())],
    )
}

fn select(c: &mut Criterion) {
    // Shared, as the cluster hands its routed list to the balancer.
    let list: InvokerList = providers("").into();
    let store = Arc::new(StatsStore::new());
    let now = store.now();
    for (i, p) in list.iter().enumerate() {
        let s = store.provider(p.url()).method("sayHello");
        for _ in 0..(i % 3) {
            s.begin();
        }
        s.begin();
        s.end(Duration::from_micros(500 + (i as u64 % 7) * 100), true, now);
    }
    let adaptive = AdaptiveLoadBalance::new();
    let inv = call("user-1");
    let balancers: Vec<(&str, Box<dyn LoadBalance>)> = vec![
        ("random", Box::new(RandomLoadBalance::new())),
        ("roundrobin", Box::new(RoundRobinLoadBalance::new())),
        (
            "leastactive",
            Box::new(LeastActiveLoadBalance::new(store.clone())),
        ),
        (
            "shortestresponse",
            Box::new(ShortestResponseLoadBalance::new(store.clone())),
        ),
        ("consistenthash", Box::new(ConsistentHashLoadBalance::new())),
        ("p2c", Box::new(P2cLoadBalance::new(store.clone()))),
        ("adaptive", Box::new(adaptive)),
    ];
    let mut group = c.benchmark_group("select_1000");
    group
        .warm_up_time(Duration::from_millis(800))
        .measurement_time(Duration::from_secs(2))
        .sample_size(40);
    for (name, lb) in &balancers {
        group.bench_function(*name, |b| {
            b.iter(|| black_box(lb.select(black_box(&list), &inv)))
        });
    }
    // A new snapshot with the same providers: recognised once by its members, then by its
    // allocation.
    let renewed: InvokerList = list.iter().cloned().collect();
    let random = RandomLoadBalance::new();
    let _ = random.select(&list, &inv);
    group.bench_function("random (same providers, new snapshot)", |b| {
        b.iter(|| black_box(random.select(black_box(&renewed), &inv)))
    });
    // Java's shortcut: no weight and no timestamp on the first provider, uniform draw.
    let plain: Vec<Arc<dyn Invoker>> = (0..PROVIDERS)
        .map(|i| {
            let url = Url::parse(&format!(
                "dubbo://10.1.0.{}:{}/a.Greeter",
                i % 250,
                20000 + i
            ))
            .unwrap();
            Arc::new(invoker_fn(url, |_inv| async {
                Ok(RpcResponse::new(Value::Null))
            })) as Arc<dyn Invoker>
        })
        .collect();
    let plain: InvokerList = plain.into();
    group.bench_function("random (unweighted URLs)", |b| {
        b.iter(|| black_box(random.select(black_box(&plain), &inv)))
    });
    let keys: Vec<Invocation> = (0..64).map(|i| call(&format!("user-{i}"))).collect();
    let hash = ConsistentHashLoadBalance::new();
    let mut k = 0;
    group.bench_function("consistenthash (64 keys)", |b| {
        b.iter(|| {
            k = (k + 1) % keys.len();
            black_box(hash.select(&list, &keys[k]))
        })
    });
    group.finish();
}

criterion_group!(benches, select);
criterion_main!(benches);
