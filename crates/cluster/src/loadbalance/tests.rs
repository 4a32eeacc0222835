//! Behaviour tests of the balancers, deterministic through seeded randomness.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{
    invoker_fn, Extensions, FilterChain, FilterSpec, Invocation, Invoker, InvokerList, LoadBalance,
    MethodSignature, RpcResponse, ServiceKey, StatsStore, Value,
};
use dubbo_url::Url;

use super::*;

fn provider(port: u16, params: &str) -> Arc<dyn Invoker> {
    let url = Url::parse(&format!("dubbo://10.0.0.1:{port}/a.Greeter?{params}")).unwrap();
    Arc::new(invoker_fn(url, |_inv| async {
        Ok(RpcResponse::new(Value::Null))
    }))
}

fn call(method: &str, args: Vec<Value>) -> Invocation {
    Invocation::new(
        ServiceKey::interface_only("a.Greeter"),
        Arc::new(MethodSignature::new::<&str>(method, &[], "void")),
        args,
    )
}

/// How often each provider (by port) is picked in `n` selections.
fn counts(lb: &dyn LoadBalance, list: &[Arc<dyn Invoker>], n: usize) -> HashMap<u16, usize> {
    let inv = call("hello", vec![]);
    // One list for every selection, as the cluster passes its routed list.
    let list: InvokerList = list.into();
    let mut seen = HashMap::new();
    for _ in 0..n {
        let p = lb.select(&list, &inv).unwrap();
        *seen.entry(p.url().port()).or_default() += 1;
    }
    seen
}

fn assert_share(seen: &HashMap<u16, usize>, port: u16, n: usize, expected: f64) {
    let got = *seen.get(&port).unwrap_or(&0) as f64 / n as f64;
    assert!(
        (got - expected).abs() < 0.02,
        "provider {port}: share {got:.3}, expected {expected:.3} (±0.02)"
    );
}

#[test]
fn random_follows_weights() {
    let list = vec![
        provider(1, "weight=100"),
        provider(2, "weight=200"),
        provider(3, "weight=300"),
        provider(4, "weight=0"),
    ];
    let lb = RandomLoadBalance::with_rng(SelectRng::seeded(7));
    let seen = counts(&lb, &list, 12_000);
    assert_share(&seen, 1, 12_000, 1.0 / 6.0);
    assert_share(&seen, 2, 12_000, 2.0 / 6.0);
    assert_share(&seen, 3, 12_000, 3.0 / 6.0);
    assert_eq!(seen.get(&4), None, "weight 0 is never picked");
}

#[test]
fn random_is_uniform_without_weights() {
    let list: Vec<_> = (1..=5).map(|p| provider(p, "")).collect();
    let lb = RandomLoadBalance::with_rng(SelectRng::seeded(1));
    let seen = counts(&lb, &list, 10_000);
    for p in 1..=5 {
        assert_share(&seen, p, 10_000, 0.2);
    }
    assert!(lb.select(&empty(), &call("hello", vec![])).is_none());
}

fn empty() -> InvokerList {
    Vec::new().into()
}

#[test]
fn random_ramps_up_warming_providers() {
    let now = weight::now_ms();
    // Half way through a 10-minute warm-up: weight 50 against a warm provider's 100.
    let list = vec![
        provider(1, &format!("timestamp={}", now - 5 * 60 * 1000)),
        provider(2, &format!("timestamp={}", now - 60 * 60 * 1000)),
    ];
    let lb = RandomLoadBalance::with_rng(SelectRng::seeded(3));
    let seen = counts(&lb, &list, 9_000);
    assert_share(&seen, 1, 9_000, 1.0 / 3.0);
    assert_share(&seen, 2, 9_000, 2.0 / 3.0);
}

