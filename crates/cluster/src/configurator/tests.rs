//! Parsing rules as Java's `ConfigParser` does, and applying them as its configurators do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_url::Url;

use super::{ConfiguratorKind, Configurators};
use crate::router::RuleError;

const SERVICE: &str = "org.apache.dubbo.demo.DemoService";
const CONSUMER_HOST: &str = "10.0.0.100";

fn rule(text: &str) -> Configurators {
    Configurators::from_yaml(text).unwrap()
}

/// The URL of the first entry of the rule `text`.
fn first_entry(text: &str) -> Url {
    rule(text).iter().next().unwrap().url().clone()
}

/// Asserts each `(key, value)` of `want` on `u`'s parameters.
fn assert_params(u: &Url, want: &[(&str, &str)]) {
    for (key, value) in want {
        assert_eq!(u.parameter(key), Some(*value), "{key} of {u}");
    }
}

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

/// A provider URL as a consumer configures it: merged with the consumer's parameters.
fn at_consumer(host_port: &str, extra: &str) -> Url {
    url(&format!(
        "dubbo://{host_port}/{SERVICE}?interface={SERVICE}&side=consumer&application=shop&remote.application=demo-provider&weight=100{extra}"
    ))
}

fn provider(host_port: &str, extra: &str) -> Url {
    url(&format!(
        "dubbo://{host_port}/{SERVICE}?interface={SERVICE}&side=provider&application=demo-provider{extra}"
    ))
}

fn field_of(err: RuleError) -> String {
    match err {
        RuleError::Override { field, .. } => field,
        other => panic!("expected an override rule error, got {other:?}"),
    }
}

// ---------------------------------------------------------------- parsing

#[test]
fn weight_of_one_provider_for_consumers() {
    let c = rule(&format!(
        "configVersion: v3.0
scope: service
key: {SERVICE}
enabled: true
configs:
  - side: consumer
    providerAddresses: ['10.0.0.1:20880']
    parameters:
      weight: 200
"
    ));
    assert_eq!(c.len(), 1);
    let entry = c.iter().next().unwrap();
    let u = entry.url();
    assert_eq!(entry.kind(), ConfiguratorKind::Override);
    assert_eq!(u.protocol(), Some("override"));
    assert_eq!(u.address(), "0.0.0.0");
    assert_eq!(u.path(), Some(SERVICE));
    assert_params(
        u,
        &[
            ("weight", "200"),
            ("side", "consumer"),
            ("providerAddresses", "10.0.0.1:20880"),
            ("category", "dynamicconfigurators"),
            ("configVersion", "v3.0"),
            ("enabled", "true"),
        ],
    );
}

#[test]
fn disabled_on_one_provider_address() {
    // Dubbo Admin's "disable provider": a provider-side item whose addresses are the provider.
    let u = first_entry(&format!(
        "configVersion: v2.7
scope: service
key: {SERVICE}
configs:
  - side: provider
    addresses: ['10.0.0.2:20880']
    parameters: {{disabled: true}}
"
    ));
    assert_eq!(u.address(), "10.0.0.2:20880");
    assert_params(
        &u,
        &[
            ("disabled", "true"),
            ("providerAddresses", "10.0.0.2:20880"),
        ],
    );
}

#[test]
fn timeout_of_a_service_with_group_and_version() {
    let u = first_entry(
        "configVersion: v2.7
scope: service
key: testgroup/org.Foo:1.0.0
configs: [{side: consumer, addresses: [0.0.0.0], parameters: {timeout: 6666}}]
",
    );
    assert_eq!(u.path(), Some("org.Foo"));
    assert_params(
        &u,
        &[
            ("group", "testgroup"),
            ("version", "1.0.0"),
            ("timeout", "6666"),
        ],
    );
}

