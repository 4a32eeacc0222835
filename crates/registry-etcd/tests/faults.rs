//! Faults against a real etcd: the server killed and restarted on the same data, and the
//! lease revoked behind the registry's back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::Extensions;
use dubbo_registry::{Registry, RegistryFactory};
use dubbo_registry_etcd::register_etcd;
use dubbo_url::Url;
use support::{etcd, eventually, Etcd, Recorder};

const IFACE: &str = "org.foo.Faulty";

async fn registry(etcd: &Etcd, query: &str) -> Arc<dyn Registry> {
    let ext = Extensions::new();
    register_etcd(&ext);
    let factory = ext.get::<dyn RegistryFactory>("etcd3").unwrap();
    factory.create(&etcd.url("etcd3", query)).await.unwrap()
}

fn provider(port: u16) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:{port}/{IFACE}?interface={IFACE}&side=provider"
    ))
    .unwrap()
}

fn consumer() -> Url {
    Url::parse(&format!(
        "consumer://127.0.0.1/{IFACE}?interface={IFACE}&category=providers"
    ))
    .unwrap()
}

fn ports(rec: &Recorder) -> Vec<u16> {
    let seen = rec.seen.lock().unwrap();
    seen.last()
        .map(|n| {
            n.urls
                .iter()
                .filter(|u| u.protocol() != Some("empty"))
                .map(|u| u.port())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etcd_restart_keeps_entries_and_resumes_watches() {
    let Some(mut etcd) = etcd() else { return };
    let provider_side = registry(&etcd, "session=2000").await;
    let consumer_side = registry(&etcd, "").await;
    provider_side.register(&provider(1)).await.unwrap();
    let rec = Recorder::default();
    consumer_side
        .subscribe(&consumer(), rec.listener())
        .await
        .unwrap();
    eventually(5, "first provider seen", || ports(&rec) == vec![1]).await;

    etcd.stop();
    eventually(10, "registry notices the outage", || {
        !consumer_side.is_available()
    })
    .await;
    // Longer than the lease TTL: the lease may lapse while the server is away.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(provider_side.register(&provider(3)).await.is_err());
    let pushes_before = rec.count();
    etcd.start();

    // The watch is re-armed and re-pushes the current list after the reconnect.
    eventually(15, "re-push after reconnect", || {
        rec.count() > pushes_before
    })
    .await;
    eventually(15, "the provider is back", || ports(&rec) == vec![1]).await;
    assert!(consumer_side.is_available());
    // New registrations after the restart reach the resumed watch.
    provider_side.register(&provider(2)).await.unwrap();
    eventually(5, "second provider seen", || ports(&rec) == vec![1, 2]).await;
    // And the entries stay alive: the keep-alive works on the new connection.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(ports(&rec), vec![1, 2]);
    assert_eq!(etcd.keys(&format!("/dubbo/{IFACE}/providers/")).len(), 2);
    provider_side.destroy().await;
    eventually(5, "destroy withdraws", || ports(&rec).is_empty()).await;
    consumer_side.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_lease_is_regranted_and_entries_re_put() {
    let Some(etcd) = etcd() else { return };
    let provider_side = registry(&etcd, "session=3000").await;
    let consumer_side = registry(&etcd, "").await;
    provider_side.register(&provider(1)).await.unwrap();
    provider_side.register(&provider(2)).await.unwrap();
    let rec = Recorder::default();
    consumer_side
        .subscribe(&consumer(), rec.listener())
        .await
        .unwrap();
    eventually(5, "providers seen", || ports(&rec) == vec![1, 2]).await;

    let leases = etcd.leases();
    assert_eq!(leases.len(), 1);
    etcd.revoke(&leases[0]);
    eventually(5, "revoking the lease deletes the entries", || {
        rec.last_is_empty()
    })
    .await;
    eventually(10, "entries re-put under a new lease", || {
        ports(&rec) == vec![1, 2]
    })
    .await;
    let now = etcd.leases();
    assert_eq!(now.len(), 1);
    assert_ne!(now, leases);
    // Java's value for an ephemeral URL key is the (new) lease id.
    for (_, value) in etcd.keys(&format!("/dubbo/{IFACE}/providers/")) {
        assert_eq!(value, now[0]);
    }
    provider_side.destroy().await;
    consumer_side.destroy().await;
}
