//! Application-level discovery against a real ZooKeeper: Curator's node and JSON, watches.

// Test helpers outside #[test] functions panic as the failure report too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use dubbo_registry::{InstancesListener, ServiceDiscovery, ServiceInstance, REVISION_KEY};
use dubbo_registry_zookeeper::ZookeeperServiceDiscovery;
use support::{raw, Collector, ZkServer};
use zookeeper_client as zk;

const APP: &str = "demo-provider";

fn instance(port: u16, revision: &str) -> ServiceInstance {
    let mut i = ServiceInstance::new(APP, "127.0.0.1", port);
    i.registration_time = 1_700_000_000_000;
    i.metadata
        .insert(REVISION_KEY.to_owned(), revision.to_owned());
    i.metadata.insert(
        "dubbo.endpoints".to_owned(),
        format!(r#"[{{"port":{port},"protocol":"dubbo"}}]"#),
    );
    i
}

type Push = (String, Vec<ServiceInstance>);

fn listener(c: &Collector<Push>) -> Arc<dyn InstancesListener> {
    let c = c.clone();
    Arc::new(move |app: &str, list: Vec<ServiceInstance>| c.push((app.to_owned(), list)))
}

fn revisions(p: &Push) -> Vec<(u16, String)> {
    p.1.iter()
        .map(|i| (i.port, i.revision().to_owned()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_register_watch_update_unregister() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let url = server.url("");
    let provider = ZookeeperServiceDiscovery::connect(&url).await.unwrap();
    let consumer = ZookeeperServiceDiscovery::connect(&url).await.unwrap();

    // Watching an application nobody registered yet: an empty list, then the first instance.
    let seen = Collector::new();
    consumer.watch(APP, listener(&seen)).await.unwrap();
    seen.wait_latest("empty", |_| true, |p| p.1.is_empty())
        .await;

    let first = instance(20880, "rev1");
    provider.register(&first).await.unwrap();
    let zk = raw(&server).await;
    let path = "/services/demo-provider/127.0.0.1:20880";
    assert_eq!(provider.node_path(&first), path);
    let (data, stat) = zk.get_data(path).await.unwrap();
    assert_eq!(String::from_utf8(data).unwrap(), first.to_curator_json());
    assert_ne!(stat.ephemeral_owner, 0, "instances are ephemeral");
    let p = seen
        .wait_latest("first instance", |_| true, |p| p.1.len() == 1)
        .await;
    assert_eq!(p.0, APP);
    assert_eq!(p.1, vec![first.clone()]);

    // Registering again rewrites the node (a new revision) and the watch sees the content.
    let updated = instance(20880, "rev2");
    provider.register(&updated).await.unwrap();
    let (data, stat2) = zk.get_data(path).await.unwrap();
    assert_eq!(String::from_utf8(data).unwrap(), updated.to_curator_json());
    assert_eq!(stat2.czxid, stat.czxid, "updated in place, not re-created");
    assert_eq!(stat2.version, stat.version + 1);
    seen.wait_latest(
        "update",
        |_| true,
        |p| revisions(p) == [(20880, "rev2".to_owned())],
    )
    .await;

    // A node that is not Curator JSON is skipped, the rest still delivered.
    let open = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    zk.create("/services/demo-provider/10.0.0.9:1", b"{not json", &open)
        .await
        .unwrap();
    let second = instance(20881, "rev1");
    provider.register(&second).await.unwrap();
    let p = seen
        .wait_latest("two instances", |_| true, |p| p.1.len() == 2)
        .await;
    assert_eq!(
        revisions(&p),
        [(20880, "rev2".to_owned()), (20881, "rev1".to_owned())]
    );
    let listed = consumer.instances(APP).await.unwrap();
    assert_eq!(listed, vec![updated.clone(), second.clone()]);

    provider.unregister(&updated).await.unwrap();
    seen.wait_latest(
        "one left",
        |_| true,
        |p| revisions(p) == [(20881, "rev1".to_owned())],
    )
    .await;
    assert!(zk.get_data(path).await.is_err());

    // Destroy withdraws the rest.
    provider.destroy().await;
    seen.wait_latest("none left", |_| true, |p| p.1.is_empty())
        .await;
    consumer.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn root_path_parameter_moves_instances() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let d = ZookeeperServiceDiscovery::connect(&server.url("rootPath=/elsewhere"))
        .await
        .unwrap();
    let i = instance(1, "r");
    d.register(&i).await.unwrap();
    let zk = raw(&server).await;
    let (data, _) = zk
        .get_data("/elsewhere/demo-provider/127.0.0.1:1")
        .await
        .unwrap();
    assert_eq!(data, i.to_curator_json().into_bytes());
    assert_eq!(d.instances(APP).await.unwrap(), vec![i]);
    d.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_rereads_only_new_and_changed_instances() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let url = server.url("");
    let provider = ZookeeperServiceDiscovery::connect(&url).await.unwrap();
    let consumer = ZookeeperServiceDiscovery::connect(&url).await.unwrap();
    let (a, b) = (instance(20880, "rev1"), instance(20881, "rev1"));
    provider.register(&a).await.unwrap();
    provider.register(&b).await.unwrap();
    let seen = Collector::new();
    consumer.watch(APP, listener(&seen)).await.unwrap();
    seen.wait_latest("a and b", |_| true, |p| p.1 == [a.clone(), b.clone()])
        .await;

    // Nobody may read `a` any more. An ACL change fires no watch, so a consumer that read
    // every child again on each change could not list the application after this (its read
    // of `a` would fail and be retried); one that keeps what it read can.
    let zk = raw(&server).await;
    let a_path = provider.node_path(&a);
    let unreadable = [zk::Acl::new(
        zk::Permission::WRITE | zk::Permission::DELETE | zk::Permission::ADMIN,
        zk::AuthId::anyone(),
    )];
    zk.set_acl(&a_path, &unreadable, None).await.unwrap();
    assert!(zk.get_data(&a_path).await.is_err(), "the ACL denies reads");

    // A new instance: only it is read.
    let c = instance(20882, "rev1");
    provider.register(&c).await.unwrap();
    seen.wait_latest(
        "a kept, b kept, c read",
        |_| true,
        |p| p.1 == [a.clone(), b.clone(), c.clone()],
    )
    .await;

    // A changed instance: only it is read again.
    let b2 = instance(20881, "rev2");
    provider.register(&b2).await.unwrap();
    seen.wait_latest(
        "b read again",
        |_| true,
        |p| p.1 == [a.clone(), b2.clone(), c.clone()],
    )
    .await;

    // A removed instance is dropped without reading the others.
    provider.unregister(&c).await.unwrap();
    seen.wait_latest("c gone", |_| true, |p| p.1 == [a.clone(), b2.clone()])
        .await;

    // A consumer that never read `a` cannot list it: the ACL is in force.
    assert!(consumer.instances(APP).await.is_err());
    zk.set_acl(&a_path, &zk::Acls::anyone_all(), None)
        .await
        .unwrap();
    provider.destroy().await;
    consumer.destroy().await;
}
