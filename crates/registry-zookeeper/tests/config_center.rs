//! The config centre against a real ZooKeeper: Java's node layout, compare-and-publish,
//! listeners in order, and catching up after the server restarts.

// Test helpers outside #[test] functions panic as the failure report too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_config_center::{
    ConfigChangeType, ConfigChangedEvent, ConfigListener, DynamicConfiguration,
    DynamicConfigurationFactory,
};
use dubbo_core::Extensions;
use dubbo_registry_zookeeper::{
    register_zookeeper, ZookeeperClient, ZookeeperDynamicConfiguration,
};
use support::{raw, Collector, ZkServer};

const KEY: &str = "demo-app.configurators";

fn listener(c: &Collector<ConfigChangedEvent>) -> Arc<dyn ConfigListener> {
    let c = c.clone();
    Arc::new(move |e: &ConfigChangedEvent| c.push(e.clone()))
}

fn event(change: ConfigChangeType, content: Option<&str>) -> ConfigChangedEvent {
    ConfigChangedEvent {
        key: KEY.to_owned(),
        group: "dubbo".to_owned(),
        content: content.map(str::to_owned),
        change,
    }
}

/// Waits (up to `within`) until `seen` holds exactly `expected`, then checks nothing more
/// arrives for a moment.
async fn expect_events(
    seen: &Collector<ConfigChangedEvent>,
    expected: &[ConfigChangedEvent],
    within: Duration,
) {
    let deadline = Instant::now() + within;
    while seen.all().len() < expected.len() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(seen.all(), expected, "within {within:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(seen.all(), expected, "and nothing more");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn values_live_where_java_keeps_them_and_cas_decides_one_writer() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let ext = Extensions::new();
    register_zookeeper(&ext);
    let factory = ext
        .get::<dyn DynamicConfigurationFactory>("zookeeper")
        .unwrap();
    let config = factory.create(&server.url("timeout=5000")).await.unwrap();

    assert_eq!(config.get_config(KEY, "dubbo").await.unwrap(), None);
    assert_eq!(config.get_config_item(KEY, "dubbo").await.unwrap(), None);
    assert!(!config.remove_config(KEY, "dubbo").await.unwrap());

    config
        .publish_config(KEY, "dubbo", "configVersion: v3.0\nenabled: true")
        .await
        .unwrap();
    let zk = raw(&server).await;
    let (data, _) = zk
        .get_data(&format!("/dubbo/config/dubbo/{KEY}"))
        .await
        .unwrap();
    assert_eq!(data, b"configVersion: v3.0\nenabled: true");
    // An empty group is the default one.
    assert_eq!(
        config.get_config(KEY, "").await.unwrap().as_deref(),
        Some("configVersion: v3.0\nenabled: true")
    );

    // Compare-and-publish: the first writer with the ticket wins, the second loses.
    let item = config.get_config_item(KEY, "dubbo").await.unwrap().unwrap();
    assert!(config
        .publish_config_cas(KEY, "dubbo", "first", Some(&item.ticket))
        .await
        .unwrap());
    assert!(!config
        .publish_config_cas(KEY, "dubbo", "second", Some(&item.ticket))
        .await
        .unwrap());
    assert!(!config
        .publish_config_cas(KEY, "dubbo", "again", None)
        .await
        .unwrap());
    assert_eq!(
        config.get_config(KEY, "dubbo").await.unwrap().as_deref(),
        Some("first")
    );
    // Absent key: only the "must not exist" ticket creates it.
    assert!(config
        .publish_config_cas("fresh.key", "g1", "new", None)
        .await
        .unwrap());
    assert_eq!(
        config
            .get_config("fresh.key", "g1")
            .await
            .unwrap()
            .as_deref(),
        Some("new")
    );
    let bad = dubbo_config_center::ConfigTicket::new("not-a-version");
    let err = config
        .publish_config_cas(KEY, "dubbo", "x", Some(&bad))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "CONFIG_CENTER_CONFIG", "{err}");

    assert!(config.remove_config(KEY, "dubbo").await.unwrap());
    assert_eq!(config.get_config(KEY, "dubbo").await.unwrap(), None);
    assert!(!config.remove_config(KEY, "dubbo").await.unwrap());

    // The namespace moves the whole tree.
    let other = ZookeeperDynamicConfiguration::connect(&server.url("namespace=ns"))
        .await
        .unwrap();
    other.publish_config("k", "g", "v").await.unwrap();
    assert_eq!(zk.get_data("/ns/config/g/k").await.unwrap().0, b"v");

    config.close().await;
    let err = config.get_config(KEY, "dubbo").await.unwrap_err();
    assert_eq!(err.code(), "CONFIG_CENTER_CLOSED", "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listeners_get_every_change_in_order_until_removed() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let watcher = ZookeeperDynamicConfiguration::connect(&server.url(""))
        .await
        .unwrap();
    // Another session, as another process would write.
    let writer = ZookeeperDynamicConfiguration::connect(&server.url(""))
        .await
        .unwrap();

    let seen = Collector::new();
    let l = listener(&seen);
    assert_eq!(
        watcher.add_listener(KEY, "dubbo", l.clone()).await.unwrap(),
        None
    );

    writer.publish_config(KEY, "dubbo", "v1").await.unwrap();
    // The other client's write arrives within a second.
    expect_events(
        &seen,
        &[event(ConfigChangeType::Added, Some("v1"))],
        Duration::from_secs(1),
    )
    .await;
    writer.publish_config(KEY, "dubbo", "v2").await.unwrap();
    expect_events(
        &seen,
        &[
            event(ConfigChangeType::Added, Some("v1")),
            event(ConfigChangeType::Modified, Some("v2")),
        ],
        Duration::from_secs(10),
    )
    .await;
    writer.remove_config(KEY, "dubbo").await.unwrap();
    let all = [
        event(ConfigChangeType::Added, Some("v1")),
        event(ConfigChangeType::Modified, Some("v2")),
        event(ConfigChangeType::Deleted, None),
    ];
    expect_events(&seen, &all, Duration::from_secs(10)).await;

    // A second listener on an existing value gets it back from add_listener.
    writer.publish_config(KEY, "dubbo", "v3").await.unwrap();
    let mut expected = all.to_vec();
    expected.push(event(ConfigChangeType::Added, Some("v3")));
    expect_events(&seen, &expected, Duration::from_secs(10)).await;
    let second = Collector::new();
    let second_listener = listener(&second);
    // Added twice, it still hears each change once.
    for _ in 0..2 {
        let armed = watcher
            .add_listener(KEY, "dubbo", second_listener.clone())
            .await
            .unwrap();
        assert_eq!(armed.as_deref(), Some("v3"));
    }

    // Removed (the empty group is the default one): nothing more for the first, the second
    // still hears.
    watcher.remove_listener(KEY, "", &l).await.unwrap();
    writer.publish_config(KEY, "dubbo", "v4").await.unwrap();
    expect_events(
        &second,
        &[event(ConfigChangeType::Modified, Some("v4"))],
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(seen.all(), expected);
    watcher.close().await;
    writer.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_server_restart_changes_are_delivered_again() {
    let Some(mut server) = ZkServer::start() else {
        return;
    };
    let url = server.url("session=20000&timeout=3000");
    let watcher = ZookeeperDynamicConfiguration::connect(&url).await.unwrap();
    let writer = ZookeeperDynamicConfiguration::connect(&url).await.unwrap();
    writer.publish_config(KEY, "dubbo", "before").await.unwrap();
    let seen = Collector::new();
    assert_eq!(
        watcher
            .add_listener(KEY, "dubbo", listener(&seen))
            .await
            .unwrap()
            .as_deref(),
        Some("before")
    );

    server.stop();
    let err = watcher.get_config(KEY, "dubbo").await.unwrap_err();
    assert_eq!(err.code(), "CONFIG_CENTER_UNREACHABLE", "{err}");
    assert!(err.is_retryable());
    server.restart();
    let deadline = Instant::now() + Duration::from_secs(60);
    while writer.get_config(KEY, "dubbo").await.is_err() {
        assert!(Instant::now() < deadline, "no reconnect within 60 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The re-read after the reconnect found nothing new: nothing delivered.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(seen.all(), []);

    writer.publish_config(KEY, "dubbo", "after").await.unwrap();
    seen.wait_latest(
        "change after the restart",
        |_| true,
        |e| e.content.as_deref() == Some("after"),
    )
    .await;
    assert_eq!(
        seen.all(),
        [event(ConfigChangeType::Modified, Some("after"))]
    );
    watcher.close().await;
    writer.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_session_reads_again_and_delivers_only_the_difference() {
    let Some(mut server) = ZkServer::start() else {
        return;
    };
    let url = server.url("session=4000&timeout=3000");
    let client = ZookeeperClient::connect(&url).await.unwrap();
    let watcher = ZookeeperDynamicConfiguration::new(&url, client.clone());
    let writer = ZookeeperDynamicConfiguration::connect(&url).await.unwrap();
    writer.publish_config(KEY, "dubbo", "v1").await.unwrap();
    let seen = Collector::new();
    let armed = watcher.add_listener(KEY, "dubbo", listener(&seen)).await;
    assert_eq!(armed.unwrap().as_deref(), Some("v1"));

    // Away for longer than the session timeout: the watcher's session is given up.
    server.stop();
    tokio::time::sleep(Duration::from_millis(6000)).await;
    server.restart();
    // The writer may get through before or after the watcher's new session reads the node;
    // either way the listener hears of v2 once.
    let deadline = Instant::now() + Duration::from_secs(60);
    while writer.publish_config(KEY, "dubbo", "v2").await.is_err() {
        assert!(Instant::now() < deadline, "writer never got back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    seen.wait_latest(
        "v2 in the new session",
        |_| true,
        |e| e.content.as_deref() == Some("v2"),
    )
    .await;
    assert_eq!(client.session_generation(), 2);
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(seen.all(), [event(ConfigChangeType::Modified, Some("v2"))]);

    // And the watch lives on in the new session.
    writer.remove_config(KEY, "dubbo").await.unwrap();
    seen.wait_latest(
        "deleted in the new session",
        |_| true,
        |e| e.change == ConfigChangeType::Deleted,
    )
    .await;
    assert_eq!(seen.all().len(), 2);
}
