//! Governance rules read live from the config centre, end to end over the embedded file
//! registry and its config centre (a real directory, written the way an operator's tool
//! writes it): override rules steer a running consumer and are undone by deleting them, a rule
//! that does not parse leaves the rule in force, a migration rule moves a running consumer to
//! application-level discovery without a failed call, and two applications with different
//! config centres do not see each other's rules. The same rules are checked against a real
//! ZooKeeper and Java Dubbo in the test command's governance steps.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use dubbo_config_center::DynamicConfiguration;
use dubbo_registry::FileDynamicConfiguration;
use dubbo_rs::prelude::*;
use dubbo_url::Url;

#[dubbo_rs::service(interface = "org.example.governance.Echo")]
pub trait Echo {
    async fn echo(&self, text: String) -> Result<String, RpcError>;
}

struct EchoImpl(&'static str);

impl Echo for EchoImpl {
    async fn echo(&self, text: String) -> Result<String, RpcError> {
        Ok(format!("{}:{text}", self.0))
    }
}

const SERVICE_RULE: &str = "org.example.governance.Echo:1.0.0:.configurators";

mod support;

/// A throw-away registry and config centre directory.
struct Dir(support::TempDir);

impl Dir {
    fn new(tag: &str) -> Self {
        Dir(support::TempDir::new(&format!("governance-{tag}")))
    }

    fn url(&self) -> String {
        self.0.url()
    }

    /// The config centre in this directory, as an operator's tool opens it.
    fn center(&self) -> FileDynamicConfiguration {
        FileDynamicConfiguration::open(
            &Url::parse(&format!("{}?poll.period=50", self.url())).unwrap(),
        )
        .unwrap()
    }
}

/// A provider application `name` registering in every registry of `registries` in `mode`.
async fn provider(registries: &[&str], name: &'static str, mode: &str) -> (Application, u16) {
    let mut text = format!(
        "dubbo:\n  application:\n    name: {name}\n    register-mode: {mode}\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n  registries:\n"
    );
    for (i, r) in registries.iter().enumerate() {
        text.push_str(&format!("    r{i}:\n      address: {r}?poll.period=50\n"));
    }
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
    let port = app
        .exported()
        .iter()
        .find(|e| e.key.interface() == "org.example.governance.Echo")
        .map(|e| e.url.port())
        .unwrap();
    (app, port)
}

async fn consumer(registry: &str, name: &str, step: &str) -> (Application, EchoClient) {
    let app = Application::builder(name)
        .registry(&format!("{registry}?poll.period=50"))
        .migration_step(step)
        .build()
        .unwrap();
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.governance.Echo")
                .version("1.0.0")
                .protocol("dubbo")
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    (app, EchoClient::new(reference.invoker()))
}

/// The providers that answer `n` calls; every call must succeed.
async fn answering(client: &EchoClient, n: usize) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for _ in 0..n {
        let answer = client.echo("x".into()).await.expect("no call may fail");
        seen.insert(answer.trim_end_matches(":x").to_owned());
    }
    seen
}