#[test]
fn round_robin_is_smooth() {
    let list: InvokerList = Arc::new([
        provider(1, "weight=5"),
        provider(2, "weight=1"),
        provider(3, "weight=1"),
    ]);
    let lb = RoundRobinLoadBalance::new();
    let inv = call("hello", vec![]);
    let order: Vec<u16> = (0..14)
        .map(|_| lb.select(&list, &inv).unwrap().url().port())
        .collect();
    assert_eq!(order, [1, 1, 2, 1, 3, 1, 1, 1, 1, 2, 1, 3, 1, 1]);
    // Another method has its own counters and starts over.
    let other = call("bye", vec![]);
    assert_eq!(lb.select(&list, &other).unwrap().url().port(), 1);
    // A new list (a provider gone) keeps the survivors' counters and stays fair.
    let fewer = vec![list[0].clone(), list[1].clone()];
    let seen = counts(&lb, &fewer, 600);
    assert_eq!(seen[&1], 500);
    assert_eq!(seen[&2], 100);
}

#[test]
fn round_robin_keeps_its_sequence_across_snapshots_and_absences() {
    let providers = vec![
        provider(1, "weight=5"),
        provider(2, "weight=1"),
        provider(3, "weight=1"),
    ];
    let lb = RoundRobinLoadBalance::new();
    let inv = call("hello", vec![]);
    // The same providers as three snapshots, in turn: one sequence.
    let a: InvokerList = providers.clone().into();
    let b: InvokerList = providers.clone().into();
    let c: InvokerList = providers.clone().into();
    let order: Vec<u16> = (0..14)
        .map(|i| {
            let p = match i % 3 {
                0 => lb.select(&a, &inv),
                1 => lb.select(&b, &inv),
                _ => lb.select(&c, &inv),
            };
            p.unwrap().url().port()
        })
        .collect();
    assert_eq!(order, [1, 1, 2, 1, 3, 1, 1, 1, 1, 2, 1, 3, 1, 1]);
    // Three steps leave the counters at 1, -4, 3 (a, b, c).
    let lb = RoundRobinLoadBalance::new();
    let steps: Vec<u16> = (0..3)
        .map(|_| lb.select(&a, &inv).unwrap().url().port())
        .collect();
    assert_eq!(steps, [1, 1, 2]);
    // c leaves for one call (a: 1 + 5 wins) and comes back with its counter of 3: a
    // (5 against c's 4), then c (5 against a's 3). Restarted from 0, c would wait longer.
    let without: InvokerList = vec![providers[0].clone(), providers[1].clone()].into();
    assert_eq!(lb.select(&without, &inv).unwrap().url().port(), 1);
    let back: Vec<u16> = (0..2)
        .map(|_| lb.select(&b, &inv).unwrap().url().port())
        .collect();
    assert_eq!(back, [1, 3]);
}

#[test]
fn least_active_picks_the_idle_provider() {
    let store = Arc::new(StatsStore::new());
    let list: Vec<_> = (1..=3).map(|p| provider(p, "")).collect();
    store.provider(list[0].url()).method("hello").begin();
    store.provider(list[0].url()).method("hello").begin();
    store.provider(list[2].url()).method("hello").begin();
    let lb = LeastActiveLoadBalance::with_rng(store.clone(), SelectRng::seeded(5));
    let seen = counts(&lb, &list, 100);
    assert_eq!(seen.get(&2), Some(&100));
    // Another method's calls do not count.
    store.provider(list[1].url()).method("bye").begin();
    assert_eq!(counts(&lb, &list, 10).get(&2), Some(&10));
    // Ties are broken by weight.
    let tied = vec![provider(4, "weight=100"), provider(5, "weight=300")];
    let seen = counts(&lb, &tied, 8_000);
    assert_share(&seen, 4, 8_000, 0.25);
}

#[test]
fn shortest_response_prefers_the_fast_provider() {
    let store = Arc::new(StatsStore::new());
    let list: Vec<_> = (1..=2).map(|p| provider(p, "")).collect();
    let lb = ShortestResponseLoadBalance::with_options(
        store.clone(),
        DEFAULT_SLIDE_PERIOD,
        SelectRng::seeded(9),
    );
    let now = store.now();
    for (p, ms) in [(0, 40), (1, 10)] {
        let s = store.provider(list[p].url()).method("hello");
        for _ in 0..4 {
            s.begin();
            s.end(Duration::from_millis(ms), true, now);
        }
    }
    assert_eq!(counts(&lb, &list, 50).get(&2), Some(&50));
    // Four calls in flight make the fast one's estimate 10 × 5 = 50, above the slow one's 40.
    let fast = store.provider(list[1].url()).method("hello");
    for _ in 0..4 {
        fast.begin();
    }
    assert_eq!(counts(&lb, &list, 50).get(&1), Some(&50));
}

