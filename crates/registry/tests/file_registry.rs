//! The file registry with real directories, real timers and (in `cross_process_*`) a second
//! real process.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use dubbo_registry::{
    register_file, Category, DefinitionListing, FileMetadataReport, FileRegistry,
    FileServiceDiscovery, InstancesListener, MappingListener, MetadataInfo, MetadataReport,
    Notification, NotifyListener, Registry, RegistryFactory, ServiceDiscovery,
    ServiceDiscoveryFactory, ServiceInfo, ServiceInstance, REVISION_KEY,
};
use dubbo_url::Url;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

const IFACE: &str = "org.demo.Greeter";

fn reg_url(dir: &std::path::Path) -> Url {
    Url::parse(&format!("file://{}?poll.period=50", dir.display())).unwrap()
}

fn provider(port: u16) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:{port}/{IFACE}?interface={IFACE}&side=provider&methods=greet,hello&application=demo"
    ))
    .unwrap()
}

fn consumer() -> Url {
    Url::parse(&format!(
        "consumer://127.0.0.1/{IFACE}?interface={IFACE}&side=consumer&category=providers,routers"
    ))
    .unwrap()
}

fn channel_listener() -> (Arc<dyn NotifyListener>, UnboundedReceiver<Notification>) {
    let (tx, rx) = unbounded_channel();
    let l: Arc<dyn NotifyListener> = Arc::new(move |n: Notification| {
        let _ = tx.send(n);
    });
    (l, rx)
}

/// Waits for a providers push satisfying `pred`, failing after `secs`.
async fn providers_until(
    rx: &mut UnboundedReceiver<Notification>,
    secs: u64,
    pred: impl Fn(&[Url]) -> bool,
) -> Vec<Url> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let n = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("no matching push in time")
            .expect("channel closed");
        if n.category == Category::Providers && pred(&n.urls) {
            return n.urls.to_vec();
        }
    }
}

fn is_empty_push(urls: &[Url]) -> bool {
    urls.len() == 1 && urls[0].protocol() == Some("empty")
}

fn ports(urls: &[Url]) -> Vec<u16> {
    let mut p: Vec<u16> = urls
        .iter()
        .filter(|u| u.protocol() != Some("empty"))
        .map(Url::port)
        .collect();
    p.sort();
    p
}

#[tokio::test]
async fn a_provider_and_a_consumer_find_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let provider_side = FileRegistry::open(&reg_url(dir.path())).unwrap();
    let consumer_side = FileRegistry::open(&reg_url(dir.path())).unwrap();
    let (l, mut rx) = channel_listener();
    consumer_side
        .subscribe(&consumer(), l.clone())
        .await
        .unwrap();
    // First pushes: every category, empty ones as empty://.
    let mut first = [rx.recv().await.unwrap(), rx.recv().await.unwrap()];
    first.sort_by_key(|n| n.category);
    assert_eq!(first[0].category, Category::Providers);
    assert_eq!(first[1].category, Category::Routers);
    assert!(first.iter().all(|n| is_empty_push(&n.urls)));
    assert_eq!(first[1].urls[0].parameter("category"), Some("routers"));

    provider_side.register(&provider(20880)).await.unwrap();
    let urls = providers_until(&mut rx, 5, |u| ports(u) == [20880]).await;
    assert_eq!(urls[0].parameter("methods"), Some("greet,hello"));
    assert_eq!(
        consumer_side.lookup(&consumer()).await.unwrap(),
        vec![provider(20880)]
    );
    // A lookup reads the categories it names: a registered consumer under `consumers` only.
    let registered = consumer().with_parameter("category", "consumers");
    consumer_side.register(&registered).await.unwrap();
    let consumers = consumer_side
        .lookup(&consumer().with_parameter("category", "consumers"))
        .await
        .unwrap();
    assert_eq!(consumers, vec![registered.clone()]);
    assert_eq!(
        consumer_side.lookup(&consumer()).await.unwrap(),
        vec![provider(20880)]
    );
    consumer_side.unregister(&registered).await.unwrap();

    // The file is where ZooKeeper's node would be.
    let expected = dir
        .path()
        .join("dubbo")
        .join(IFACE)
        .join("providers")
        .join(dubbo_url::encode(&provider(20880).to_full_string()));
    assert!(expected.exists(), "{}", expected.display());

    provider_side.unregister(&provider(20880)).await.unwrap();
    providers_until(&mut rx, 5, is_empty_push).await;

    // dynamic=false is persistent: it outlives its registry.
    let fixed = provider(20881).with_parameter("dynamic", "false");
    provider_side.register(&fixed).await.unwrap();
    provider_side.register(&provider(20882)).await.unwrap();
    providers_until(&mut rx, 5, |u| ports(u) == [20881, 20882]).await;
    provider_side.destroy().await;
    providers_until(&mut rx, 5, |u| ports(u) == [20881]).await;
    assert_eq!(
        provider_side
            .register(&provider(1))
            .await
            .unwrap_err()
            .code(),
        "REGISTRY_CLOSED"
    );

    consumer_side.unsubscribe(&consumer(), &l).await.unwrap();
}