/// Calls until `n` calls in a row are answered by exactly `want`, within 5 s.
async fn settles_on(client: &EchoClient, want: &[&str]) {
    let want: BTreeSet<String> = want.iter().map(|s| s.to_string()).collect();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let seen = answering(client, 40).await;
        if seen == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "answered by {seen:?}, want {want:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The registry, metadata and config-centre metrics of `app`, as `/metrics` renders them.
fn event_metrics(app: &Application) -> String {
    let framework = app.framework();
    dubbo_metrics::prometheus::render_events(
        framework.event_metrics(),
        framework.metrics(),
        &Default::default(),
    )
}

fn disable(port: u16) -> String {
    format!(
        "configVersion: v3.0\nscope: service\nkey: org.example.governance.Echo:1.0.0\nenabled: true\nconfigs:\n  - side: provider\n    addresses: [\"127.0.0.1:{port}\"]\n    parameters:\n      disabled: true\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_override_rule_steers_a_running_consumer_and_deleting_it_restores() {
    let dir = Dir::new("override");
    let (a, port_a) = provider(&[&dir.url()], "gov-a", "interface").await;
    let (b, _) = provider(&[&dir.url()], "gov-b", "interface").await;
    let (c, client) = consumer(&dir.url(), "gov-consumer", "FORCE_INTERFACE").await;
    settles_on(&client, &["gov-a", "gov-b"]).await;

    let center = dir.center();
    center
        .publish_config(SERVICE_RULE, "dubbo", &disable(port_a))
        .await
        .unwrap();
    settles_on(&client, &["gov-b"]).await;

    // A rule that does not parse is refused: the rule in force stays.
    center
        .publish_config(
            SERVICE_RULE,
            "dubbo",
            "configVersion: v3.0\nconfigs: [ {side: provider\n",
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        answering(&client, 40).await,
        BTreeSet::from(["gov-b".to_owned()])
    );

    center.remove_config(SERVICE_RULE, "dubbo").await.unwrap();
    settles_on(&client, &["gov-a", "gov-b"]).await;

    // The application-scope rule of the provider's application works the same way: the
    // provider registers again as the rule configures it.
    let app_rule = format!(
        "configVersion: v3.0\nscope: application\nkey: gov-a\nconfigs:\n  - side: provider\n    addresses: [\"127.0.0.1:{port_a}\"]\n    parameters:\n      disabled: true\n"
    );
    center
        .publish_config("gov-a.configurators", "dubbo", &app_rule)
        .await
        .unwrap();
    settles_on(&client, &["gov-b"]).await;
    center
        .remove_config("gov-a.configurators", "dubbo")
        .await
        .unwrap();
    settles_on(&client, &["gov-a", "gov-b"]).await;

    // The changes heard, the registrations and subscriptions are in the metrics, with Java's
    // names.
    let consumer_text = event_metrics(&c);
    let rule_changes = |text: &str, key: &str, change: &str| {
        text.lines().any(|l| {
            l.starts_with("dubbo_configcenter_total{")
                && l.contains(&format!("key=\"{key}\""))
                && l.contains(&format!("change_type=\"{change}\""))
                && l.contains("config_center=\"file\"")
                && l.contains("application_name=\"gov-consumer\"")
        })
    };
    assert!(
        rule_changes(&consumer_text, SERVICE_RULE, "deleted"),
        "{consumer_text}"
    );
    for family in [
        "dubbo_registry_subscribe_service_num_succeed_total{",
        "dubbo_registry_notify_requests_total{",
        "dubbo_registry_notify_num_last{",
        "dubbo_notify_rt_milliseconds_max{",
    ] {
        assert!(consumer_text.contains(family), "{family}\n{consumer_text}");
    }
    let provider_text = event_metrics(&a);
    assert!(
        provider_text.contains("dubbo_configcenter_total{application_name=\"gov-a\""),
        "{provider_text}"
    );
    assert!(
        provider_text.contains("dubbo_registry_register_service_succeed_total{"),
        "{provider_text}"
    );
    for app in [c, a, b] {
        app.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_rule_moves_a_running_consumer_to_application_level_discovery() {
    let dir = Dir::new("migration");
    let (i, _) = provider(&[&dir.url()], "gov-interface-only", "interface").await;
    let (n, _) = provider(&[&dir.url()], "gov-instance-only", "instance").await;
    let (c, client) = consumer(&dir.url(), "gov-migrating", "FORCE_INTERFACE").await;
    settles_on(&client, &["gov-interface-only"]).await;

    // Calls keep running while the rule is written: none may fail.
    let calls = {
        let client = client.clone();
        tokio::spawn(async move {
            let mut n = 0usize;
            let end = Instant::now() + Duration::from_secs(3);
            while Instant::now() < end {
                client
                    .echo("x".into())
                    .await
                    .expect("no call may fail while migrating");
                n += 1;
            }
            n
        })
    };
    dir.center()
        .publish_config(
            "gov-migrating.migration",
            "DUBBO_SERVICEDISCOVERY_MIGRATION",
            "key: gov-migrating\nstep: FORCE_APPLICATION\n",
        )
        .await
        .unwrap();
    settles_on(&client, &["gov-instance-only"]).await;
    assert!(calls.await.unwrap() > 0);

    // Deleting the rule goes back to the configured step.
    dir.center()
        .remove_config(
            "gov-migrating.migration",
            "DUBBO_SERVICEDISCOVERY_MIGRATION",
        )
        .await
        .unwrap();
    settles_on(&client, &["gov-interface-only"]).await;
    for app in [c, i, n] {
        app.shutdown().await;
    }
}

/// How many of `n` calls each provider answers; every call must succeed.
async fn shares(client: &EchoClient, n: usize) -> std::collections::BTreeMap<String, usize> {
    let mut counts = std::collections::BTreeMap::new();
    for _ in 0..n {
        let answer = client.echo("x".into()).await.expect("no call may fail");
        *counts
            .entry(answer.trim_end_matches(":x").to_owned())
            .or_insert(0) += 1;
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_migration_proportion_splits_calls_between_the_two_models() {
    let dir = Dir::new("proportion");
    let (i, _) = provider(&[&dir.url()], "gov-interface-only", "interface").await;
    let (n, _) = provider(&[&dir.url()], "gov-instance-only", "instance").await;
    let (c, client) = consumer(&dir.url(), "gov-splitting", "FORCE_INTERFACE").await;
    settles_on(&client, &["gov-interface-only"]).await;

    // APPLICATION_FIRST with both models found picks application level, and `proportion: 30`
    // keeps 70 % of calls on interface level (Java's `MigrationInvoker`).
    let rule = |proportion: u32| {
        format!("key: gov-splitting\nstep: APPLICATION_FIRST\nproportion: {proportion}\n")
    };
    let center = dir.center();
    center
        .publish_config(
            "gov-splitting.migration",
            "DUBBO_SERVICEDISCOVERY_MIGRATION",
            &rule(30),
        )
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let counts = loop {
        let counts = shares(&client, 1000).await;
        let app = counts.get("gov-instance-only").copied().unwrap_or(0);
        // Once migrated, the instance-level provider's share stays near 30 %.
        if app > 100 || Instant::now() > deadline {
            break shares(&client, 2000).await;
        }
    };
    let app = counts.get("gov-instance-only").copied().unwrap_or(0) as f64 / 2000.0;
    let iface = counts.get("gov-interface-only").copied().unwrap_or(0) as f64 / 2000.0;
    assert!(
        (app - 0.3).abs() < 0.06,
        "application share {app}: {counts:?}"
    );
    assert!(
        (iface - 0.7).abs() < 0.06,
        "interface share {iface}: {counts:?}"
    );

    // Raising it to 100 sends every call to application level; 0 sends every call back.
    center
        .publish_config(
            "gov-splitting.migration",
            "DUBBO_SERVICEDISCOVERY_MIGRATION",
            &rule(100),
        )
        .await
        .unwrap();
    settles_on(&client, &["gov-instance-only"]).await;
    center
        .publish_config(
            "gov-splitting.migration",
            "DUBBO_SERVICEDISCOVERY_MIGRATION",
            &rule(0),
        )
        .await
        .unwrap();
    settles_on(&client, &["gov-interface-only"]).await;
    for app in [c, i, n] {
        app.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn applications_with_different_config_centres_do_not_see_each_others_rules() {
    let (one, two) = (Dir::new("iso-1"), Dir::new("iso-2"));
    let registries = [one.url(), two.url()];
    let registries: Vec<&str> = registries.iter().map(String::as_str).collect();
    let (a, port_a) = provider(&registries, "gov-iso-a", "interface").await;
    let (b, _) = provider(&registries, "gov-iso-b", "interface").await;
    let (c1, client1) = consumer(&one.url(), "gov-iso-c1", "FORCE_INTERFACE").await;
    let (c2, client2) = consumer(&two.url(), "gov-iso-c2", "FORCE_INTERFACE").await;
    settles_on(&client1, &["gov-iso-a", "gov-iso-b"]).await;
    settles_on(&client2, &["gov-iso-a", "gov-iso-b"]).await;

    // A consumer-side rule (every consumer reading that config centre leaves provider A
    // out); the providers read their rules from the first registry, so a provider-side rule
    // would reach both consumers through the providers' registrations.
    let consumer_rule = format!(
        "configVersion: v3.0\nscope: service\nkey: org.example.governance.Echo:1.0.0\nconfigs:\n  - side: consumer\n    providerAddresses: [\"127.0.0.1:{port_a}\"]\n    parameters:\n      disabled: true\n"
    );
    one.center()
        .publish_config(SERVICE_RULE, "dubbo", &consumer_rule)
        .await
        .unwrap();
    settles_on(&client1, &["gov-iso-b"]).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        answering(&client2, 40).await,
        BTreeSet::from(["gov-iso-a".to_owned(), "gov-iso-b".to_owned()]),
        "the rule of the other application's config centre applied"
    );
    for app in [c1, c2, a, b] {
        app.shutdown().await;
    }
}

/// External configuration: `dubbo.properties` in the config centre (global in group `dubbo`,
/// the application's own in the group named after it) is laid over the local configuration at
/// start, below the environment; the provider then runs with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_configuration_from_the_config_centre_is_applied_at_start() {
    let dir = Dir::new("external");
    let center = dir.center();
    center
        .publish_config(
            "dubbo.properties",
            "dubbo",
            "# global\ndubbo.consumer.timeout=1500\ndubbo.consumer.retries=1\ndubbo.provider.token=s3cret\n",
        )
        .await
        .unwrap();
    center
        .publish_config(
            "dubbo.properties",
            "gov-ext",
            "dubbo.consumer.timeout = 2500\n",
        )
        .await
        .unwrap();
    let yaml = format!(
        "dubbo:\n  application:\n    name: gov-ext\n  consumer:\n    timeout: 900\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n  registry:\n    address: {}?poll.period=50\n    register: false\n",
        dir.url()
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&yaml).unwrap();
    let app = Application::builder("gov-ext")
        .config(config)
        .env([("DUBBO_CONSUMER_RETRIES", "4")])
        .build_async()
        .await
        .unwrap();
    let c = app.config();
    assert_eq!(
        c.consumer.timeout,
        Some(2500),
        "the application's text wins"
    );
    assert_eq!(
        c.consumer.retries,
        Some(4),
        "the environment wins over both"
    );
    assert_eq!(c.provider.token.as_deref(), Some("s3cret"));

    // The token from the external text is enforced: a direct call without it is refused.
    app.default_module()
        .export(
            EchoServer::new(EchoImpl("ext")),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    let exported = app.exported();
    let url = &exported
        .iter()
        .find(|e| e.key.interface() == "org.example.governance.Echo")
        .unwrap()
        .url;
    assert_eq!(url.parameter("token"), Some("s3cret"));
    let caller = Application::builder("gov-ext-caller").build().unwrap();
    let reference = caller
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.governance.Echo")
                .version("1.0.0")
                .url(format!("dubbo://127.0.0.1:{}", url.port())),
        )
        .await
        .unwrap();
    let refused = EchoClient::new(reference.invoker())
        .echo("x".into())
        .await
        .expect_err("served without the token");
    assert!(refused.to_string().contains("token"), "{refused}");
    caller.shutdown().await;
    app.shutdown().await;
}

#[tokio::test]
async fn a_bad_external_key_stops_the_start_naming_key_and_text() {
    let dir = Dir::new("external-bad");
    dir.center()
        .publish_config("dubbo.properties", "dubbo", "dubbo.consumer.timout=1\n")
        .await
        .unwrap();
    let yaml = format!(
        "dubbo:\n  application:\n    name: gov-ext-bad\n  registry:\n    address: {}\n    register: false\n",
        dir.url()
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&yaml).unwrap();
    let err = Application::builder("gov-ext-bad")
        .config(config)
        .build_async()
        .await
        .expect_err("started with a bad external key")
        .to_string();
    assert!(err.contains("timout"), "{err}");
    assert!(err.contains("dubbo.properties in group dubbo"), "{err}");
}

#[tokio::test]
async fn an_unreachable_config_centre_stops_the_start_unless_check_is_false() {
    let yaml = |check: &str| {
        format!(
            "dubbo:\n  application:\n    name: gov-ext-down\n  config-center:\n    address: zookeeper://127.0.0.1:1\n    timeout: 500\n{check}"
        )
    };
    let config = dubbo_rs::config::DubboConfig::from_yaml(&yaml("")).unwrap();
    let err = Application::builder("gov-ext-down")
        .config(config)
        .build_async()
        .await
        .expect_err("started without its config centre")
        .to_string();
    assert!(err.contains("dubbo.config-center"), "{err}");
    let config = dubbo_rs::config::DubboConfig::from_yaml(&yaml("    check: false\n")).unwrap();
    let app = Application::builder("gov-ext-down")
        .config(config)
        .build_async()
        .await
        .unwrap();
    app.shutdown().await;
}

/// A provider application `app` answering as `who`, registering at interface level.
async fn provider_of(registry: &str, app: &str, who: &'static str) -> (Application, u16) {
    let text = format!(
        "dubbo:\n  application:\n    name: {app}\n    register-mode: interface\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n  registries:\n    r0:\n      address: {registry}?poll.period=50\n"
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&text).unwrap();
    let app = Application::builder(app).config(config).build().unwrap();
    let urls = app
        .default_module()
        .export(
            EchoServer::new(EchoImpl(who)),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    app.ready().await;
    let port = urls[0].port();
    (app, port)
}

/// Java's `ProviderAppStateRouter`: a condition rule under the providers' application's key
/// (`{provider app}.condition-router`) routes the consumers of another application.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_condition_rule_of_the_providers_application_routes_its_consumers() {
    let dir = Dir::new("provider-app");
    let (p1, port1) = provider_of(&dir.url(), "gov-pa", "pa-1").await;
    let (p2, _) = provider_of(&dir.url(), "gov-pa", "pa-2").await;
    let (c, client) = consumer(&dir.url(), "gov-pa-consumer", "FORCE_INTERFACE").await;
    settles_on(&client, &["pa-1", "pa-2"]).await;
    let rule = format!(
        "configVersion: v3.0\nscope: application\nforce: true\nruntime: false\nenabled: true\nkey: gov-pa\nconditions:\n  - \"=> address = 127.0.0.1:{port1}\"\n"
    );
    let center = dir.center();
    center
        .publish_config("gov-pa.condition-router", "dubbo", &rule)
        .await
        .unwrap();
    settles_on(&client, &["pa-1"]).await;
    center
        .remove_config("gov-pa.condition-router", "dubbo")
        .await
        .unwrap();
    settles_on(&client, &["pa-1", "pa-2"]).await;
    for app in [c, p1, p2] {
        app.shutdown().await;
    }
}