#[test]
fn consistent_hash_is_sticky_and_moves_few_keys() {
    let list: Vec<_> = (1..=10).map(|p| provider(p, "")).collect();
    let lb = ConsistentHashLoadBalance::new();
    let pick = |list: &[Arc<dyn Invoker>], key: &str| {
        let inv = call("hello", vec![Value::String(key.into()), Value::Int(1)]);
        lb.select(&list.into(), &inv).unwrap().url().port()
    };
    let keys: Vec<String> = (0..10_000).map(|i| format!("user-{i}")).collect();
    let before: Vec<u16> = keys.iter().map(|k| pick(&list, k)).collect();
    let again: Vec<u16> = keys.iter().map(|k| pick(&list, k)).collect();
    assert_eq!(before, again, "same key, same provider");
    // A fresh Vec with the same providers is the same list: the ring is reused.
    let copy = list.clone();
    assert_eq!(pick(&copy, "user-1"), before[1]);
    // Every provider gets a fair part of the keys.
    for p in 1..=10u16 {
        let share = before.iter().filter(|&&x| x == p).count();
        assert!(
            (500..=1600).contains(&share),
            "provider {p} has {share} keys"
        );
    }
    // Removing one of ten providers moves only its own keys, about a tenth.
    let without: Vec<_> = list
        .iter()
        .filter(|p| p.url().port() != 4)
        .cloned()
        .collect();
    let after: Vec<u16> = keys.iter().map(|k| pick(&without, k)).collect();
    let moved = before.iter().zip(&after).filter(|(b, a)| b != a).count();
    assert!(before.iter().zip(&after).all(|(b, a)| b == a || *b == 4));
    assert!(
        (600..=1500).contains(&moved),
        "{moved} of 10000 keys moved, expected about 1000"
    );
}

#[test]
fn consistent_hash_uses_the_configured_arguments() {
    let list: InvokerList = (1..=5)
        .map(|p| provider(p, "hash.arguments=1&hash.nodes=40"))
        .collect();
    let lb = ConsistentHashLoadBalance::new();
    let a = call("hello", vec![Value::String("x".into()), Value::Long(42)]);
    let b = call("hello", vec![Value::String("y".into()), Value::Long(42)]);
    assert_eq!(
        lb.select(&list, &a).unwrap().url().port(),
        lb.select(&list, &b).unwrap().url().port(),
        "only the second argument counts"
    );
}

#[test]
fn p2c_prefers_the_less_active_of_two() {
    let store = Arc::new(StatsStore::new());
    let list: Vec<_> = (1..=2).map(|p| provider(p, "")).collect();
    for _ in 0..3 {
        store.provider(list[0].url()).method("hello").begin();
    }
    let lb = P2cLoadBalance::with_rng(store.clone(), SelectRng::seeded(11));
    assert_eq!(counts(&lb, &list, 100).get(&2), Some(&100));
    // Among many, the busiest provider is never picked, the others about evenly.
    let many: Vec<_> = (1..=4).map(|p| provider(p, "")).collect();
    let seen = counts(&lb, &many, 9_000);
    assert_eq!(seen.get(&1), None);
    for p in 2..=4 {
        assert_share(&seen, p, 9_000, 1.0 / 3.0);
    }
}

