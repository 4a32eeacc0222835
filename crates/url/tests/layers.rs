//! Configuration priority: method > interface > global; consumer > provider; override first.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_url::{merge_url, ConfigLayers, Source, Url, UrlParams};

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

#[test]
fn full_priority_ladder() {
    let overrides = url("override://0.0.0.0/org.Foo?sayHello.timeout=1&timeout=4");
    let consumer = url("consumer://c/org.Foo?sayHello.timeout=2&timeout=5");
    let provider = url("dubbo://p:1/org.Foo?sayHello.timeout=3&timeout=6");
    let consumer_defaults = UrlParams::parse("timeout=7");
    let provider_defaults = UrlParams::parse("timeout=8");

    // Drop one layer at a time, top first, and watch the next one take over.
    let steps: [(&str, Source); 8] = [
        ("1", Source::OverrideMethod),
        ("2", Source::ConsumerMethod),
        ("3", Source::ProviderMethod),
        ("4", Source::Override),
        ("5", Source::Consumer),
        ("6", Source::Provider),
        ("7", Source::ConsumerDefault),
        ("8", Source::ProviderDefault),
    ];
    let mut o = overrides.clone();
    let mut c = consumer.clone();
    let mut p = provider.clone();
    let mut cd = Some(consumer_defaults);
    for (i, (want, source)) in steps.iter().enumerate() {
        let layers = ConfigLayers::new(c.clone(), p.clone())
            .with_override(o.clone())
            .with_defaults(cd.clone(), Some(provider_defaults.clone()));
        assert_eq!(
            layers.lookup(Some("sayHello"), "timeout"),
            Some((*want, *source)),
            "step {i}"
        );
        match i {
            0 => o = o.without_parameter("sayHello.timeout"),
            1 => c = c.without_parameter("sayHello.timeout"),
            2 => p = p.without_parameter("sayHello.timeout"),
            3 => o = o.without_parameter("timeout"),
            4 => c = c.without_parameter("timeout"),
            5 => p = p.without_parameter("timeout"),
            6 => cd = None,
            _ => {}
        }
    }
    let layers = ConfigLayers::new(c, p).with_defaults(None, Some(provider_defaults));
    assert_eq!(layers.method_get("sayHello", "timeout"), Some("8"));
    let layers = ConfigLayers::new(url("consumer://c/x"), url("dubbo://p:1/x"));
    assert_eq!(layers.method_get("sayHello", "timeout"), None);
}

#[test]
fn method_level_beats_interface_level_across_sides() {
    let provider = url(
        "dubbo://p:1/org.Foo?methods=sayHello,bye&sayHello.timeout=2000&timeout=1000&retries=3",
    );
    let consumer = url("consumer://c/org.Foo?methods=sayHello,bye&timeout=3000&bye.retries=0");
    let layers = ConfigLayers::new(consumer, provider);
    assert_eq!(
        layers.lookup(Some("sayHello"), "timeout"),
        Some(("2000", Source::ProviderMethod))
    );
    assert_eq!(
        layers.lookup(Some("bye"), "timeout"),
        Some(("3000", Source::Consumer))
    );
    assert_eq!(
        layers.lookup(None, "timeout"),
        Some(("3000", Source::Consumer))
    );
    assert_eq!(
        layers.lookup(Some("bye"), "retries"),
        Some(("0", Source::ConsumerMethod))
    );
    assert_eq!(
        layers.lookup(Some("sayHello"), "retries"),
        Some(("3", Source::Provider))
    );
    assert_eq!(layers.method_u64("bye", "retries").unwrap(), Some(0));
    assert_eq!(
        layers.method_duration_ms("sayHello", "timeout").unwrap(),
        Some(Duration::from_millis(2000))
    );
    assert_eq!(layers.get_u64("retries").unwrap(), Some(3));
    assert_eq!(layers.get_u64("absent").unwrap(), None);
}

#[test]
fn methods_list_gates_method_level_values() {
    // `sayHello.timeout` is ignored when the Url's `methods` list does not mention sayHello
    // (Java URLParam.getMethodParameterStrict).
    let provider = url("dubbo://p:1/org.Foo?methods=bye&sayHello.timeout=2000&timeout=1000");
    let consumer = url("consumer://c/org.Foo");
    let layers = ConfigLayers::new(consumer, provider);
    assert_eq!(
        layers.lookup(Some("sayHello"), "timeout"),
        Some(("1000", Source::Provider))
    );
    // ...and Java's check is a substring test.
    let provider =
        url("dubbo://p:1/org.Foo?methods=sayHelloAsync&sayHello.timeout=2000&timeout=1000");
    let layers = ConfigLayers::new(url("consumer://c/org.Foo"), provider);
    assert_eq!(layers.method_get("sayHello", "timeout"), Some("2000"));
}

#[test]
fn one_sided_keys() {
    let provider =
        url("dubbo://p:1/org.Foo?group=pg&version=1.0&application=prov&side=provider&category=x");
    let consumer = url("consumer://c/org.Foo?group=cg&version=2.0&application=cons&side=consumer");
    let layers = ConfigLayers::new(consumer, provider);
    assert_eq!(layers.lookup(None, "group"), Some(("pg", Source::Provider)));
    assert_eq!(
        layers.lookup(None, "version"),
        Some(("1.0", Source::Provider))
    );
    assert_eq!(
        layers.lookup(None, "application"),
        Some(("prov", Source::Provider))
    );
    assert_eq!(
        layers.lookup(None, "side"),
        Some(("consumer", Source::Consumer))
    );
    assert_eq!(
        layers.lookup(None, "category"),
        Some(("providers", Source::Fixed))
    );
    assert_eq!(layers.consumer().application(), Some("cons"));

    // Without a provider group, the consumer's group is not used.
    let layers = ConfigLayers::new(
        url("consumer://c/org.Foo?group=cg"),
        url("dubbo://p:1/org.Foo"),
    );
    assert_eq!(layers.get("group"), None);
    // An override still wins for them.
    let layers = layers.with_override(url("override://0.0.0.0/org.Foo?group=og"));
    assert_eq!(layers.lookup(None, "group"), Some(("og", Source::Override)));
    assert!(layers.override_url().is_some());
}

