//! EtcdRegistry against a real etcd: keys as Java writes them, pushes, filtering, garbage,
//! and a provider that dies without unregistering.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::Extensions;
use dubbo_registry::{Category, Registry, RegistryFactory};
use dubbo_registry_etcd::{register_etcd, EtcdConnections};
use dubbo_url::Url;
use support::{etcd, eventually, Etcd, Recorder};

const IFACE: &str = "org.foo.Greeter";

async fn registry(etcd: &Etcd, query: &str) -> Arc<dyn Registry> {
    let ext = Extensions::new();
    register_etcd(&ext);
    let factory = ext.get::<dyn RegistryFactory>("etcd3").unwrap();
    factory.create(&etcd.url("etcd3", query)).await.unwrap()
}

fn provider(port: u16, extra: &str) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:{port}/{IFACE}?interface={IFACE}&side=provider&methods=hi{extra}"
    ))
    .unwrap()
}

fn consumer(extra: &str) -> Url {
    Url::parse(&format!(
        "consumer://127.0.0.1/{IFACE}?interface={IFACE}&side=consumer&category=providers,configurators,routers{extra}"
    ))
    .unwrap()
}

/// The last push of `category` seen by `rec`.
fn last_of(rec: &Recorder, category: Category) -> Option<Vec<Url>> {
    rec.seen
        .lock()
        .unwrap()
        .iter()
        .rev()
        .find(|n| n.category == category)
        .map(|n| n.urls.to_vec())
}