fn report(lb: &AdaptiveLoadBalance, p: &Arc<dyn Invoker>, load: f64, rt: u64) {
    let mut response = RpcResponse::new(Value::Null);
    // A provider clock a little behind ours: a load computed in the very millisecond of the
    // report would count the provider as not having reported since (Java's rule), which
    // would penalise one provider and not the other depending on where the clock ticks.
    response.attachments.insert(
        ADAPTIVE_ATTACHMENT_KEY,
        format!("curTime:{},load:{load}", weight::now_ms() - 10),
    );
    lb.observer().unwrap().on_result(
        p.as_ref(),
        &call("hello", vec![]),
        &Ok(response),
        Duration::from_millis(rt),
    );
}

#[test]
fn adaptive_prefers_the_less_loaded_provider() {
    let list: Vec<_> = (1..=2).map(|p| provider(p, "timeout=60000")).collect();
    let lb = AdaptiveLoadBalance::with_rng(SelectRng::seeded(13));
    // Before any report both loads are 0: picks are spread by weight.
    let seen = counts(&lb, &list, 2_000);
    assert!(seen[&1] > 800 && seen[&2] > 800, "{seen:?}");
    report(&lb, &list[0], 90.0, 20);
    report(&lb, &list[1], 10.0, 20);
    let seen = counts(&lb, &list, 1_000);
    assert_eq!(seen.get(&2), Some(&1_000), "{seen:?}");
    assert_eq!(parse_report("curTime:17,load:12.5"), (17, 12.5));
    assert_eq!(parse_report("curTime:x,load:"), (0, 0.0));
}

#[tokio::test]
async fn adaptive_filters_ask_and_answer_the_load() {
    let provider_side = FilterChain::new(
        vec![Arc::new(LoadReportFilter::with_load(Arc::new(
            CpuLoad::fixed(42.0),
        )))],
        provider(1, ""),
    );
    let url = Url::parse("dubbo://10.0.0.1:1/a.Greeter?loadbalance=adaptive").unwrap();
    let target: Arc<dyn Invoker> = Arc::new(provider_side);
    let consumer_side = FilterChain::new(
        vec![Arc::new(AdaptiveRequestFilter)],
        Arc::new(invoker_fn(url, move |inv| {
            let target = target.clone();
            async move { target.invoke(inv).await }
        })),
    );
    let response = consumer_side.invoke(call("hello", vec![])).await.unwrap();
    let report = response
        .attachments
        .get_str(ADAPTIVE_ATTACHMENT_KEY)
        .unwrap();
    let (time, load) = parse_report(report);
    assert_eq!(load, 42.0);
    assert!(time.abs_diff(weight::now_ms()) < 60_000);
    // Unasked, the provider adds nothing.
    let plain = FilterChain::new(
        vec![Arc::new(LoadReportFilter::with_load(Arc::new(
            CpuLoad::fixed(1.0),
        )))],
        provider(2, ""),
    );
    let response = plain.invoke(call("hello", vec![])).await.unwrap();
    assert!(response
        .attachments
        .get_str(ADAPTIVE_ATTACHMENT_KEY)
        .is_none());
}

#[test]
fn registers_every_balancer_and_the_adaptive_filters() {
    let extensions = Extensions::new();
    register_load_balancers(&extensions, Arc::new(StatsStore::new()));
    let list: InvokerList = (1..=3).map(|p| provider(p, "")).collect();
    for name in [
        "random",
        "roundrobin",
        "leastactive",
        "shortestresponse",
        "consistenthash",
        "p2c",
        "adaptive",
    ] {
        let lb = extensions
            .get::<dyn LoadBalance>(name)
            .unwrap_or_else(|| panic!("{name} is registered"));
        assert!(lb.select(&list, &call("hello", vec![])).is_some(), "{name}");
        assert_eq!(
            lb.select(&list[..1].into(), &call("hello", vec![]))
                .unwrap()
                .url()
                .port(),
            1
        );
        assert!(
            lb.select(&empty(), &call("hello", vec![])).is_none(),
            "{name}"
        );
    }
    assert!(extensions
        .get::<FilterSpec>("adaptive-load-report")
        .is_some());
    assert!(extensions
        .get::<FilterSpec>("adaptiveLoadBalance")
        .is_some());
    assert_eq!(DEFAULT_LOAD_BALANCE, "random");
}
