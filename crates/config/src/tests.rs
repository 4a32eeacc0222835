use super::*;

const FULL: &str = r#"
dubbo:
  application:
    name: demo-provider
    qos-enable: false
  protocols:
    dubbo:
      name: dubbo
      port: 20880
      threads: 50
    tri:
      port: 50051
  registry:
    address: zookeeper://127.0.0.1:2181
  provider:
    timeout: 3000
  consumer:
    timeout: 1000
    check: false
  services:
    org.apache.dubbo.interop.InteropService:
      version: 1.0.0
      protocols: [dubbo, tri]
  references:
    interop:
      interface: org.apache.dubbo.interop.InteropService
      url: dubbo://127.0.0.1:20880
      version: 1.0.0
      timeout: 500
"#;

#[test]
fn parses_dubbo_keys() {
    let c = DubboConfig::from_yaml(FULL).unwrap();
    assert_eq!(c.application.name.as_deref(), Some("demo-provider"));
    assert_eq!(c.application.qos_enable, Some(false));
    assert_eq!(c.protocols["dubbo"].port, Some(20880));
    assert_eq!(c.protocols["dubbo"].threads, Some(50));
    assert_eq!(c.protocols["tri"].protocol_name("tri"), "tri");
    assert_eq!(
        c.all_registries()[0].1.address.as_deref(),
        Some("zookeeper://127.0.0.1:2181")
    );
    let s = &c.services["org.apache.dubbo.interop.InteropService"];
    assert_eq!(s.protocols, vec!["dubbo".to_owned(), "tri".to_owned()]);
    assert_eq!(c.references["interop"].timeout, Some(500));
}

#[test]
fn root_key_is_optional_and_empty_is_default() {
    let c = DubboConfig::from_yaml("application:\n  name: x\n").unwrap();
    assert_eq!(c.application.name.as_deref(), Some("x"));
    assert_eq!(DubboConfig::from_yaml("").unwrap(), DubboConfig::default());
}

#[test]
fn env_overrides_present_and_known_keys() {
    let env = [
        ("DUBBO_PROTOCOLS_TRI_PORT", "50052"),
        ("DUBBO_APPLICATION_QOS_ENABLE", "true"),
        ("DUBBO_CONSUMER_RETRIES", "5"),
        ("DUBBO_REFERENCES_INTEROP_URL", "tri://127.0.0.1:50051"),
        ("HOME", "/root"),
    ];
    let c = DubboConfig::from_yaml_with_env(FULL, env).unwrap();
    assert_eq!(c.protocols["tri"].port, Some(50052));
    assert_eq!(c.application.qos_enable, Some(true));
    assert_eq!(c.consumer.retries, Some(5));
    assert_eq!(
        c.references["interop"].url.as_deref(),
        Some("tri://127.0.0.1:50051")
    );
}

#[test]
fn unknown_key_is_named() {
    let err =
        DubboConfig::from_yaml("dubbo:\n  protocols:\n    dubbo:\n      prot: 1\n").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("dubbo.protocols.dubbo"), "{text}");
    assert!(text.contains("prot"), "{text}");
    assert_eq!(err.code(), "config.invalid");
}

#[test]
fn wrong_type_is_named() {
    let err =
        DubboConfig::from_yaml("dubbo:\n  protocols:\n    tri:\n      port: high\n").unwrap_err();
    assert!(
        err.to_string().contains("dubbo.protocols.tri.port"),
        "{err}"
    );
}

#[test]
fn bad_values_are_named() {
    let cases = [
        (
            "dubbo:\n  protocols:\n    x:\n      name: http2\n",
            "dubbo.protocols.x.name",
        ),
        (
            "dubbo:\n  protocol:\n    port: 70000\n",
            "dubbo.protocol.port",
        ),
        (
            "dubbo:\n  registry:\n    timeout: 3\n",
            "dubbo.registry.address",
        ),
        (
            "dubbo:\n  references:\n    a:\n      url: http://x\n",
            "dubbo.references.a.url",
        ),
        (
            "dubbo:\n  services:\n    a:\n      protocols: [tri]\n",
            "dubbo.services.a.protocols",
        ),
        (
            "dubbo:\n  application:\n    register-mode: both\n",
            "dubbo.application.register-mode",
        ),
    ];
    for (yaml, key) in cases {
        let err = DubboConfig::from_yaml(yaml).unwrap_err();
        assert!(err.to_string().contains(key), "{yaml}: {err}");
    }
}

#[test]
fn syntax_error() {
    let err = DubboConfig::from_yaml("dubbo: [unclosed").unwrap_err();
    assert_eq!(err.code(), "config.syntax");
}

#[test]
fn numbers_and_booleans_are_taken_where_text_is_expected() {
    let yaml = "dubbo:\n  application:\n    name: 42\n  provider:\n    version: 1.0\n    group: true\n    weight: 100\n    parameters:\n      ratio: 0.5\n      enabled: false\n  services:\n    a:\n      version: 2\n      protocols: dubbo, tri\n  protocols:\n    dubbo: {}\n    tri: {}\n";
    let c = DubboConfig::from_yaml(yaml).unwrap();
    assert_eq!(c.application.name.as_deref(), Some("42"));
    assert_eq!(c.provider.version.as_deref(), Some("1.0"));
    assert_eq!(c.provider.group.as_deref(), Some("true"));
    assert_eq!(c.provider.weight, Some(100));
    assert_eq!(c.provider.parameters["ratio"], "0.5");
    assert_eq!(c.provider.parameters["enabled"], "false");
    assert_eq!(c.services["a"].version.as_deref(), Some("2"));
    assert_eq!(c.services["a"].protocols, vec!["dubbo", "tri"]);
}

