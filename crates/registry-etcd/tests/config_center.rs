//! The config centre against a real etcd: Java's key layout, compare-and-publish on the mod
//! revision, every change delivered in order, and catching up after a restart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dubbo_config_center::{
    ConfigChangeType::{Added, Deleted, Modified},
    ConfigChangedEvent, ConfigListener, ConfigTicket, DynamicConfiguration,
    DynamicConfigurationFactory,
};
use dubbo_core::Extensions;
use dubbo_registry_etcd::{register_etcd, EtcdDynamicConfiguration};
use support::{etcd, eventually, Etcd};

const KEY: &str = "org.foo.Greeter::.condition-router";
const GROUP: &str = "dubbo";
const NODE: &str = "/dubbo/config/dubbo/org.foo.Greeter::.condition-router";

/// One event as compared: the change's name and the content.
type Seen = (String, Option<String>);

/// The events a listener got, in order.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<Seen>>>);

impl Events {
    fn listener(&self) -> Arc<dyn ConfigListener> {
        let events = self.0.clone();
        Arc::new(move |e: &ConfigChangedEvent| {
            assert_eq!((e.key.as_str(), e.group.as_str()), (KEY, GROUP));
            events
                .lock()
                .unwrap()
                .push((format!("{:?}", e.change), e.content.clone()));
        })
    }

    fn got(&self) -> Vec<Seen> {
        self.0.lock().unwrap().clone()
    }

    /// Waits until `n` events arrived (no more than `secs`), then a little longer to see
    /// that no further one follows.
    async fn settle(&self, n: usize, secs: u64) -> Vec<Seen> {
        eventually(secs, &format!("{n} events"), || self.got().len() >= n).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.got()
    }
}

fn ev(change: dubbo_config_center::ConfigChangeType, content: Option<&str>) -> Seen {
    (format!("{change:?}"), content.map(str::to_owned))
}

