//! Registry-based providers and references, end to end over the embedded file registry (a
//! real directory shared the way two processes share it): registration in both models, the
//! three migration steps, the MetadataService, and withdrawal at shutdown. The same scenarios
//! run against a real ZooKeeper in the registry-zookeeper crate's tests and in the test
//! command's interop steps.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::core::{ErrorCode, Value};
use dubbo_rs::prelude::*;

mod support;
use support::{qos_get, qos_request};

#[dubbo_rs::service(interface = "org.example.registry.Echo")]
pub trait Echo {
    async fn echo(&self, text: String) -> Result<String, RpcError>;
}

struct EchoImpl(&'static str);

impl Echo for EchoImpl {
    async fn echo(&self, text: String) -> Result<String, RpcError> {
        Ok(format!("{}:{text}", self.0))
    }
}

const ECHO: &str = "org.example.registry.Echo";

fn registry_dir() -> (support::TempDir, String) {
    let dir = support::TempDir::new("registry-test");
    let url = dir.url();
    (dir, url)
}

async fn provider(registry: &str, name: &'static str, mode: &str) -> Application {
    provider_with(registry, name, mode, "").await
}

/// A provider of Echo 1.0.0 with `application` settings (indented lines) added.
async fn provider_with(
    registry: &str,
    name: &'static str,
    mode: &str,
    application: &str,
) -> Application {
    let text = format!(
        "dubbo:\n  application:\n    name: {name}\n    register-mode: {mode}\n{application}  registry:\n    address: {registry}\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n    tri:\n      port: 0\n      host: 127.0.0.1\n"
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&text).unwrap();
    let app = Application::builder(name).config(config).build().unwrap();
    app.default_module()
        .export(
            EchoServer::new(EchoImpl(name)),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    app.ready().await;
    app
}

fn consumer(registry: &str, step: &str) -> Application {
    Application::builder("registry-consumer")
        .registry(registry)
        .migration_step(step)
        .build()
        .unwrap()
}

async fn call(app: &Application, protocol: &str) -> Result<String, RpcError> {
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new(ECHO)
                .version("1.0.0")
                .protocol(protocol)
                .timeout(Duration::from_secs(5)),
        )
        .await
        .map_err(|e| RpcError::framework(ErrorCode::NoProvider, e.to_string()))?;
    EchoClient::new(reference.invoker()).echo("hi".into()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_provider_is_found_in_every_migration_step_over_both_protocols() {
    let (_dir, registry) = registry_dir();
    let p = provider(&registry, "echo-provider", "all").await;
    for step in ["FORCE_INTERFACE", "APPLICATION_FIRST", "FORCE_APPLICATION"] {
        let c = consumer(&registry, step);
        for protocol in ["dubbo", "tri"] {
            assert_eq!(
                call(&c, protocol).await.unwrap(),
                "echo-provider:hi",
                "{step} over {protocol}"
            );
        }
        c.shutdown().await;
    }
    p.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_register_mode_reaches_only_its_model() {
    let (_dir, registry) = registry_dir();
    let p = provider(&registry, "interface-only", "interface").await;
    let c = consumer(&registry, "FORCE_APPLICATION");
    assert!(
        call(&c, "dubbo").await.is_err(),
        "no instance was registered"
    );
    c.shutdown().await;
    let c = consumer(&registry, "FORCE_INTERFACE");
    assert_eq!(call(&c, "dubbo").await.unwrap(), "interface-only:hi");
    c.shutdown().await;
    p.shutdown().await;

    let (_dir, registry) = registry_dir();
    let p = provider(&registry, "instance-only", "instance").await;
    let c = consumer(&registry, "FORCE_INTERFACE");
    assert!(
        call(&c, "dubbo").await.is_err(),
        "no interface URL was registered"
    );
    c.shutdown().await;
    let c = consumer(&registry, "FORCE_APPLICATION");
    assert_eq!(call(&c, "dubbo").await.unwrap(), "instance-only:hi");
    c.shutdown().await;
    p.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_service_answers_the_revision_the_instance_announces() {
    let (_dir, registry) = registry_dir();
    let p = provider(&registry, "meta-provider", "instance").await;
    let exported = p.exported();
    let ms = exported
        .iter()
        .find(|e| e.key.interface() == "org.apache.dubbo.metadata.MetadataService")
        .expect("the MetadataService is exported");
    assert_eq!(ms.key.group(), Some("meta-provider"));
    assert_eq!(ms.key.version(), Some("1.0.0"));
    let c = Application::builder("meta-client").build().unwrap();
    let reference = c
        .default_module()
        .refer(
            ReferenceOptions::new("org.apache.dubbo.metadata.MetadataService")
                .url(format!("dubbo://127.0.0.1:{}", ms.url.port()))
                .group("meta-provider")
                .version("1.0.0"),
        )
        .await
        .unwrap();
    let generic = GenericClient::new(reference.invoker(), reference.service_key().clone());
    let infos = generic
        .invoke("getMetadataInfos", &[], vec![])
        .await
        .unwrap();
    let Value::List(list) = infos else {
        panic!("{infos:?}")
    };
    let info = &list.items[0];
    let revision = info
        .get("revision")
        .and_then(Value::as_str)
        .unwrap()
        .to_owned();
    assert_eq!(revision.len(), 32);
    let again = generic
        .invoke(
            "getMetadataInfo",
            &["java.lang.String"],
            vec![Value::from(revision.as_str())],
        )
        .await
        .unwrap();
    assert_eq!(
        again.get("app").and_then(Value::as_str),
        Some("meta-provider")
    );
    let services = again.get("services").unwrap();
    assert!(
        services
            .get("org.example.registry.Echo:1.0.0:dubbo")
            .is_some(),
        "{services:?}"
    );
    let unknown = generic
        .invoke(
            "getMetadataInfo",
            &["java.lang.String"],
            vec![Value::from("nope")],
        )
        .await
        .unwrap();
    assert!(unknown.is_null());
    c.shutdown().await;
    p.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_is_withdrawn_from_consumers_before_it_stops() {
    let (_dir, registry) = registry_dir();
    let a = provider(&registry, "provider-a", "all").await;
    let b = provider(&registry, "provider-b", "all").await;
    let c = consumer(&registry, "FORCE_INTERFACE");
    let reference = c
        .default_module()
        .refer(
            ReferenceOptions::new(ECHO)
                .version("1.0.0")
                .protocol("dubbo"),
        )
        .await
        .unwrap();
    let client = EchoClient::new(reference.invoker());
    // Both providers answer eventually.
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..200 {
        seen.insert(client.echo("x".into()).await.unwrap());
        if seen.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
    // Calls keep succeeding while one provider shuts down, and then only the other answers.
    let calls = tokio::spawn(async move {
        let mut failures = 0;
        let mut last = String::new();
        for _ in 0..400 {
            match client.echo("x".into()).await {
                Ok(r) => last = r,
                Err(_) => failures += 1,
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        (failures, last)
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    a.shutdown().await;
    let (failures, last) = calls.await.unwrap();
    assert_eq!(failures, 0);
    assert_eq!(last, "provider-b:x");
    c.shutdown().await;
    b.shutdown().await;
}

/// A consumer reading two registries (one per zone) with its own zone, or a preferred registry.
fn two_registry_consumer(east: &str, west: &str, extra_east: &str, zone: &str) -> Application {
    let text = format!(
        "dubbo:\n  application:\n    name: zoned-consumer\n    migration:\n      step: FORCE_INTERFACE\n  registries:\n    east:\n      address: {east}\n      zone: east\n{extra_east}    west:\n      address: {west}\n      zone: west\n  consumer:\n    parameters:\n      registry_zone: {zone}\n"
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&text).unwrap();
    Application::builder("zoned-consumer")
        .config(config)
        .build()
        .unwrap()
}

async fn answers(app: &Application, calls: usize) -> std::collections::BTreeSet<String> {
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new(ECHO)
                .version("1.0.0")
                .protocol("dubbo"),
        )
        .await
        .unwrap();
    let client = EchoClient::new(reference.invoker());
    // `refer` returns once the first registry delivered; the zone choice is only meaningful
    // once both have (the file registry polls every 300 ms).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..calls {
        seen.insert(client.echo("z".into()).await.unwrap());
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reference_across_registries_prefers_its_zone_or_the_preferred_registry() {
    let (_east_dir, east) = registry_dir();
    let (_west_dir, west) = registry_dir();
    let a = provider(&east, "east-provider", "interface").await;
    let b = provider(&west, "west-provider", "interface").await;

    let c = two_registry_consumer(&east, &west, "", "west");
    assert_eq!(
        answers(&c, 40).await.into_iter().collect::<Vec<_>>(),
        vec!["west-provider:z".to_owned()]
    );
    c.shutdown().await;

    let c = two_registry_consumer(&east, &west, "      preferred: true\n", "west");
    assert_eq!(
        answers(&c, 40).await.into_iter().collect::<Vec<_>>(),
        vec!["east-provider:z".to_owned()]
    );
    c.shutdown().await;

    let c = two_registry_consumer(&east, &west, "", "nowhere");
    assert_eq!(
        answers(&c, 60).await.len(),
        2,
        "no zone match: every provider"
    );
    c.shutdown().await;
    a.shutdown().await;
    b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_last_provider_goes_the_reference_has_none_and_finds_the_next_one() {
    let (_dir, registry) = registry_dir();
    let p = provider(&registry, "only-provider", "all").await;
    for step in ["FORCE_INTERFACE", "FORCE_APPLICATION"] {
        let c = consumer(&registry, step);
        let reference = c
            .default_module()
            .refer(
                ReferenceOptions::new(ECHO)
                    .version("1.0.0")
                    .protocol("dubbo"),
            )
            .await
            .unwrap();
        let client = EchoClient::new(reference.invoker());
        assert_eq!(client.echo("a".into()).await.unwrap(), "only-provider:a");
        c.shutdown().await;
    }
    let c = consumer(&registry, "APPLICATION_FIRST");
    let reference = c
        .default_module()
        .refer(
            ReferenceOptions::new(ECHO)
                .version("1.0.0")
                .protocol("dubbo"),
        )
        .await
        .unwrap();
    let client = EchoClient::new(reference.invoker());
    assert_eq!(client.echo("a".into()).await.unwrap(), "only-provider:a");
    p.shutdown().await;
    // The withdrawal reaches the consumer: calls fail with "no provider", not by dialling a
    // provider that is gone.
    let mut last = None;
    for _ in 0..100 {
        match client.echo("b".into()).await {
            Err(e) if e.code() == Some(ErrorCode::NoProvider) => {
                last = Some(e);
                break;
            }
            other => last = other.err(),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(last.and_then(|e| e.code()), Some(ErrorCode::NoProvider));
    // A new provider is found without re-referring.
    let q = provider(&registry, "next-provider", "all").await;
    let mut answer = None;
    for _ in 0..100 {
        if let Ok(r) = client.echo("c".into()).await {
            answer = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(answer.as_deref(), Some("next-provider:c"));
    c.shutdown().await;
    q.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_and_references_can_name_their_registries() {
    let (_a_dir, a) = registry_dir();
    let (_b_dir, b) = registry_dir();
    let text = format!(
        "dubbo:\n  application:\n    name: picky-provider\n    register-mode: interface\n  registries:\n    a:\n      address: {a}\n    b:\n      address: {b}\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n  services:\n    org.example.registry.Echo:\n      registries: a\n"
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&text).unwrap();
    let p = Application::builder("picky-provider")
        .config(config)
        .build()
        .unwrap();
    p.default_module()
        .export(
            EchoServer::new(EchoImpl("picky")),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    p.ready().await;
    let only = |registry: &str| {
        let text = format!(
            "dubbo:\n  application:\n    name: picky-consumer\n    migration:\n      step: FORCE_INTERFACE\n  registries:\n    a:\n      address: {a}\n    b:\n      address: {b}\n  references:\n    echo:\n      interface: org.example.registry.Echo\n      version: 1.0.0\n      check: false\n      registries: [{registry}]\n"
        );
        let config = dubbo_rs::config::DubboConfig::from_yaml(&text).unwrap();
        Application::builder("picky-consumer")
            .config(config)
            .build()
            .unwrap()
    };
    for (registry, found) in [("a", true), ("b", false)] {
        let c = only(registry);
        let reference = c
            .default_module()
            .refer(ReferenceOptions::new(ECHO))
            .await
            .unwrap();
        let client = EchoClient::new(reference.invoker());
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert_eq!(
            client.echo("r".into()).await.is_ok(),
            found,
            "through {registry}"
        );
        c.shutdown().await;
    }
    let bad = format!(
        "dubbo:\n  application:\n    name: x\n  registries:\n    a:\n      address: {a}\n  services:\n    s:\n      registries: [nope]\n"
    );
    let err = dubbo_rs::config::DubboConfig::from_yaml(&bad).unwrap_err();
    assert!(
        err.to_string().contains("dubbo.services.s.registries"),
        "{err}"
    );
    p.shutdown().await;
}

/// The provider registrations in a file-registry directory, as paths relative to it, sorted:
/// interface-level URLs (`dubbo/{interface}/providers/*`) and instances (`services/{app}/*`).
fn registrations(root: &str) -> Vec<String> {
    let files_in = |dir: std::path::PathBuf| -> Vec<String> {
        std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            // Dot files are locks and half-written temporaries.
            .filter(|p| p.is_file() && !p.file_name().unwrap().to_string_lossy().starts_with('.'))
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect()
    };
    let subdirs = |dir: &str| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(format!("{root}/{dir}"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect()
    };
    let mut found: Vec<String> = subdirs("dubbo")
        .into_iter()
        .flat_map(|d| files_in(d.join("providers")))
        .chain(subdirs("services").into_iter().flat_map(files_in))
        .collect();
    found.sort();
    found
}

/// Waits up to 5 s for `done`.
async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("not done within 5 s: {what}");
}

/// The revision the instance of `app` at `port` announces, if it is registered.
fn instance_revision(root: &str, app: &str, port: u16) -> Option<String> {
    let text = std::fs::read_to_string(format!("{root}/services/{app}/127.0.0.1:{port}")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["payload"]["metadata"]["dubbo.metadata.revision"]
        .as_str()
        .map(str::to_owned)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn qos_offline_withdraws_the_registrations_and_online_restores_them() {
    let (dir, registry) = registry_dir();
    let root = dir.path();
    let p = provider_with(
        &registry,
        "offline-provider",
        "all",
        "    qos-port: 0\n    metadata-type: remote\n",
    )
    .await;
    // A second version, to see one service leave the metadata while the other stays.
    p.default_module()
        .export(
            EchoServer::new(EchoImpl("v2")),
            ServiceOptions::new().version("2.0.0"),
        )
        .await
        .unwrap();
    let port = p.exported()[0].url.port();
    // Two versions over two protocols, and the instance.
    until("every registration", || registrations(&root).len() == 5).await;
    let registered = registrations(&root);
    let revision = instance_revision(&root, "offline-provider", port).unwrap();

    // A consumer that is already connected keeps being served throughout.
    let direct = Application::builder("offline-direct").build().unwrap();
    let reference = direct
        .default_module()
        .refer(
            ReferenceOptions::new(ECHO)
                .version("1.0.0")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let client = EchoClient::new(reference.invoker());
    assert_eq!(client.echo("a".into()).await.unwrap(), "offline-provider:a");

    assert_eq!(
        qos_get(&p, "/offline/no%5C.such%5C.Service").await,
        (200, "service not found".into())
    );
    assert_eq!(registrations(&root), registered);

    // Application level only, one service: the instance stays with a new revision.
    assert_eq!(
        qos_get(&p, "/offlineApp?service=.*Echo:2%5C.0%5C.0").await,
        (200, "OK".into())
    );
    let without_v2 = instance_revision(&root, "offline-provider", port).unwrap();
    assert_ne!(without_v2, revision);
    let metadata = std::fs::read_to_string(format!(
        "{root}/dubbo/metadata/offline-provider/{without_v2}"
    ))
    .unwrap();
    assert!(
        metadata.contains("Echo:1.0.0") && !metadata.contains("Echo:2.0.0"),
        "{metadata}"
    );
    assert_eq!(registrations(&root).len(), registered.len());

    // Everything: no interface URL and no instance are left, and calls are still served.
    assert_eq!(qos_get(&p, "/offline").await, (200, "OK".into()));
    assert_eq!(registrations(&root), Vec::<String>::new());
    assert_eq!(instance_revision(&root, "offline-provider", port), None);
    assert_eq!(client.echo("b".into()).await.unwrap(), "offline-provider:b");

    // Interface level back first (POST form), then the application level.
    assert_eq!(
        qos_request(&p, "POST", "/onlineInterface", "service=.*").await,
        (200, "OK".into())
    );
    let interface_only = registrations(&root);
    assert_eq!(interface_only.len(), 4, "{interface_only:?}");
    assert!(interface_only.iter().all(|f| f.starts_with("dubbo/")));
    assert_eq!(qos_get(&p, "/online").await, (200, "OK".into()));
    assert_eq!(registrations(&root), registered);
    assert_eq!(
        instance_revision(&root, "offline-provider", port).as_deref(),
        Some(revision.as_str())
    );
    for step in ["FORCE_INTERFACE", "FORCE_APPLICATION"] {
        let c = consumer(&registry, step);
        assert_eq!(
            call(&c, "dubbo").await.unwrap(),
            "offline-provider:hi",
            "{step}"
        );
        c.shutdown().await;
    }

    // Shutdown after an offline still withdraws what is left and drains.
    assert_eq!(qos_get(&p, "/offlineInterface").await, (200, "OK".into()));
    p.shutdown().await;
    assert_eq!(registrations(&root), Vec::<String>::new());
    assert!(client.echo("c".into()).await.is_err());
    direct.shutdown().await;
}

/// A reference leaves its URL's parameters in the metadata report (the registry's) at Java's
/// consumer path, as Java 3.3's references do: a JSON object of strings naming the consumer's
/// application, interface, version and process; `report-definition=false` leaves nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reference_publishes_its_parameters_as_the_consumer_entry() {
    let (_dir, registry) = registry_dir();
    let p = provider(&registry, "entry-provider", "all").await;
    let entry = |app: &str| {
        std::fs::read_to_string(format!(
            "{}/dubbo/metadata/{ECHO}/1.0.0/consumer/{app}",
            registry.trim_start_matches("file://")
        ))
    };
    let c = consumer(&registry, "APPLICATION_FIRST");
    assert_eq!(call(&c, "dubbo").await.unwrap(), "entry-provider:hi");
    let text = entry("registry-consumer").unwrap();
    let params: std::collections::BTreeMap<String, String> = serde_json::from_str(&text).unwrap();
    assert_eq!(params["side"], "consumer");
    assert_eq!(params["interface"], ECHO);
    assert_eq!(params["version"], "1.0.0");
    assert_eq!(params["application"], "registry-consumer");
    // The process id, as Java's consumer URLs carry it.
    assert_eq!(params["pid"], std::process::id().to_string());
    c.shutdown().await;

    let off = Application::builder("entry-off-consumer")
        .registry(&format!("{registry}?report-definition=false"))
        .build()
        .unwrap();
    assert_eq!(call(&off, "dubbo").await.unwrap(), "entry-provider:hi");
    assert!(entry("entry-off-consumer").is_err());
    off.shutdown().await;
    p.shutdown().await;
}