#[test]
fn environment_values_keep_their_text() {
    let env = [
        ("DUBBO_PROVIDER_VERSION", "1.10"),
        ("DUBBO_PROVIDER_WEIGHT", "100"),
        ("DUBBO_CONSUMER_CHECK", "false"),
        ("DUBBO_IP_TO_REGISTRY", "10.0.0.5"),
        ("TRI_DUBBO_PORT_TO_BIND", "0"),
        ("PATH", "/bin"),
    ];
    let c = DubboConfig::from_yaml_with_env("application: {name: x}", env).unwrap();
    assert_eq!(c.provider.version.as_deref(), Some("1.10"));
    assert_eq!(c.provider.weight, Some(100));
    assert_eq!(c.consumer.check, Some(false));
    assert_eq!(c.environment["DUBBO_IP_TO_REGISTRY"], "10.0.0.5");
    assert_eq!(c.environment["TRI_DUBBO_PORT_TO_BIND"], "0");
    assert!(!c.environment.contains_key("PATH"));
}

#[test]
fn numeric_strings_are_taken_where_numbers_are_expected() {
    let yaml = "dubbo:\n  protocol:\n    port: \"20881\"\n  provider:\n    weight: \"100\"\n    timeout: \" 3000 \"\n  consumer:\n    check: \"false\"\n";
    let c = DubboConfig::from_yaml(yaml).unwrap();
    assert_eq!(c.protocol.as_ref().and_then(|p| p.port), Some(20881));
    assert_eq!(c.provider.weight, Some(100));
    assert_eq!(c.provider.timeout, Some(3000));
    assert_eq!(c.consumer.check, Some(false));
    for (yaml, key) in [
        (
            "dubbo:\n  provider:\n    weight: heavy\n",
            "dubbo.provider.weight",
        ),
        (
            "dubbo:\n  provider:\n    weight: 1.5\n",
            "dubbo.provider.weight",
        ),
        (
            "dubbo:\n  provider:\n    weight: -1\n",
            "dubbo.provider.weight",
        ),
        (
            "dubbo:\n  consumer:\n    check: maybe\n",
            "dubbo.consumer.check",
        ),
    ] {
        let err = DubboConfig::from_yaml(yaml).unwrap_err();
        assert!(err.to_string().contains(key), "{yaml}: {err}");
    }
}

#[test]
fn entries_are_found_by_id_or_interface() {
    let yaml = "dubbo:\n  references:\n    adder:\n      interface: org.example.Adder\n    org.example.Other: {}\n    x:\n      interface: org.example.Twice\n    y:\n      interface: org.example.Twice\n";
    let c = DubboConfig::from_yaml(yaml).unwrap();
    assert_eq!(
        c.reference_for("org.example.Adder").unwrap().unwrap().0,
        "adder"
    );
    assert_eq!(
        c.reference_for("org.example.Other").unwrap().unwrap().0,
        "org.example.Other"
    );
    assert!(c.reference_for("org.example.None").unwrap().is_none());
    let err = c.reference_for("org.example.Twice").unwrap_err();
    assert!(
        err.to_string().contains("dubbo.references.x.interface"),
        "{err}"
    );
}

#[test]
fn shared_section_keys_are_read_and_named_in_every_section() {
    let yaml = "dubbo:\n  provider:\n    weight: 3\n    retries: 1\n  consumer:\n    timeout: 700\n    check: false\n  services:\n    s:\n      interface: a.S\n      weight: 5\n      accesslog: \"true\"\n  references:\n    r:\n      interface: a.R\n      timeout: 900\n      merger: \"true\"\n      lazy: \"true\"\n  modules:\n    m:\n      consumer:\n        retries: 4\n";
    let c = DubboConfig::from_yaml(yaml).unwrap();
    assert_eq!((c.provider.weight, c.provider.retries), (Some(3), Some(1)));
    assert_eq!(
        (c.consumer.timeout, c.consumer.check),
        (Some(700), Some(false))
    );
    assert_eq!(c.services["s"].weight, Some(5));
    assert_eq!(c.services["s"].accesslog.as_deref(), Some("true"));
    let r = &c.references["r"];
    assert_eq!((r.timeout, r.lazy), (Some(900), Some(true)));
    assert_eq!(r.merger.as_deref(), Some("true"));
    assert_eq!(c.consumer_for("m").retries, Some(4));
    for (yaml, key) in [
        (
            "dubbo:\n  references:\n    r:\n      timeout: soon\n",
            "dubbo.references.r.timeout",
        ),
        (
            "dubbo:\n  services:\n    s:\n      weight: heavy\n",
            "dubbo.services.s.weight",
        ),
        (
            "dubbo:\n  modules:\n    m:\n      consumer:\n        lazy: maybe\n",
            "dubbo.modules.m.consumer.lazy",
        ),
        (
            "dubbo:\n  references:\n    r:\n      timout: 1\n",
            "dubbo.references.r",
        ),
        (
            "dubbo:\n  services:\n    s:\n      retries: 1\n",
            "dubbo.services.s",
        ),
    ] {
        let err = DubboConfig::from_yaml(yaml).unwrap_err();
        assert!(err.to_string().contains(key), "{yaml}: {err}");
    }
}