#[tokio::test]
async fn an_unchanged_provider_is_not_parsed_again() {
    let dir = tempfile::tempdir().unwrap();
    let reg = FileRegistry::open(&reg_url(dir.path())).unwrap();
    let (l, mut rx) = channel_listener();
    reg.subscribe(&consumer(), l).await.unwrap();
    reg.register(&provider(1)).await.unwrap();
    let a = providers_until(&mut rx, 5, |u| ports(u) == [1]).await;
    reg.register(&provider(2)).await.unwrap();
    let b = providers_until(&mut rx, 5, |u| ports(u) == [1, 2]).await;
    let a_again = b.iter().find(|u| u.port() == 1).unwrap();
    assert!(std::ptr::eq(a[0].address_part(), a_again.address_part()));
    assert!(std::ptr::eq(a[0].params(), a_again.params()) || a[0].params() == a_again.params());
}

#[tokio::test]
async fn long_urls_and_bad_files_are_handled() {
    let dir = tempfile::tempdir().unwrap();
    let reg = FileRegistry::open(&reg_url(dir.path())).unwrap();
    let methods: Vec<String> = (0..60).map(|i| format!("method{i}")).collect();
    let long = provider(3).with_parameter("methods", &methods.join(","));
    reg.register(&long).await.unwrap();
    let providers = dir.path().join("dubbo").join(IFACE).join("providers");
    // Junk a human or another tool left: skipped with a warning, not fatal.
    std::fs::write(providers.join("dubbo%3A%2F%2Fh%3A1%2Fx%3Fa%3D%ZZ"), b"").unwrap();
    std::fs::write(providers.join("~0123456789abcdef0123456789abcdef"), b"%%%").unwrap();
    reg.register(&provider(4)).await.unwrap();

    let (l, mut rx) = channel_listener();
    reg.subscribe(&consumer(), l).await.unwrap();
    let urls = providers_until(&mut rx, 5, |u| ports(u) == [3, 4]).await;
    let got = urls.iter().find(|u| u.port() == 3).unwrap();
    assert_eq!(got.parameter("methods"), Some(methods.join(",").as_str()));
    let names: Vec<String> = std::fs::read_dir(&providers)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| n.len() <= 255));
}