#[test]
fn service_scope_with_applications_gives_one_entry_per_address_and_application() {
    // Java's ServiceMultiApps.yml.
    let c = rule(
        "configVersion: v2.7
scope: service
key: serviceKey
configs:
- addresses: [127.0.0.1, 0.0.0.0]
  applications: [app1, app2]
  parameters:
    timeout: 6666
",
    );
    assert_eq!(c.len(), 4);
    let hosts_apps: Vec<(String, String)> = c
        .iter()
        .map(|e| {
            (
                e.url().address(),
                e.url().parameter("application").unwrap().to_owned(),
            )
        })
        .collect();
    // 0.0.0.0 sorts before 127.0.0.1; each address keeps its applications' order.
    assert_eq!(
        hosts_apps,
        [
            ("0.0.0.0".to_owned(), "app1".to_owned()),
            ("0.0.0.0".to_owned(), "app2".to_owned()),
            ("127.0.0.1".to_owned(), "app1".to_owned()),
            ("127.0.0.1".to_owned(), "app2".to_owned()),
        ]
    );
}

#[test]
fn application_scope_with_services_list() {
    // Java's AppMultiServices.yml.
    let c = rule(
        "configVersion: v2.7
scope: application
key: demo-consumer
configs:
- addresses: [127.0.0.1, 0.0.0.0]
  services: ['service1', 'g/service2:2.0']
  parameters:
    loadbalance: random
    cluster: failfast
    timeout: 6666
",
    );
    assert_eq!(c.len(), 4);
    let last = c.iter().last().unwrap().url().clone();
    assert_eq!(last.address(), "127.0.0.1");
    assert_eq!(last.path(), Some("service2"));
    assert_params(
        &last,
        &[
            ("group", "g"),
            ("version", "2.0"),
            ("application", "demo-consumer"),
            ("category", "appdynamicconfigurators"),
            ("loadbalance", "random"),
            ("cluster", "failfast"),
        ],
    );

    // No services: every service (`*`).
    let any = rule(
        "configVersion: v2.7
scope: application
key: demo-consumer
configs:
- parameters: {timeout: 1}
",
    );
    assert_eq!(any.iter().next().unwrap().url().path(), Some("*"));
}

/// Java's ConfiguratorV3.yml with the given `address` condition and an `app` one added.
fn v3_rule(address: &str) -> Configurators {
    rule(&format!(
        "configVersion: v3.0
scope: application
key: demo-provider
configs:
  - match:
      address: {address}
      service:
        oneof:
          - exact: DemoService
          - exact: DemoService2
      app: {{oneof: [{{prefix: demo}}]}}
      param:
        - key: match_key1
          value:
            exact: value1
    side: provider
    parameters:
      weight: 200
"
    ))
}

#[test]
fn v30_match_on_param_app_address_and_service() {
    let c = v3_rule("{cird: 10.0.0.0/24}");
    let entry = c.iter().next().unwrap();
    assert_eq!(entry.url().address(), "0.0.0.0");
    assert_eq!(entry.url().path(), Some("*"));
    // Provider side: the address condition is matched on the URL's own host.
    let applies = |c: &Configurators, s: &str| {
        c.configure(&url(s), CONSUMER_HOST).parameter("weight") == Some("200")
    };
    let base = "dubbo://10.0.0.1:20880";
    let ok = "side=provider&application=demo-provider&match_key1=value1";
    assert!(applies(&c, &format!("{base}/DemoService?{ok}")));
    assert!(applies(&c, &format!("{base}/DemoService2?{ok}")));
    assert!(
        !applies(&c, &format!("dubbo://10.0.1.1:20880/DemoService?{ok}")),
        "address"
    );
    assert!(!applies(&c, &format!("{base}/Other?{ok}")), "service");
    let other_app = "side=provider&application=shop&match_key1=value1";
    assert!(
        !applies(&c, &format!("{base}/DemoService?{other_app}")),
        "app"
    );
    let other_param = "side=provider&application=demo-provider&match_key1=other";
    assert!(
        !applies(&c, &format!("{base}/DemoService?{other_param}")),
        "param"
    );
    // Java's own example: a wildcard with a port never equals a bare host.
    let with_port = v3_rule("{wildcard: '10.0.0.1:20880'}");
    assert!(!applies(&with_port, &format!("{base}/DemoService?{ok}")));
    assert!(applies(
        &v3_rule("{wildcard: '10.0.0.*'}"),
        &format!("{base}/DemoService?{ok}")
    ));
}

