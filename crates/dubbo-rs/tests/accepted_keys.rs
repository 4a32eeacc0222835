//! No accepted-but-ignored configuration: every key the configuration takes either has an effect
//! or is refused by `Application::build` with an error naming it. In-process, on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_rs::config::{ConfigError, DubboConfig};
use dubbo_rs::prelude::*;

mod support;

#[dubbo_rs::service(interface = "org.example.Echo")]
pub trait Echo {
    async fn echo(&self, text: String) -> Result<String, RpcError>;
}

struct EchoImpl;

impl Echo for EchoImpl {
    async fn echo(&self, text: String) -> Result<String, RpcError> {
        Ok(text)
    }
}

/// `yaml` under `dubbo:` with an application name, built into an application.
fn build(yaml: &str) -> Result<Application, DubboError> {
    let text = format!("dubbo:\n  application:\n    name: sweep\n{yaml}");
    let config = DubboConfig::from_yaml(&text).unwrap();
    Application::builder("sweep").config(config).build()
}

/// The key a refusal names.
fn refused_key(yaml: &str) -> String {
    match build(yaml) {
        Err(DubboError::Config(ConfigError::Invalid { key, .. })) => key,
        Err(other) => panic!("{yaml}: not a key refusal: {other}"),
        Ok(_) => panic!("{yaml}: accepted"),
    }
}

#[tokio::test]
async fn keys_without_an_effect_are_refused_at_start_naming_the_key() {
    let cases = [
        // Registration needs a registry, and an N/A registry takes no settings.
        ("    register-mode: instance\n", "dubbo.application.register-mode"),
        ("  provider:\n    register: true\n", "dubbo.provider.register"),
        (
            "  services:\n    org.example.Echo:\n      register: true\n",
            "dubbo.services.org.example.Echo.register",
        ),
        (
            "  registry:\n    address: N/A\n    timeout: 3000\n",
            "dubbo.registry.timeout",
        ),
        // A config centre scheme nothing implements.
        (
            "  config-center:\n    address: nosuch://127.0.0.1:1\n",
            "dubbo.config-center.address",
        ),
        // A registry scheme nothing implements.
        (
            "  registry:\n    address: nosuch://127.0.0.1:1\n",
            "dubbo.registry.address",
        ),
        // Generic calls are made in code.
        (
            "  references:\n    echo:\n      interface: org.example.Echo\n      url: dubbo://127.0.0.1:1\n      generic: true\n",
            "dubbo.references.echo.generic",
        ),
        // tri:// does not read the dubbo:// server settings or `connections`.
        ("  protocols:\n    tri:\n      threads: 10\n", "dubbo.protocols.tri.threads"),
        ("  protocols:\n    tri:\n      dispatcher: direct\n", "dubbo.protocols.tri.dispatcher"),
        ("  protocols:\n    tri:\n      threadpool: fixed\n", "dubbo.protocols.tri.threadpool"),
        ("  protocols:\n    tri:\n      payload: 1000\n", "dubbo.protocols.tri.payload"),
        ("  protocols:\n    tri:\n      heartbeat: 1000\n", "dubbo.protocols.tri.heartbeat"),
        (
            "  references:\n    echo:\n      interface: org.example.Echo\n      url: tri://127.0.0.1:1\n      connections: 2\n",
            "dubbo.references.echo.connections",
        ),
        (
            "  consumer:\n    protocol: tri\n    connections: 2\n",
            "dubbo.consumer.connections",
        ),
        // dubbo:// thread pools and serializations it cannot honour.
        ("  protocol:\n    threadpool: forkjoin\n", "dubbo.protocol.threadpool"),
        (
            "  protocols:\n    dubbo:\n      threadpool: cached\n      threads: 5\n",
            "dubbo.protocols.dubbo.threads",
        ),
        (
            "  protocols:\n    dubbo:\n      serialization: kryo\n",
            "dubbo.protocols.dubbo.serialization",
        ),
        (
            "  protocols:\n    dubbo:\n      prefer-serialization: fastjson2,protobuf\n",
            "dubbo.protocols.dubbo.prefer-serialization",
        ),
        (
            "  consumer:\n    prefer-serialization: kryo,hessian2\n",
            "dubbo.consumer.prefer-serialization",
        ),
        (
            "  references:\n    echo:\n      interface: org.example.Echo\n      prefer-serialization: avro\n",
            "dubbo.references.echo.prefer-serialization",
        ),
        // Filters that do not exist would be skipped.
        ("  provider:\n    filter: nosuch\n", "dubbo.provider.filter"),
        ("  consumer:\n    filter: default,-token,nosuch\n", "dubbo.consumer.filter"),
        (
            "  services:\n    org.example.Echo:\n      filter: tps,accesslog,typo\n",
            "dubbo.services.org.example.Echo.filter",
        ),
    ];
    for (yaml, key) in cases {
        assert_eq!(refused_key(yaml), key, "{yaml}");
    }
}

