//! EtcdMetadataReport against a real etcd: metadata by revision, and the mapping updated by
//! concurrent writers without losing either.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::sync::{Arc, Mutex};

use dubbo_core::Extensions;
use dubbo_registry::{
    MappingListener, MetadataInfo, MetadataReport, MetadataReportFactory, ServiceInfo,
};
use dubbo_registry_etcd::register_etcd;
use dubbo_url::Url;
use support::{etcd, eventually, Etcd};

/// A report from its own framework instance, so two of them have two connections.
async fn report(etcd: &Etcd) -> Arc<dyn MetadataReport> {
    let ext = Extensions::new();
    register_etcd(&ext);
    let factory = ext.get::<dyn MetadataReportFactory>("etcd").unwrap();
    factory.create(&etcd.url("etcd", "")).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_publish_and_read() {
    let Some(etcd) = etcd() else { return };
    let r = report(&etcd).await;
    let url = Url::parse(
        "dubbo://10.0.0.5:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider&version=1.0",
    )
    .unwrap();
    let mut info = MetadataInfo::new("greeter-app");
    info.add_service(ServiceInfo::from_url(&url));
    r.publish_app_metadata(&info).await.unwrap();

    let key = format!("/dubbo/metadata/greeter-app/{}", info.revision);
    let keys = etcd.keys("/dubbo/metadata/");
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].0, key);
    assert_eq!(
        r.app_metadata("greeter-app", &info.revision).await.unwrap(),
        Some(info.clone())
    );
    assert_eq!(r.app_metadata("greeter-app", "nope").await.unwrap(), None);

    etcd.put("/dubbo/metadata/greeter-app/broken", "{{{");
    let err = r.app_metadata("greeter-app", "broken").await.unwrap_err();
    assert_eq!(err.code(), "REGISTRY_BAD_DATA");
    assert!(err
        .to_string()
        .contains("/dubbo/metadata/greeter-app/broken"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_mapping_writers_both_land() {
    let Some(etcd) = etcd() else { return };
    let a = report(&etcd).await;
    let b = report(&etcd).await;
    let seen: Arc<Mutex<Vec<Vec<String>>>> = Arc::default();
    let s = Arc::clone(&seen);
    let listener: Arc<dyn MappingListener> = Arc::new(move |iface: &str, apps: Vec<String>| {
        assert_eq!(iface, "org.foo.I0");
        s.lock().unwrap().push(apps)
    });
    a.watch_mapping("org.foo.I0", Arc::clone(&listener))
        .await
        .unwrap();

    // Ten interfaces, two writers racing on each.
    let mut tasks = Vec::new();
    for i in 0..10 {
        for (r, app) in [(Arc::clone(&a), "app-a"), (Arc::clone(&b), "app-b")] {
            tasks.push(tokio::spawn(async move {
                r.register_mapping(&format!("org.foo.I{i}"), app).await
            }));
        }
    }
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    for i in 0..10 {
        let mut apps = a.mapping(&format!("org.foo.I{i}")).await.unwrap();
        apps.sort();
        assert_eq!(apps, vec!["app-a", "app-b"], "interface {i}");
    }
    assert_eq!(
        etcd.keys("/dubbo/mapping/org.foo.I0")[0]
            .1
            .split(',')
            .count(),
        2
    );
    // Adding an app already there changes nothing.
    b.register_mapping("org.foo.I0", "app-a").await.unwrap();
    assert_eq!(a.mapping("org.foo.I0").await.unwrap().len(), 2);
    eventually(5, "mapping change pushed", || {
        seen.lock()
            .unwrap()
            .last()
            .is_some_and(|apps| apps.len() == 2)
    })
    .await;
    assert!(a.mapping("org.foo.None").await.unwrap().is_empty());
    a.unwatch_mapping("org.foo.I0", &listener).await.unwrap();
}

/// The consumer entries of one service are listed by application from the prefix of Java's
/// path, without entries of other versions or deeper keys.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn definition_entries_of_one_service_and_side() {
    let Some(etcd) = etcd() else { return };
    let ext = Extensions::new();
    register_etcd(&ext);
    let url = etcd.url("etcd", "");
    let r = ext
        .get::<dyn MetadataReportFactory>("etcd")
        .unwrap()
        .create(&url)
        .await
        .unwrap();
    let listing = ext
        .get::<dyn dubbo_registry::DefinitionListingFactory>("etcd")
        .unwrap()
        .create_listing(&url)
        .await
        .unwrap();
    let id = |app: &str| dubbo_registry::DefinitionId::consumer("org.Svc", "1.0.0", "", app);
    assert!(listing
        .definition_entries(&id(""))
        .await
        .unwrap()
        .is_empty());
    r.store_definition(&id("b-app"), "{\"b\":\"1\"}")
        .await
        .unwrap();
    r.store_definition(&id("a-app"), "{\"a\":\"1\"}")
        .await
        .unwrap();
    let other = dubbo_registry::DefinitionId::consumer("org.Svc", "2.0.0", "", "c-app");
    r.store_definition(&other, "{}").await.unwrap();
    etcd.put("/dubbo/metadata/org.Svc/1.0.0/consumer/a-app/deeper", "{}");
    let entries = listing.definition_entries(&id("ignored")).await.unwrap();
    let apps: Vec<_> = entries.iter().map(|e| e.application.as_str()).collect();
    assert_eq!(apps, ["a-app", "b-app"]);
    assert_eq!(entries[0].content, "{\"a\":\"1\"}");
}