#[test]
fn match_is_ignored_before_v30() {
    let c = rule(
        "configVersion: v2.7
scope: application
key: demo-provider
configs:
  - match: {param: [{key: k, value: {exact: never}}]}
    side: provider
    parameters: {weight: 7}
",
    );
    let u = provider("10.0.0.1:20880", "");
    assert_eq!(
        c.configure(&u, CONSUMER_HOST).parameter("weight"),
        Some("7")
    );
}

#[test]
fn disabled_rule_gives_no_configurators() {
    let c = rule(&format!(
        "configVersion: v3.0
scope: service
key: {SERVICE}
enabled: false
configs:
  - side: consumer
    parameters: {{timeout: 5000}}
"
    ));
    assert!(c.is_empty());
    // A typed item carries its own flag; without one Java writes `enabled=null`: off.
    let typed = rule(&format!(
        "configVersion: v3.0
scope: service
key: {SERVICE}
enabled: false
configs:
  - type: weight
    enabled: true
    side: consumer
    parameters: {{weight: 1}}
  - type: weight
    side: consumer
    parameters: {{weight: 2}}
"
    ));
    assert_eq!(typed.len(), 1);
    assert_eq!(
        typed.iter().next().unwrap().url().parameter("weight"),
        Some("1")
    );
}

#[test]
fn security_keys_are_dropped_from_config_centre_rules() {
    let c = rule(&format!(
        "configVersion: v3.0
scope: service
key: {SERVICE}
configs:
  - side: consumer
    parameters: {{router: script, rule: x, runtime: true, timeout: 9}}
"
    ));
    let u = c.iter().next().unwrap().url().clone();
    assert_eq!(u.parameter("router"), None);
    assert_eq!(u.parameter("rule"), None);
    assert_eq!(u.parameter("runtime"), None);
    assert_eq!(u.parameter("timeout"), Some("9"));
}

#[test]
fn a_list_of_override_urls_is_accepted() {
    let c = rule(
        r#"["override://0.0.0.0/org.Foo?timeout=1&side=consumer&configVersion=v2.7", "absent://10.0.0.1/org.Foo?retries=0"]"#,
    );
    assert_eq!(c.len(), 2);
    let kinds: Vec<ConfiguratorKind> = c.iter().map(|e| e.kind()).collect();
    assert_eq!(
        kinds,
        [ConfiguratorKind::Override, ConfiguratorKind::Absent]
    );
}