#[test]
fn empty_values_count_as_absent() {
    let provider = url("dubbo://p:1/org.Foo?timeout=1000&sayHello.timeout=");
    let consumer = url("consumer://c/org.Foo?timeout=&loadbalance=");
    let layers = ConfigLayers::new(consumer, provider);
    assert_eq!(
        layers.lookup(Some("sayHello"), "timeout"),
        Some(("1000", Source::Provider))
    );
    assert_eq!(layers.get("loadbalance"), None);
}

#[test]
fn default_prefixed_provider_keys_are_provider_global() {
    // Old providers write their global <dubbo:provider> settings as `default.<key>`; parsing
    // makes them `<key>` unless the interface level sets `<key>`.
    let layers = ConfigLayers::new(
        url("consumer://c/org.Foo"),
        url("dubbo://p:1/org.Foo?default.timeout=5000&default.retries=1&retries=4"),
    );
    assert_eq!(layers.get("timeout"), Some("5000"));
    assert_eq!(layers.get("retries"), Some("4"));
    let layers = ConfigLayers::new(
        url("consumer://c/org.Foo?timeout=300"),
        url("dubbo://p:1/org.Foo?default.timeout=5000"),
    );
    assert_eq!(
        layers.lookup(None, "timeout"),
        Some(("300", Source::Consumer))
    );
}

#[test]
fn booleans_and_bad_numbers() {
    let layers = ConfigLayers::new(
        url("consumer://c/org.Foo?sticky=TRUE&sayHello.async=true"),
        url("dubbo://p:1/org.Foo?timeout=soon"),
    );
    assert_eq!(layers.get_bool("sticky"), Some(true));
    assert_eq!(layers.method_bool("sayHello", "async"), Some(true));
    assert_eq!(layers.method_bool("bye", "async"), None);
    assert_eq!(
        layers.get_u64("timeout").unwrap_err().code(),
        "url.invalid_parameter"
    );
}

#[test]
fn concatenated_lists() {
    let layers = ConfigLayers::new(
        url("consumer://c/org.Foo?reference.filter=b&invoker.listener=l"),
        url("dubbo://p:1/org.Foo?reference.filter=a"),
    );
    assert_eq!(
        layers.concatenated("reference.filter").as_deref(),
        Some("a,b")
    );
    assert_eq!(
        layers.concatenated("invoker.listener").as_deref(),
        Some("l")
    );
    assert_eq!(layers.concatenated("absent"), None);
}

#[test]
fn merge_url_matches_default_provider_url_merge_processor() {
    let provider = url("dubbo://10.0.0.7:20880/org.Foo?application=prov&threads=200&default.threads=100&threadpool=fixed&transporter=netty4&timeout=1000&version=1.0&group=pg&methods=a,b&release=3.3.0&dubbo=2.0.2&timestamp=1&reference.filter=pf&invoker.listener=pl&a.timeout=50");
    let consumer = url("consumer://10.0.0.9/org.Foo?application=cons&timeout=3000&version=2.0&group=cg&generic=true&methods=a&release=3.2.0&dubbo=2.0.1&timestamp=2&dubbo.tag=gray&reference.filter=cf&retries=0&b.timeout=70");
    let merged = merge_url(&provider, consumer.params());

    assert_eq!(merged.address(), "10.0.0.7:20880");
    for gone in [
        "threads",
        "default.threads",
        "threadpool",
        "transporter",
        "dubbo.tag",
    ] {
        assert_eq!(merged.parameter(gone), None, "{gone}");
    }
    let expect = [
        ("timeout", "3000"),
        ("retries", "0"),
        ("application", "cons"),
        ("remote.application", "prov"),
        ("version", "1.0"),
        ("group", "pg"),
        ("generic", "true"),
        ("methods", "a,b"),
        ("release", "3.3.0"),
        ("dubbo", "2.0.2"),
        ("timestamp", "1"),
        ("reference.filter", "pf,cf"),
        ("invoker.listener", "pl"),
    ];
    for (k, v) in expect {
        assert_eq!(merged.parameter(k), Some(v), "{k}");
    }
    // Method level after merging: consumer method > provider method > consumer > provider.
    assert_eq!(merged.method_parameter("a", "timeout"), Some("50"));
    assert_eq!(merged.method_parameter("b", "timeout"), Some("70"));
    assert_eq!(merged.method_parameter("c", "timeout"), Some("3000"));

    // A provider without group/version takes the consumer's.
    let merged = merge_url(
        &url("dubbo://p:1/org.Foo?application=prov"),
        consumer.params(),
    );
    assert_eq!(merged.parameter("group"), Some("cg"));
    assert_eq!(merged.parameter("version"), Some("2.0"));
    // No consumer parameters: only the provider-only keys go.
    let merged = merge_url(&provider, &UrlParams::new());
    assert_eq!(merged.parameter("threads"), None);
    assert_eq!(merged.parameter("remote.application"), None);
    assert_eq!(merged.parameter("timeout"), Some("1000"));
}