#[tokio::test]
async fn values_that_ask_for_nothing_are_accepted() {
    // What a Java application's YAML typically carries: QoS off (with its port), no
    // registration, hessian2, a known pool, an N/A registry, filters that exist.
    build(
        "    qos-enable: false\n    qos-port: 22222\n    qos-accept-foreign-ip: false\n    owner: ops\n\
         \x20 registry:\n    address: N/A\n\
         \x20 protocols:\n    dubbo:\n      threadpool: fixed\n      threads: 50\n      serialization: hessian2\n      prefer-serialization: fastjson2,hessian2\n    tri:\n      serialization: fastjson2\n\
         \x20 provider:\n    register: false\n    filter: default,-echo,tps\n\
         \x20 services:\n    org.example.Echo:\n      register: false\n      filter: accesslog\n\
         \x20 consumer:\n    filter: activelimit\n    connections: 2\n    prefer-serialization: fastjson2,hessian2\n\
         \x20 references:\n    echo:\n      interface: org.example.Echo\n      url: dubbo://127.0.0.1:1\n      generic: false\n      connections: 2\n",
    )
    .unwrap();
    build("  protocols:\n    dubbo:\n      threadpool: cached\n").unwrap();
}

#[tokio::test]
async fn environment_takes_javas_values() {
    let err = DubboConfig::from_yaml("dubbo:\n  application:\n    environment: dev\n").unwrap_err();
    assert!(
        matches!(&err, ConfigError::Invalid { key, .. } if key == "dubbo.application.environment"),
        "{err}"
    );
    DubboConfig::from_yaml("dubbo:\n  application:\n    environment: product\n").unwrap();
}

#[tokio::test]
async fn application_labels_are_in_every_url() {
    let app = build(
        "    version: 2.1\n    owner: alice\n    organization: acme\n    environment: test\n\
         \x20 protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n",
    )
    .unwrap();
    let urls = support::export(&app, EchoServer::new(EchoImpl)).await;
    let reference = support::refer_echo(&app, &urls[0]).await;
    let consumer_url = reference.invoker().url().clone();
    for url in [&urls[0], &consumer_url] {
        assert_eq!(url.parameter("application.version"), Some("2.1"), "{url}");
        assert_eq!(url.parameter("owner"), Some("alice"), "{url}");
        assert_eq!(url.parameter("organization"), Some("acme"), "{url}");
        assert_eq!(url.parameter("environment"), Some("test"), "{url}");
    }
    app.shutdown().await;
}

#[tokio::test]
async fn dubbo_server_settings_take_effect() {
    // `payload` bounds the request size the dubbo:// server accepts.
    let app = build(
        "  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n      payload: 512\n      threadpool: fixed\n      threads: 4\n      dispatcher: all\n      heartbeat: 30000\n",
    )
    .unwrap();
    let urls = support::export(&app, EchoServer::new(EchoImpl)).await;
    for (key, value) in [
        ("payload", "512"),
        ("threadpool", "fixed"),
        ("threads", "4"),
        ("dispatcher", "all"),
        ("heartbeat", "30000"),
        ("serialization", "hessian2"),
        ("prefer.serialization", "hessian2,fastjson2"),
    ] {
        assert_eq!(urls[0].parameter(key), Some(value), "{}", urls[0]);
    }
    let consumer = Application::builder("sweep-consumer").build().unwrap();
    let reference = support::refer_echo(&consumer, &urls[0]).await;
    let client = EchoClient::new(reference.invoker());
    assert_eq!(client.echo("short".into()).await.unwrap(), "short");
    // Over the limit: the server refuses the request (and drops the connection).
    client.echo("x".repeat(2000)).await.unwrap_err();
    consumer.shutdown().await;
    app.shutdown().await;
}