#[test]
fn bad_yaml_and_bad_fields_are_typed_errors() {
    let err = Configurators::from_yaml("configs: [unclosed").unwrap_err();
    assert!(
        matches!(
            err,
            RuleError::Yaml {
                kind: "override",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.code(), "rule.yaml");

    let cases = [
        ("scalar", "just text", "(document)"),
        (
            "no key",
            "configVersion: v3.0\nconfigs: [{parameters: {a: 1}}]",
            "key",
        ),
        ("no configs", "key: org.Foo", "configs"),
        ("configs not a list", "key: org.Foo\nconfigs: 3", "configs"),
        (
            "item not a mapping",
            "key: org.Foo\nconfigs: [3]",
            "configs[0]",
        ),
        (
            "no parameters",
            "key: org.Foo\nconfigs: [{side: consumer}]",
            "configs[0].parameters",
        ),
        (
            "empty parameters",
            "key: org.Foo\nconfigs: [{side: consumer, parameters: {}}]",
            "configs[0].parameters",
        ),
        (
            "nested parameter value",
            "key: org.Foo\nconfigs: [{parameters: {a: {b: c}}}]",
            "configs[0].parameters.a",
        ),
        (
            "match not a mapping",
            "configVersion: v3.0\nkey: org.Foo\nconfigs: [{match: 1, parameters: {a: 1}}]",
            "configs[0].match",
        ),
        (
            "param without key",
            "configVersion: v3.0\nkey: org.Foo\nconfigs: [{match: {param: [{value: {exact: x}}]}, parameters: {a: 1}}]",
            "configs[0].match.param[0].key",
        ),
        (
            "bad regex",
            "configVersion: v3.0\nkey: org.Foo\nconfigs: [{match: {app: {oneof: [{regex: '('}]}}, parameters: {a: 1}}]",
            "configs[0].match.app.oneof[0]",
        ),
        (
            "empty service",
            "scope: application\nkey: app\nconfigs: [{services: [''], parameters: {a: 1}}]",
            "configs[0].services",
        ),
        ("not a URL", "[3]", "[0]"),
    ];
    for (name, text, field) in cases {
        let err = Configurators::from_yaml(text)
            .err()
            .unwrap_or_else(|| panic!("{name}: accepted"));
        if field == "(document)" {
            assert!(matches!(err, RuleError::Override { .. }), "{name}: {err}");
        }
        assert_eq!(err.code(), "rule.override", "{name}: {err}");
        assert_eq!(field_of(err), field, "{name}");
    }
}

// ---------------------------------------------------------------- applying

#[test]
fn configure_table() {
    struct Case {
        name: &'static str,
        entries: &'static [&'static str],
        url: Url,
        key: &'static str,
        want: Option<&'static str>,
    }
    let cases = [
        Case {
            name: "consumer side, any host",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v3.0&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("5"),
        },
        Case {
            name: "consumer side, matched on the consumer's host",
            entries: &["override://10.0.0.100/*?side=consumer&configVersion=v3.0&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("5"),
        },
        Case {
            name: "consumer side, another consumer",
            entries: &["override://10.0.0.99/*?side=consumer&configVersion=v3.0&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
        Case {
            name: "provider-side entry does not apply at a consumer",
            entries: &["override://0.0.0.0/*?side=provider&configVersion=v3.0&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
        Case {
            name: "provider side, matched on the provider's host",
            entries: &["override://10.0.0.1/*?side=provider&configVersion=v2.7&timeout=5"],
            url: provider("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("5"),
        },
        Case {
            name: "no side: never applies from 2.7 on",
            entries: &["override://0.0.0.0/*?configVersion=v2.7&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
        Case {
            name: "providerAddresses lists this provider",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v3.0&providerAddresses=10.0.0.9:1,10.0.0.1:20880&weight=7"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "weight",
            want: Some("7"),
        },
        Case {
            name: "providerAddresses lists another provider",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v3.0&providerAddresses=10.0.0.2:20880&weight=7"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "weight",
            want: Some("100"),
        },
        Case {
            name: "providerAddresses 0.0.0.0:port",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v3.0&providerAddresses=0.0.0.0:20880&weight=7"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "weight",
            want: Some("7"),
        },
        Case {
            name: "providerAddresses host only",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v3.0&providerAddresses=10.0.0.1&weight=7"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "weight",
            want: Some("7"),
        },
        Case {
            name: "application matches the consumer's",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v2.7&application=shop&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("5"),
        },
        Case {
            name: "application of another consumer",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v2.7&application=other&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
        Case {
            name: "another service",
            entries: &["override://0.0.0.0/org.Other?side=consumer&configVersion=v2.7&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
        Case {
            name: "this service",
            entries: &["override://0.0.0.0/org.apache.dubbo.demo.DemoService?side=consumer&configVersion=v2.7&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("5"),
        },
        Case {
            name: "a group the URL does not have",
            entries: &["override://0.0.0.0/org.apache.dubbo.demo.DemoService?group=g&side=consumer&configVersion=v2.7&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
        Case {
            name: "condition keys are not copied",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v3.0&category=dynamicconfigurators&application=*&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "category",
            want: None,
        },
        Case {
            name: "absent only fills a gap",
            entries: &["absent://0.0.0.0/*?side=consumer&configVersion=v3.0&weight=7"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "weight",
            want: Some("100"),
        },
        Case {
            name: "absent fills a gap",
            entries: &["absent://0.0.0.0/*?side=consumer&configVersion=v3.0&retries=0"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "retries",
            want: Some("0"),
        },
        Case {
            name: "a specific host applies after 0.0.0.0",
            entries: &[
                "override://10.0.0.100/*?side=consumer&configVersion=v3.0&timeout=2",
                "override://0.0.0.0/*?side=consumer&configVersion=v3.0&timeout=1",
            ],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("2"),
        },
        Case {
            name: "higher priority applies later",
            entries: &[
                "override://0.0.0.0/*?side=consumer&configVersion=v3.0&timeout=2&priority=5",
                "override://0.0.0.0/*?side=consumer&configVersion=v3.0&timeout=1&priority=1",
            ],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("2"),
        },
        Case {
            name: "pre-2.7: port names the provider",
            entries: &["override://10.0.0.1:20880/*?weight=9"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "weight",
            want: Some("9"),
        },
        Case {
            name: "pre-2.7: another port",
            entries: &["override://10.0.0.1:20881/*?weight=9"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "weight",
            want: Some("100"),
        },
        Case {
            name: "pre-2.7: no port, the consumer's host",
            entries: &["override://10.0.0.100/*?timeout=3"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("3"),
        },
        Case {
            name: "pre-2.7: ~key condition holds",
            entries: &["override://0.0.0.0/*?~weight=100&timeout=3"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: Some("3"),
        },
        Case {
            name: "pre-2.7: ~key condition fails",
            entries: &["override://0.0.0.0/*?~weight=50&timeout=3"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
        Case {
            name: "pre-2.7: ~key is not copied",
            entries: &["override://0.0.0.0/*?~weight=100&timeout=3"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "~weight",
            want: None,
        },
        Case {
            name: "switched-off entries are dropped",
            entries: &["override://0.0.0.0/*?side=consumer&configVersion=v3.0&enabled=false&timeout=5"],
            url: at_consumer("10.0.0.1:20880", ""),
            key: "timeout",
            want: None,
        },
    ];
    for case in cases {
        let urls: Vec<Url> = case.entries.iter().map(|s| url(s)).collect();
        let c = Configurators::from_override_urls(&urls);
        let got = c.configure(&case.url, CONSUMER_HOST);
        assert_eq!(got.parameter(case.key), case.want, "{}", case.name);
    }
}

#[test]
fn unchanged_urls_are_the_same_clone() {
    let c = Configurators::from_override_urls(&[url(
        "override://0.0.0.0/org.Other?side=consumer&configVersion=v3.0&timeout=5",
    )]);
    let u = at_consumer("10.0.0.1:20880", "");
    assert!(Url::ptr_eq(&c.configure(&u, CONSUMER_HOST), &u));
    assert!(Url::ptr_eq(
        &Configurators::default().configure(&u, CONSUMER_HOST),
        &u
    ));
}

#[test]
fn registry_urls_empty_clears_and_anyhost_alone_sets_nothing() {
    let c = Configurators::from_override_urls(&[
        url("override://0.0.0.0/*?side=consumer&configVersion=v3.0&timeout=5"),
        url("empty://0.0.0.0/*?category=configurators"),
    ]);
    assert!(c.is_empty());
    let c = Configurators::from_override_urls(&[url("override://0.0.0.0/*?anyhost=true")]);
    assert!(c.is_empty());
    let c = Configurators::from_override_urls(&[url("dubbo://0.0.0.0/*?timeout=1")]);
    assert!(c.is_empty());
}

#[test]
fn equality_and_clones() {
    let text = format!(
        "configVersion: v3.0\nkey: {SERVICE}\nconfigs: [{{side: consumer, match: {{param: [{{key: a, value: {{regex: 'x.*'}}}}]}}, parameters: {{timeout: 1}}}}]"
    );
    let a = rule(&text);
    let b = rule(&text);
    assert_eq!(a, b);
    assert_eq!(a.clone(), a);
    assert_ne!(a, rule(&text.replace("x.*", "y.*")));
    assert_ne!(a, Configurators::default());
}
