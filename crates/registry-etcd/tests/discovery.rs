//! EtcdServiceDiscovery against a real etcd: Java's key and JSON, watch pushes on register,
//! update and unregister, garbage skipped, lease expiry of a dead process.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use dubbo_core::Extensions;
use dubbo_registry::{
    InstancesListener, ServiceDiscovery, ServiceDiscoveryFactory, ServiceInstance, REVISION_KEY,
};
use dubbo_registry_etcd::register_etcd;
use support::{etcd, eventually, Etcd};

async fn discovery(etcd: &Etcd, query: &str) -> Arc<dyn ServiceDiscovery> {
    let ext = Extensions::new();
    register_etcd(&ext);
    // Java names its discovery factory `etcd`.
    let factory = ext.get::<dyn ServiceDiscoveryFactory>("etcd").unwrap();
    factory.create(&etcd.url("etcd", query)).await.unwrap()
}

fn instance(port: u16, revision: &str) -> ServiceInstance {
    let mut i = ServiceInstance::new("demo-provider", "127.0.0.1", port);
    i.metadata.insert(REVISION_KEY.into(), revision.into());
    i.metadata.insert(
        "dubbo.endpoints".into(),
        format!(r#"[{{"port":{port},"protocol":"dubbo"}}]"#),
    );
    i
}

type Seen = Arc<Mutex<Vec<Vec<ServiceInstance>>>>;

fn recorder() -> (Seen, Arc<dyn InstancesListener>) {
    let seen: Seen = Arc::default();
    let s = Arc::clone(&seen);
    let listener: Arc<dyn InstancesListener> =
        Arc::new(move |app: &str, list: Vec<ServiceInstance>| {
            assert_eq!(app, "demo-provider");
            s.lock().unwrap().push(list)
        });
    (seen, listener)
}

fn last(seen: &Seen) -> Option<Vec<(u16, String)>> {
    seen.lock().unwrap().last().map(|l| {
        l.iter()
            .map(|i| (i.port, i.revision().to_owned()))
            .collect()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_register_watch_update_unregister() {
    let Some(etcd) = etcd() else { return };
    let sd = discovery(&etcd, "session=2000").await;
    sd.register(&instance(20880, "r1")).await.unwrap();

    let keys = etcd.keys("/services/");
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].0, "/services/demo-provider/127.0.0.1:20880");
    let json: serde_json::Value = serde_json::from_str(&keys[0].1).unwrap();
    assert_eq!(json["serviceName"], "demo-provider");
    assert_eq!(json["host"], "127.0.0.1");
    assert_eq!(json["port"], 20880);
    assert_eq!(json["enabled"], true);
    assert_eq!(json["healthy"], true);
    assert_eq!(json["metadata"][REVISION_KEY], "r1");

    let (seen, listener) = recorder();
    sd.watch("demo-provider", Arc::clone(&listener))
        .await
        .unwrap();
    eventually(5, "initial list", || {
        last(&seen) == Some(vec![(20880, "r1".into())])
    })
    .await;
    // The watcher wrote Java's application "directory" key, which is not an instance.
    assert!(etcd
        .keys("/services/demo-provider")
        .iter()
        .any(|(k, _)| k == "/services/demo-provider"));
    // Operators' tools list the applications with instances; a "directory" key alone is none.
    etcd.put("/services/no-instances", "1");
    assert_eq!(sd.applications().await.unwrap(), vec!["demo-provider"]);

    // A new revision replaces the entry of the same host and port.
    sd.register(&instance(20880, "r2")).await.unwrap();
    eventually(5, "updated revision", || {
        last(&seen) == Some(vec![(20880, "r2".into())])
    })
    .await;

    // A second process of the same application, and garbage someone left behind.
    let other = discovery(&etcd, "session=2000").await;
    other.register(&instance(20881, "r2")).await.unwrap();
    etcd.put("/services/demo-provider/garbage:1", "{not json");
    eventually(5, "two instances, garbage skipped", || {
        last(&seen) == Some(vec![(20880, "r2".into()), (20881, "r2".into())])
    })
    .await;
    let listed = sd.instances("demo-provider").await.unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!(listed[1].port_for("dubbo"), 20881);

    // The other process dies: its instance lapses with its lease.
    drop(other);
    eventually(10, "dead instance gone", || {
        last(&seen) == Some(vec![(20880, "r2".into())])
    })
    .await;

    sd.unregister(&instance(20880, "r2")).await.unwrap();
    eventually(5, "empty list", || last(&seen) == Some(vec![])).await;

    sd.unwatch("demo-provider", &listener).await.unwrap();
    let pushes = seen.lock().unwrap().len();
    sd.register(&instance(20882, "r3")).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(seen.lock().unwrap().len(), pushes, "no push after unwatch");
    sd.destroy().await;
    assert!(etcd.keys("/services/demo-provider/127").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn java_written_instance_is_read() {
    let Some(etcd) = etcd() else { return };
    // What Java's EtcdServiceDiscovery writes (Gson, HTML-safe escapes).
    etcd.put(
        "/services/java-app/10.0.0.7:20880",
        r#"{"serviceName":"java-app","host":"10.0.0.7","port":20880,"enabled":true,"healthy":true,"metadata":{"dubbo.metadata.revision":"abc","dubbo.metadata-service.url-params":"{\"version\":\"1.0.0\",\"port\":\"20880\",\"protocol\":\"dubbo\"}","anyhost":"a\u003db"}}"#,
    );
    let sd = discovery(&etcd, "").await;
    let list = sd.instances("java-app").await.unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].host, "10.0.0.7");
    assert_eq!(list[0].revision(), "abc");
    assert_eq!(list[0].metadata["anyhost"], "a=b");
    assert_eq!(list[0].metadata_service_params()["port"], "20880");
    sd.destroy().await;
}