async fn centre(etcd: &Etcd, scheme: &str) -> Arc<dyn DynamicConfiguration> {
    let ext = Extensions::new();
    register_etcd(&ext);
    let factory = ext.get::<dyn DynamicConfigurationFactory>(scheme).unwrap();
    factory.create(&etcd.url(scheme, "")).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_are_javas_and_cas_compares_the_mod_revision() {
    let Some(etcd) = etcd() else { return };
    let config = centre(&etcd, "etcd3").await;
    assert!(centre(&etcd, "etcd")
        .await
        .get_config(KEY, GROUP)
        .await
        .unwrap()
        .is_none());
    assert!(config.get_config_item(KEY, GROUP).await.unwrap().is_none());
    assert!(!config.remove_config(KEY, GROUP).await.unwrap());

    config
        .publish_config(KEY, GROUP, "force: true")
        .await
        .unwrap();
    assert_eq!(
        etcd.keys(NODE),
        [(NODE.to_owned(), "force: true".to_owned())]
    );

    let read = config.get_config_item(KEY, GROUP).await.unwrap().unwrap();
    assert_eq!(read.content, "force: true");
    assert!(config
        .publish_config_cas(KEY, GROUP, "won", Some(&read.ticket))
        .await
        .unwrap());
    assert!(!config
        .publish_config_cas(KEY, GROUP, "lost", Some(&read.ticket))
        .await
        .unwrap());
    assert!(!config
        .publish_config_cas(KEY, GROUP, "exists", None)
        .await
        .unwrap());
    assert_eq!(
        config.get_config(KEY, "").await.unwrap().as_deref(),
        Some("won")
    );
    assert!(config
        .publish_config_cas("new.key", "other", "first", None)
        .await
        .unwrap());
    assert_eq!(etcd.keys("/dubbo/config/other/new.key")[0].1, "first");
    let foreign = ConfigTicket::new("v7");
    let err = config
        .publish_config_cas(KEY, GROUP, "x", Some(&foreign))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "CONFIG_CENTER_CONFIG", "{err}");

    assert!(config.remove_config(KEY, GROUP).await.unwrap());
    assert!(etcd.keys(NODE).is_empty());
    assert!(config.get_config(KEY, GROUP).await.unwrap().is_none());

    let spaced = EtcdDynamicConfiguration::connect(&etcd.url("etcd", "namespace=team"))
        .await
        .unwrap();
    spaced.publish_config("k", "g", "v").await.unwrap();
    assert_eq!(etcd.keys("/team/config/g/k")[0].1, "v");

    config.close().await;
    let err = config.publish_config(KEY, GROUP, "late").await.unwrap_err();
    assert_eq!(err.code(), "CONFIG_CENTER_CLOSED", "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_reaches_the_listener_in_order() {
    let Some(etcd) = etcd() else { return };
    let watcher = centre(&etcd, "etcd3").await;
    let writer = EtcdDynamicConfiguration::connect(&etcd.url("etcd3", ""))
        .await
        .unwrap();
    let events = Events::default();
    let listener = events.listener();
    assert_eq!(
        watcher
            .add_listener(KEY, GROUP, listener.clone())
            .await
            .unwrap(),
        None
    );

    // Another client (etcd's JSON gateway) writes; the listener hears within a second.
    let start = Instant::now();
    etcd.put(NODE, "v1");
    eventually(1, "the first event", || !events.got().is_empty()).await;
    assert!(start.elapsed() < Duration::from_secs(1));

    // A burst: etcd reports each revision, so each change arrives, in order.
    for v in ["v2", "v3", "v4"] {
        writer.publish_config(KEY, GROUP, v).await.unwrap();
    }
    writer.remove_config(KEY, GROUP).await.unwrap();
    let expected = vec![
        ev(Added, Some("v1")),
        ev(Modified, Some("v2")),
        ev(Modified, Some("v3")),
        ev(Modified, Some("v4")),
        ev(Deleted, None),
    ];
    assert_eq!(events.settle(5, 10).await, expected);

    // A longer key sharing the prefix is somebody else's.
    writer
        .publish_config(&format!("{KEY}.bak"), GROUP, "other")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(events.got(), expected);

    writer.publish_config(KEY, GROUP, "v5").await.unwrap();
    let late = Events::default();
    let late_listener = late.listener();
    // Added twice, it still hears each change once.
    for _ in 0..2 {
        let armed = watcher
            .add_listener(KEY, GROUP, late_listener.clone())
            .await;
        assert_eq!(armed.unwrap().as_deref(), Some("v5"));
    }
    assert_eq!(
        events.settle(6, 10).await.last(),
        Some(&ev(Added, Some("v5")))
    );

    // The empty group is the default one.
    watcher.remove_listener(KEY, "", &listener).await.unwrap();
    writer.publish_config(KEY, GROUP, "v6").await.unwrap();
    assert_eq!(late.settle(1, 10).await, [ev(Modified, Some("v6"))]);
    assert_eq!(
        events.got().len(),
        6,
        "removed listener got {:?}",
        events.got()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_server_keeps_delivering() {
    let Some(mut etcd) = etcd() else { return };
    let watcher = centre(&etcd, "etcd").await;
    etcd.put(NODE, "before");
    let events = Events::default();
    let first = watcher
        .add_listener(KEY, GROUP, events.listener())
        .await
        .unwrap();
    assert_eq!(first.as_deref(), Some("before"));

    etcd.stop();
    let err = watcher.get_config(KEY, GROUP).await.unwrap_err();
    assert_eq!(err.code(), "CONFIG_CENTER_UNREACHABLE", "{err}");
    etcd.start();

    // The re-read after the restart finds the same value: nothing is delivered for it.
    let writer = EtcdDynamicConfiguration::connect(&etcd.url("etcd", ""))
        .await
        .unwrap();
    eventually(60, "etcd back", || etcd.keys(NODE).len() == 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(events.got().is_empty(), "{:?}", events.got());

    writer.publish_config(KEY, GROUP, "after").await.unwrap();
    assert_eq!(events.settle(1, 60).await, [ev(Modified, Some("after"))]);
}