fn is_empty_push(urls: &Option<Vec<Url>>) -> bool {
    urls.as_ref()
        .is_some_and(|u| u.len() == 1 && u[0].protocol() == Some("empty"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn register_subscribe_unregister_with_java_keys() {
    let Some(etcd) = etcd() else { return };
    let reg = registry(&etcd, "session=2000").await;
    let url = provider(20880, "&version=1.0.0");
    reg.register(&url).await.unwrap();

    // Java's key: /dubbo/{encoded interface}/providers/{encoded full URL}, value the lease id.
    let keys = etcd.keys("/dubbo/");
    let expected = format!(
        "/dubbo/{IFACE}/providers/{}",
        dubbo_url::encode(&url.to_full_string())
    );
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert_eq!(keys[0].0, expected);
    let leases = etcd.leases();
    assert_eq!(leases, vec![keys[0].1.clone()], "the value is the lease id");

    let rec = Recorder::default();
    reg.subscribe(&consumer("&version=1.0.0"), rec.listener())
        .await
        .unwrap();
    eventually(5, "providers pushed", || {
        last_of(&rec, Category::Providers).is_some_and(|u| u == vec![url.clone()])
    })
    .await;
    assert!(is_empty_push(&last_of(&rec, Category::Configurators)));
    assert!(is_empty_push(&last_of(&rec, Category::Routers)));
    // The subscriber wrote Java's category "directory" keys.
    assert!(etcd
        .keys(&format!("/dubbo/{IFACE}/routers"))
        .iter()
        .any(|(k, _)| k == &format!("/dubbo/{IFACE}/routers")));
    assert!(reg.is_available());

    reg.unregister(&url).await.unwrap();
    eventually(5, "empty:// after unregister", || {
        is_empty_push(&last_of(&rec, Category::Providers))
    })
    .await;
    let empty = &last_of(&rec, Category::Providers).unwrap()[0];
    assert_eq!(empty.parameter("category"), Some("providers"));
    assert_eq!(empty.service_interface(), Some(IFACE));

    // Static URLs are persistent and outlive the registry's lease.
    let fixed = provider(20881, "&dynamic=false&version=1.0.0");
    reg.register(&fixed).await.unwrap();
    eventually(5, "static provider pushed", || {
        last_of(&rec, Category::Providers).is_some_and(|u| u == vec![fixed.clone()])
    })
    .await;
    reg.destroy().await;
    assert_eq!(etcd.keys(&format!("/dubbo/{IFACE}/providers/")).len(), 1);
    assert!(reg.register(&url).await.is_err(), "closed after destroy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_and_version_filter_and_lookup() {
    let Some(etcd) = etcd() else { return };
    let reg = registry(&etcd, "").await;
    let a = provider(1, "&group=g1&version=1.0");
    let b = provider(2, "&group=g2&version=1.0");
    let c = provider(3, "&group=g1&version=2.0");
    for u in [&a, &b, &c] {
        reg.register(u).await.unwrap();
    }
    let exact = Recorder::default();
    reg.subscribe(&consumer("&group=g1&version=1.0"), exact.listener())
        .await
        .unwrap();
    let any = Recorder::default();
    reg.subscribe(&consumer("&group=*&version=*"), any.listener())
        .await
        .unwrap();
    let list = Recorder::default();
    reg.subscribe(&consumer("&group=g1,g2&version=1.0"), list.listener())
        .await
        .unwrap();
    eventually(5, "filtered pushes", || {
        last_of(&exact, Category::Providers).is_some_and(|u| u == vec![a.clone()])
            && last_of(&any, Category::Providers).is_some_and(|u| u.len() == 3)
            && last_of(&list, Category::Providers).is_some_and(|u| u.len() == 2)
    })
    .await;
    let found = reg
        .lookup(&consumer("&group=g2&version=1.0"))
        .await
        .unwrap();
    assert_eq!(found, vec![b.clone()]);

    // A fourth provider of another group reaches only the wildcard subscriber.
    let d = provider(4, "&group=g3&version=1.0");
    reg.register(&d).await.unwrap();
    eventually(5, "wildcard sees the new provider", || {
        last_of(&any, Category::Providers).is_some_and(|u| u.len() == 4)
    })
    .await;
    assert_eq!(
        last_of(&exact, Category::Providers).unwrap(),
        vec![a.clone()]
    );
    reg.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_keys_are_skipped() {
    let Some(etcd) = etcd() else { return };
    let dir = format!("/dubbo/{IFACE}/providers");
    etcd.put(&format!("{dir}/not-a-url"), "1");
    etcd.put(&format!("{dir}/%ZZbroken"), "1");
    etcd.put(&format!("{dir}/deeper/level"), "1");
    etcd.put(&format!("{dir}/{}", dubbo_url::encode("dubbo://[bad")), "1");
    let reg = registry(&etcd, "").await;
    let good = provider(20880, "");
    reg.register(&good).await.unwrap();
    let rec = Recorder::default();
    reg.subscribe(&consumer(""), rec.listener()).await.unwrap();
    eventually(5, "only the good provider", || {
        last_of(&rec, Category::Providers).is_some_and(|u| u == vec![good.clone()])
    })
    .await;
    // Garbage arriving through the watch is skipped too.
    etcd.put(&format!("{dir}/still%20not%20a%20url"), "1");
    let other = provider(20881, "");
    reg.register(&other).await.unwrap();
    eventually(5, "both good providers", || {
        last_of(&rec, Category::Providers).is_some_and(|u| u.len() == 2)
    })
    .await;
    reg.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crashed_provider_vanishes_after_the_lease_ttl() {
    let Some(etcd) = etcd() else { return };
    let consumer_side = registry(&etcd, "").await;
    let rec = Recorder::default();
    consumer_side
        .subscribe(&consumer(""), rec.listener())
        .await
        .unwrap();

    // A provider process with a 2 s lease that dies without a word.
    let crashing = registry(&etcd, "session=2000").await;
    let url = provider(20880, "");
    crashing.register(&url).await.unwrap();
    eventually(5, "provider seen", || {
        last_of(&rec, Category::Providers).is_some_and(|u| u == vec![url.clone()])
    })
    .await;
    // Outlives several keep-alive rounds while alive.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        last_of(&rec, Category::Providers).unwrap(),
        vec![url.clone()]
    );
    let started = std::time::Instant::now();
    drop(crashing);
    eventually(10, "entry gone after the TTL", || {
        is_empty_push(&last_of(&rec, Category::Providers))
    })
    .await;
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(1000),
        "gone after {took:?}: before the lease could expire"
    );
    consumer_side.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_per_address() {
    let Some(etcd) = etcd() else { return };
    let connections = EtcdConnections::new();
    let a = connections.client(&etcd.url("etcd3", "")).await.unwrap();
    let b = connections
        .client(&etcd.url("etcd", "session=5000"))
        .await
        .unwrap();
    assert!(a.same_connection(&b));
    let other = EtcdConnections::new()
        .client(&etcd.url("etcd3", ""))
        .await
        .unwrap();
    assert!(!a.same_connection(&other));
}
