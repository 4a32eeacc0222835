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