#[tokio::test]
async fn instances_are_watched_and_rewrites_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let provider_side = FileServiceDiscovery::open(&reg_url(dir.path())).unwrap();
    let consumer_side = FileServiceDiscovery::open(&reg_url(dir.path())).unwrap();
    let (tx, mut rx) = unbounded_channel();
    let l: Arc<dyn InstancesListener> = Arc::new(move |app: &str, i: Vec<ServiceInstance>| {
        let _ = tx.send((app.to_owned(), i));
    });
    consumer_side.watch("demo", l.clone()).await.unwrap();
    assert_eq!(rx.recv().await.unwrap(), ("demo".to_owned(), vec![]));

    let mut inst = ServiceInstance::new("demo", "127.0.0.1", 20880);
    inst.metadata.insert(REVISION_KEY.into(), "r1".into());
    provider_side.register(&inst).await.unwrap();
    let (_, got) = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, vec![inst.clone()]);
    // Operators' tools list the applications with instances.
    assert_eq!(consumer_side.applications().await.unwrap(), vec!["demo"]);
    let on_disk = dir.path().join("services/demo/127.0.0.1:20880");
    assert!(std::fs::read_to_string(&on_disk)
        .unwrap()
        .starts_with(r#"{"name":"demo","id":"127.0.0.1:20880""#));

    inst.metadata.insert(REVISION_KEY.into(), "r2".into());
    provider_side.register(&inst).await.unwrap();
    let (_, got) = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got[0].revision(), "r2");

    std::fs::write(dir.path().join("services/demo/bad:1"), b"{not json").unwrap();
    assert_eq!(consumer_side.instances("demo").await.unwrap().len(), 1);

    drop(provider_side);
    let (_, got) = tokio::time::timeout(Duration::from_secs(5), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(got.is_empty());
    consumer_side.unwatch("demo", &l).await.unwrap();
}

/// `dubbo ls` lists a file registry's interfaces; `describe` reads the definitions its report
/// keeps beside the application metadata.
#[tokio::test]
async fn interfaces_are_listed_and_definitions_kept() {
    let dir = tempfile::tempdir().unwrap();
    let registry = FileRegistry::open(&reg_url(dir.path())).unwrap();
    assert!(registry.services().await.unwrap().is_empty());
    registry.register(&provider(20880)).await.unwrap();
    let other = Url::parse(
        "tri://127.0.0.1:50051/org.demo.Other?interface=org.demo.Other&side=provider&application=demo",
    )
    .unwrap();
    registry.register(&other).await.unwrap();
    let report = FileMetadataReport::open(&reg_url(dir.path())).unwrap();
    let mut meta = MetadataInfo::new("demo");
    meta.add_service(ServiceInfo::from_url(&provider(20880)));
    report.publish_app_metadata(&meta).await.unwrap();
    report.register_mapping(IFACE, "demo").await.unwrap();
    // The mapping and the metadata share the tree and are not interfaces.
    assert_eq!(
        registry.services().await.unwrap(),
        ["org.demo.Greeter", "org.demo.Other"]
    );

    let id = dubbo_registry::DefinitionId::provider(IFACE, "1.0.0", "", "demo");
    assert!(report.definition(&id).await.unwrap().is_none());
    report
        .store_definition(&id, r#"{"canonicalName":"org.demo.Greeter"}"#)
        .await
        .unwrap();
    assert_eq!(
        report.definition(&id).await.unwrap().as_deref(),
        Some(r#"{"canonicalName":"org.demo.Greeter"}"#)
    );
    assert!(dir
        .path()
        .join("dubbo/metadata/org.demo.Greeter/1.0.0/provider/demo")
        .is_file());
    // The consumer entries of one service, by application, from the report's listing.
    let consumer = |app: &str| dubbo_registry::DefinitionId::consumer(IFACE, "1.0.0", "", app);
    assert!(report
        .definition_entries(&consumer(""))
        .await
        .unwrap()
        .is_empty());
    report
        .store_definition(&consumer("web"), "{\"side\":\"consumer\"}")
        .await
        .unwrap();
    report
        .store_definition(&consumer("batch"), "{}")
        .await
        .unwrap();
    let entries = report.definition_entries(&consumer("")).await.unwrap();
    let apps: Vec<_> = entries.iter().map(|e| e.application.as_str()).collect();
    assert_eq!(apps, ["batch", "web"]);
    assert_eq!(entries[1].content, "{\"side\":\"consumer\"}");
    // Java's application metadata of the same report is still read.
    assert!(report
        .app_metadata("demo", &meta.revision)
        .await
        .unwrap()
        .is_some());
    registry.destroy().await;
}

#[tokio::test]
async fn metadata_and_mapping_with_concurrent_writers() {
    let dir = tempfile::tempdir().unwrap();
    let report = FileMetadataReport::open(&reg_url(dir.path())).unwrap();
    let mut meta = MetadataInfo::new("demo");
    meta.add_service(ServiceInfo::from_url(&provider(20880)));
    report.publish_app_metadata(&meta).await.unwrap();
    let back = report
        .app_metadata("demo", &meta.revision)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(back.revision, meta.revision);
    assert!(report.app_metadata("demo", "nope").await.unwrap().is_none());

    let (tx, mut rx) = unbounded_channel();
    let l: Arc<dyn MappingListener> = Arc::new(move |i: &str, apps: Vec<String>| {
        let _ = tx.send((i.to_owned(), apps));
    });
    report.watch_mapping(IFACE, l).await.unwrap();

    // Twenty writers, each with its own report (as separate processes would be), at once.
    let mut tasks = Vec::new();
    for i in 0..20 {
        let url = reg_url(dir.path());
        tasks.push(tokio::spawn(async move {
            let r = FileMetadataReport::open(&url).unwrap();
            r.register_mapping(IFACE, &format!("app{i}")).await.unwrap();
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let mut apps = report.mapping(IFACE).await.unwrap();
    apps.sort();
    let mut want: Vec<String> = (0..20).map(|i| format!("app{i}")).collect();
    want.sort();
    assert_eq!(apps, want);
    report.register_mapping(IFACE, "app3").await.unwrap();
    assert_eq!(report.mapping(IFACE).await.unwrap().len(), 20);

    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let (i, apps) = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(i, IFACE);
        if apps.len() == 20 {
            break;
        }
    }
}

#[tokio::test]
async fn the_factories_are_registered_under_file() {
    let dir = tempfile::tempdir().unwrap();
    let ext = dubbo_core::Extensions::new();
    register_file(&ext);
    let rf = ext.get::<dyn RegistryFactory>("file").unwrap();
    let reg = rf.create(&reg_url(dir.path())).await.unwrap();
    assert!(reg.is_available());
    let df = ext.get::<dyn ServiceDiscoveryFactory>("file").unwrap();
    df.create(&reg_url(dir.path())).await.unwrap();
    assert!(ext
        .get::<dyn dubbo_registry::MetadataReportFactory>("file")
        .is_some());
}

const CHILD_ENV: &str = "DUBBO_FILE_REGISTRY_CHILD_DIR";

/// The second process of the cross-process test: registers a provider URL and an instance,
/// says READY, then waits to be killed. A no-op when run as an ordinary test.
#[test]
fn child_provider_process() {
    let Ok(dir) = std::env::var(CHILD_ENV) else {
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let url = reg_url(std::path::Path::new(&dir));
        let reg = FileRegistry::open(&url).unwrap();
        reg.register(&provider(20990)).await.unwrap();
        let disc = FileServiceDiscovery::open(&url).unwrap();
        disc.register(&ServiceInstance::new("child-app", "127.0.0.1", 20990))
            .await
            .unwrap();
        println!("READY {}", std::process::id());
        tokio::time::sleep(Duration::from_secs(120)).await;
    });
}

#[tokio::test]
async fn cross_process_entries_appear_and_vanish_when_the_owner_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let reg = FileRegistry::open(&reg_url(dir.path())).unwrap();
    let disc = FileServiceDiscovery::open(&reg_url(dir.path())).unwrap();
    let (l, mut rx) = channel_listener();
    reg.subscribe(&consumer(), l).await.unwrap();
    let (tx, mut irx) = unbounded_channel();
    let il: Arc<dyn InstancesListener> = Arc::new(move |_: &str, i: Vec<ServiceInstance>| {
        let _ = tx.send(i);
    });
    disc.watch("child-app", il).await.unwrap();

    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_provider_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, dir.path())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let ready = tokio::task::spawn_blocking(move || {
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if line.contains("READY") {
                return true;
            }
        }
        false
    });
    assert!(tokio::time::timeout(Duration::from_secs(60), ready)
        .await
        .unwrap()
        .unwrap());

    providers_until(&mut rx, 5, |u| ports(u) == [20990]).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let i = tokio::time::timeout_at(deadline, irx.recv())
            .await
            .unwrap()
            .unwrap();
        if i.len() == 1 {
            assert_eq!(i[0].port, 20990);
            break;
        }
    }

    // SIGKILL: no clean-up code runs in the child.
    let child_pid = child.id();
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = tokio::time::Instant::now();
    providers_until(&mut rx, 5, is_empty_push).await;
    loop {
        let i = tokio::time::timeout_at(killed + Duration::from_secs(5), irx.recv())
            .await
            .unwrap()
            .unwrap();
        if i.is_empty() {
            break;
        }
    }
    // Within a couple of poll periods (50 ms), with slack for a loaded machine.
    assert!(
        killed.elapsed() < Duration::from_millis(1500),
        "{:?}",
        killed.elapsed()
    );
    // The dead owner's bookkeeping is gone too.
    let owners: Vec<String> = std::fs::read_dir(dir.path().join(".owners"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(
        !owners
            .iter()
            .any(|o| o.starts_with(&format!("{child_pid}-"))),
        "{owners:?}"
    );
}
