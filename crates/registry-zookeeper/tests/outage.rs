//! Faults against a real ZooKeeper: the server going away and coming back, and a session
//! that expires meanwhile.

// Test helpers outside #[test] functions panic as the failure report too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::Duration;

use dubbo_registry::{Category, Notification, NotifyListener, Registry};
use dubbo_registry_zookeeper::{ZookeeperClient, ZookeeperRegistry};
use dubbo_url::Url;
use support::{eventually, raw, Collector, ZkServer};

const IFACE: &str = "org.apache.dubbo.demo.DemoService";

fn provider(port: u16) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:{port}/{IFACE}?interface={IFACE}&side=provider"
    ))
    .unwrap()
}

fn consumer() -> Url {
    Url::parse(&format!(
        "consumer://127.0.0.1/{IFACE}?interface={IFACE}&side=consumer&category=providers"
    ))
    .unwrap()
}

fn listener(c: &Collector<Notification>) -> Arc<dyn NotifyListener> {
    let c = c.clone();
    Arc::new(move |n: Notification| c.push(n))
}

fn ports(n: &Notification) -> Vec<u16> {
    let mut v: Vec<u16> = n
        .urls
        .iter()
        .filter(|u| u.protocol() == Some("dubbo"))
        .map(Url::port)
        .collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_within_the_session_catches_up() {
    let Some(mut server) = ZkServer::start() else {
        return;
    };
    let url = server.url("session=20000&timeout=3000");
    let client = ZookeeperClient::connect(&url).await.unwrap();
    let a = ZookeeperRegistry::new(&url, client.clone());
    a.register(&provider(1)).await.unwrap();
    let seen = Collector::new();
    a.subscribe(&consumer(), listener(&seen)).await.unwrap();
    seen.wait_latest(
        "first push",
        |n| n.category == Category::Providers,
        |n| ports(n) == [1],
    )
    .await;

    server.stop();
    eventually("disconnect noticed", || !a.is_available()).await;
    let err = a.register(&provider(9)).await.unwrap_err();
    assert_eq!(err.code(), "REGISTRY_UNREACHABLE", "{err}");
    assert!(err.is_retryable());

    server.restart();
    eventually("reconnected", || a.is_available()).await;
    // Same session: nothing had to be re-created.
    assert_eq!(client.session_generation(), 1);

    let b = ZookeeperRegistry::connect(&url).await.unwrap();
    b.register(&provider(2)).await.unwrap();
    seen.wait_latest(
        "provider of the other client",
        |n| n.category == Category::Providers,
        |n| ports(n) == [1, 2],
    )
    .await;
    a.destroy().await;
    b.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_session_is_replaced_and_everything_comes_back() {
    let Some(mut server) = ZkServer::start() else {
        return;
    };
    let url = server.url("session=4000&timeout=3000");
    let client = ZookeeperClient::connect(&url).await.unwrap();
    let a = ZookeeperRegistry::new(&url, client.clone());
    let mine = provider(1);
    a.register(&mine).await.unwrap();
    let seen = Collector::new();
    a.subscribe(&consumer(), listener(&seen)).await.unwrap();
    seen.wait_latest(
        "first push",
        |n| n.category == Category::Providers,
        |n| ports(n) == [1],
    )
    .await;
    let path = a.node_path(&mine).unwrap();
    let old_owner = {
        let zk = raw(&server).await;
        zk.get_data(&path).await.unwrap().1.ephemeral_owner
    };

    // Longer than the session timeout: the client gives the session up.
    server.stop();
    tokio::time::sleep(Duration::from_millis(7000)).await;
    server.restart();
    eventually("new session", || {
        client.session_generation() == 2 && a.is_available()
    })
    .await;

    // Our provider is back, owned by the new session; it must survive the server expiring
    // the old session's node too (4 s after the restart).
    let zk = raw(&server).await;
    let owner = zk.get_data(&path).await.unwrap().1.ephemeral_owner;
    assert_ne!(owner, old_owner);
    assert_ne!(owner, 0);
    tokio::time::sleep(Duration::from_millis(5000)).await;
    let owner_later = zk.get_data(&path).await.unwrap().1.ephemeral_owner;
    assert_eq!(owner_later, owner);

    // The subscription was re-armed in the new session.
    let b = ZookeeperRegistry::connect(&url).await.unwrap();
    b.register(&provider(2)).await.unwrap();
    seen.wait_latest(
        "push after expiry",
        |n| n.category == Category::Providers,
        |n| ports(n) == [1, 2],
    )
    .await;
    b.unregister(&provider(2)).await.unwrap();
    seen.wait_latest(
        "withdrawal after expiry",
        |n| n.category == Category::Providers,
        |n| ports(n) == [1],
    )
    .await;
    a.destroy().await;
    b.destroy().await;
}
