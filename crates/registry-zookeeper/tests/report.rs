//! The metadata report against a real ZooKeeper: mapping with compare-and-set, metadata by
//! revision, and the factories.

// Test helpers outside #[test] functions panic as the failure report too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::Arc;

use dubbo_core::Extensions;
use dubbo_registry::{
    MappingListener, MetadataInfo, MetadataReport, MetadataReportFactory, RegistryFactory,
    ServiceDiscoveryFactory, ServiceInfo,
};
use dubbo_registry_zookeeper::{register_zookeeper, ZookeeperMetadataReport};
use dubbo_url::Url;
use support::{raw, Collector, ZkServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mapping_with_concurrent_writers_keeps_both() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let url = server.url("");
    let one = Arc::new(ZookeeperMetadataReport::connect(&url).await.unwrap());
    let two = Arc::new(ZookeeperMetadataReport::connect(&url).await.unwrap());

    let seen: Collector<Vec<String>> = Collector::new();
    let c = seen.clone();
    let l: Arc<dyn MappingListener> = Arc::new(move |i: &str, apps: Vec<String>| {
        assert_eq!(i, "org.Foo0");
        c.push(apps)
    });
    one.watch_mapping("org.Foo0", l).await.unwrap();

    // Many interfaces at once, each written by both reports at the same time.
    let mut tasks = Vec::new();
    for n in 0..10 {
        for (report, app) in [(one.clone(), "app-one"), (two.clone(), "app-two")] {
            tasks.push(tokio::spawn(async move {
                report
                    .register_mapping(&format!("org.Foo{n}"), app)
                    .await
                    .unwrap();
            }));
        }
    }
    for t in tasks {
        t.await.unwrap();
    }
    let zk = raw(&server).await;
    for n in 0..10 {
        let iface = format!("org.Foo{n}");
        let mut apps = one.mapping(&iface).await.unwrap();
        apps.sort();
        assert_eq!(apps, ["app-one", "app-two"], "{iface}");
        let (data, stat) = zk
            .get_data(&format!("/dubbo/mapping/{iface}"))
            .await
            .unwrap();
        let data = String::from_utf8(data).unwrap();
        assert!(
            data == "app-one,app-two" || data == "app-two,app-one",
            "{data}"
        );
        assert_eq!(stat.ephemeral_owner, 0);
    }
    // Adding an app that is there already changes nothing.
    let before = zk
        .get_data("/dubbo/mapping/org.Foo1")
        .await
        .unwrap()
        .1
        .version;
    two.register_mapping("org.Foo1", "app-one").await.unwrap();
    assert_eq!(
        zk.get_data("/dubbo/mapping/org.Foo1")
            .await
            .unwrap()
            .1
            .version,
        before
    );
    let latest = seen
        .wait_latest("mapping push", |_| true, |apps| apps.len() == 2)
        .await;
    assert!(latest.contains(&"app-one".to_owned()) && latest.contains(&"app-two".to_owned()));
    assert!(one.mapping("org.Nothing").await.unwrap().is_empty());
    // Names as Java leaves them: spaces and empty entries are ignored on reading.
    zk.set_data("/dubbo/mapping/org.Foo2", b" a , ,b,", None)
        .await
        .unwrap();
    assert_eq!(one.mapping("org.Foo2").await.unwrap(), ["a", "b"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_by_revision_and_factories() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let ext = Extensions::new();
    register_zookeeper(&ext);
    let url = server.url("");
    let report = ext
        .get::<dyn MetadataReportFactory>("zookeeper")
        .unwrap()
        .create(&url)
        .await
        .unwrap();
    let registry = ext
        .get::<dyn RegistryFactory>("zookeeper")
        .unwrap()
        .create(&url)
        .await
        .unwrap();
    let discovery = ext
        .get::<dyn ServiceDiscoveryFactory>("zookeeper")
        .unwrap()
        .create(&url)
        .await
        .unwrap();
    assert!(registry.is_available());
    assert_eq!(discovery.url(), &url);

    let provider = Url::parse(
        "dubbo://127.0.0.1:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider&version=1.0.0",
    )
    .unwrap();
    let mut info = MetadataInfo::new("greeter-app");
    info.add_service(ServiceInfo::from_url(&provider));
    report.publish_app_metadata(&info).await.unwrap();

    let zk = raw(&server).await;
    let path = format!("/dubbo/metadata/greeter-app/{}", info.revision);
    let (data, _) = zk.get_data(&path).await.unwrap();
    assert_eq!(String::from_utf8(data).unwrap(), info.to_json());
    assert_eq!(
        report
            .app_metadata("greeter-app", &info.revision)
            .await
            .unwrap(),
        Some(info.clone())
    );
    assert_eq!(
        report.app_metadata("greeter-app", "nope").await.unwrap(),
        None
    );
    // Publishing again is an overwrite, not an error.
    report.publish_app_metadata(&info).await.unwrap();

    // A node that is not MetadataInfo JSON is reported as bad data, not a panic.
    zk.set_data(&path, b"{oops", None).await.unwrap();
    let err = report
        .app_metadata("greeter-app", &info.revision)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "REGISTRY_BAD_DATA");

    // The report URL's group moves the root.
    let other = ZookeeperMetadataReport::connect(&server.url("group=mine"))
        .await
        .unwrap();
    other
        .register_mapping("org.foo.Greeter", "greeter-app")
        .await
        .unwrap();
    let (data, _) = zk.get_data("/mine/mapping/org.foo.Greeter").await.unwrap();
    assert_eq!(data, b"greeter-app");
    registry.destroy().await;
    discovery.destroy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_share_one_session_per_address() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let clients = dubbo_registry_zookeeper::ZookeeperClients::new();
    let a = clients.get(&server.url("")).await.unwrap();
    let b = clients.get(&server.url("")).await.unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    let c = clients.get(&server.url("session=30000")).await.unwrap();
    assert!(!Arc::ptr_eq(&a, &c));
    drop((a, b));
    let d = clients.get(&server.url("")).await.unwrap();
    assert!(d.is_connected());
}

/// Service definitions go where Java's `ZookeeperMetadataReport` keeps them (empty version or
/// group left out of the path) and read back; the registry and discovery list what they hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definitions_at_javas_path_and_listings() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let url = server.url("");
    let report = ZookeeperMetadataReport::connect(&url).await.unwrap();
    let id = dubbo_registry::DefinitionId::provider("org.Svc", "1.0.0", "", "app");
    assert_eq!(report.definition(&id).await.unwrap(), None);
    report.store_definition(&id, "{\"a\":1}").await.unwrap();
    report.store_definition(&id, "{\"a\":2}").await.unwrap();
    let zk = raw(&server).await;
    let (data, _) = zk
        .get_data("/dubbo/metadata/org.Svc/1.0.0/provider/app")
        .await
        .unwrap();
    assert_eq!(data, b"{\"a\":2}");
    assert_eq!(
        report.definition(&id).await.unwrap().as_deref(),
        Some("{\"a\":2}")
    );
    let grouped = dubbo_registry::DefinitionId::provider("org.Svc", "", "g", "app");
    report.store_definition(&grouped, "{}").await.unwrap();
    assert!(zk
        .get_data("/dubbo/metadata/org.Svc/g/provider/app")
        .await
        .is_ok());

    // Listing: interfaces under the root (not metadata, mapping or config), applications
    // under /services.
    let ext = Extensions::new();
    register_zookeeper(&ext);

    // The consumer entries of one service, by application, from the report's listing; a
    // version-less service's entries sit one level up (`metadata/org.Svc/consumer/app`).
    let listing = ext
        .get::<dyn dubbo_registry::DefinitionListingFactory>("zookeeper")
        .unwrap()
        .create_listing(&url)
        .await
        .unwrap();
    let consumer =
        |v: &str, app: &str| dubbo_registry::DefinitionId::consumer("org.Svc", v, "", app);
    assert!(listing
        .definition_entries(&consumer("1.0.0", ""))
        .await
        .unwrap()
        .is_empty());
    report
        .store_definition(&consumer("1.0.0", "b"), "{\"x\":\"b\"}")
        .await
        .unwrap();
    report
        .store_definition(&consumer("1.0.0", "a"), "{\"x\":\"a\"}")
        .await
        .unwrap();
    report
        .store_definition(&consumer("", "c"), "{}")
        .await
        .unwrap();
    assert!(zk
        .get_data("/dubbo/metadata/org.Svc/consumer/c")
        .await
        .is_ok());
    let entries = listing
        .definition_entries(&consumer("1.0.0", ""))
        .await
        .unwrap();
    let apps: Vec<_> = entries
        .iter()
        .map(|e| (e.application.as_str(), e.content.as_str()))
        .collect();
    assert_eq!(apps, [("a", "{\"x\":\"a\"}"), ("b", "{\"x\":\"b\"}")]);
    let entries = listing.definition_entries(&consumer("", "")).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].application, "c");
    let registry = ext
        .get::<dyn RegistryFactory>("zookeeper")
        .unwrap()
        .create(&url)
        .await
        .unwrap();
    let provider = Url::parse(
        "dubbo://127.0.0.1:20880/org.Listed?interface=org.Listed&side=provider&version=1",
    )
    .unwrap();
    registry.register(&provider).await.unwrap();
    report.register_mapping("org.Mapped", "app").await.unwrap();
    assert_eq!(registry.services().await.unwrap(), ["org.Listed"]);
    let discovery = ext
        .get::<dyn ServiceDiscoveryFactory>("zookeeper")
        .unwrap()
        .create(&url)
        .await
        .unwrap();
    assert!(discovery.applications().await.unwrap().is_empty());
    let instance = dubbo_registry::ServiceInstance::new("listed-app", "127.0.0.1", 20880);
    discovery.register(&instance).await.unwrap();
    assert_eq!(discovery.applications().await.unwrap(), ["listed-app"]);
    registry.destroy().await;
    discovery.destroy().await;
}
