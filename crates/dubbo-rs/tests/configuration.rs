//! Every configuration key either works or is refused at start, naming the key: ports, hosts,
//! references, services, `check`, registries. In-process, on 127.0.0.1 and free ports.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::{DubboConfig, ProtocolConfig};
use dubbo_rs::prelude::*;
use dubbo_rs::url::Url;

#[dubbo_rs::service(interface = "org.example.Adder")]
pub trait Adder {
    async fn add(&self, a: i32, b: i32) -> Result<i32, RpcError>;
}

struct AdderImpl;

impl Adder for AdderImpl {
    async fn add(&self, a: i32, b: i32) -> Result<i32, RpcError> {
        Ok(a + b)
    }
}

/// A port nobody listens on (bound, then released).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

async fn export_one(app: &Application, options: ServiceOptions) -> Vec<Url> {
    app.default_module()
        .export(AdderServer::new(AdderImpl), options)
        .await
        .unwrap()
}

async fn call(url: &str, version: Option<&str>) -> Result<i32, DubboError> {
    let consumer = Application::builder("adder-consumer").build()?;
    let mut options = ReferenceOptions::new("org.example.Adder")
        .url(url)
        .timeout(Duration::from_secs(5));
    if let Some(v) = version {
        options = options.version(v);
    }
    let reference = consumer.default_module().refer(options).await?;
    let result = AdderClient::new(reference.invoker()).add(2, 3).await;
    consumer.shutdown().await;
    Ok(result?)
}

fn now_millis() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

#[tokio::test]
async fn port_zero_binds_a_free_port_from_yaml_env_and_builder() {
    let yaml = "dubbo:\n  application:\n    name: zero\n  protocols:\n    dubbo:\n      host: 127.0.0.1\n      port: 0\n    tri:\n      host: 127.0.0.1\n      port: 50051\n";
    let env = [("DUBBO_PROTOCOLS_TRI_PORT", "0")];
    let config = DubboConfig::from_yaml_with_env(yaml, env).unwrap();
    let from_config = Application::from_config(config).unwrap();
    let from_builder = Application::builder("zero-builder")
        .protocol("dubbo", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let mut urls = export_one(&from_config, ServiceOptions::new()).await;
    urls.extend(export_one(&from_builder, ServiceOptions::new()).await);
    assert_eq!(urls.len(), 3);
    for url in &urls {
        let port = url.port();
        assert!(port != 0 && port != 20880 && port != 50051, "{url}");
        assert_eq!(url.parameter("bind.port"), None, "{url}");
        let direct = format!("{}://127.0.0.1:{port}", url.protocol().unwrap());
        assert_eq!(call(&direct, None).await.unwrap(), 5, "{url}");
    }
    from_config.shutdown().await;
    from_builder.shutdown().await;
}

#[tokio::test]
async fn ports_above_65535_are_refused_naming_the_key() {
    let pc = ProtocolConfig {
        port: Some(70000),
        ..ProtocolConfig::default()
    };
    let err = Application::builder("big")
        .protocol_config("dubbo", pc)
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("dubbo.protocols.dubbo.port"),
        "{err}"
    );
    let env = [("DUBBO_PROTOCOL_PORT", "65536")];
    let err = DubboConfig::from_yaml_with_env("application: {name: x}", env).unwrap_err();
    assert!(err.to_string().contains("dubbo.protocol.port"), "{err}");
}

#[tokio::test]
async fn builder_calls_apply_in_any_order() {
    let config = DubboConfig::from_yaml(
        "dubbo:\n  application:\n    name: ordered\n  protocols:\n    dubbo:\n      port: 20880\n      threads: 7\n",
    )
    .unwrap();
    // host before the protocol, and the configuration last: both still apply.
    let app = Application::builder("ignored")
        .host("127.0.0.1")
        .protocol("dubbo", 0)
        .config(config)
        .build()
        .unwrap();
    assert_eq!(app.name(), "ordered");
    let pc = &app.config().protocols["dubbo"];
    assert_eq!(pc.host.as_deref(), Some("127.0.0.1"));
    assert_eq!(pc.port, Some(0));
    assert_eq!(pc.threads, Some(7));
    let urls = export_one(&app, ServiceOptions::new()).await;
    assert_eq!(urls[0].host(), Some("127.0.0.1"));
    assert_eq!(urls[0].parameter("anyhost"), Some("false"));
    app.shutdown().await;
}

#[tokio::test]
async fn references_and_services_are_read_from_the_configuration() {
    let provider_yaml = "dubbo:\n  application:\n    name: svc\n  protocols:\n    dubbo:\n      host: 127.0.0.1\n      port: 0\n  provider:\n    executes: 3\n  services:\n    adder:\n      interface: org.example.Adder\n      version: 2.0\n      weight: \"100\"\n      executes: 8\n      flowcontrol: heuristicSmoothingFlowControl\n";
    let provider =
        Application::from_config(DubboConfig::from_yaml(provider_yaml).unwrap()).unwrap();
    let url = export_one(&provider, ServiceOptions::new()).await.remove(0);
    assert_eq!(url.version(), Some("2.0"), "{url}");
    assert_eq!(url.parameter("weight"), Some("100"));
    assert_eq!(url.parameter("executes"), Some("8"));
    // Calls below go through the adaptive limit with its real CPU sampler.
    assert_eq!(
        url.parameter("flowcontrol"),
        Some("heuristicSmoothingFlowControl")
    );
    let port = url.port();

    let consumer_yaml = format!(
        "dubbo:\n  application:\n    name: ref\n  consumer:\n    actives: 4\n    timeout: 9000\n  references:\n    adder:\n      interface: org.example.Adder\n      url: dubbo://127.0.0.1:{port}\n      version: 2.0\n      timeout: 4000\n"
    );
    let consumer =
        Application::from_config(DubboConfig::from_yaml(&consumer_yaml).unwrap()).unwrap();
    // Nothing but the interface in code: url, version and timeout come from the entry.
    let reference = consumer
        .default_module()
        .refer(ReferenceOptions::new("org.example.Adder"))
        .await
        .unwrap();
    let ref_url = reference.invoker().url().clone();
    assert_eq!(ref_url.parameter("timeout"), Some("4000"), "{ref_url}");
    assert_eq!(ref_url.parameter("actives"), Some("4"));
    assert_eq!(reference.service_key().version(), Some("2.0"));
    assert_eq!(
        AdderClient::new(reference.invoker())
            .add(40, 2)
            .await
            .unwrap(),
        42
    );
    // Options override the entry.
    let reference = consumer
        .default_module()
        .refer(ReferenceOptions::new("org.example.Adder").timeout(Duration::from_millis(1234)))
        .await
        .unwrap();
    assert_eq!(reference.invoker().url().parameter("timeout"), Some("1234"));
    consumer.shutdown().await;
    provider.shutdown().await;
}

#[test]
fn an_unknown_flowcontrol_is_refused_naming_the_key() {
    for (yaml, key) in [
        ("dubbo:\n  provider:\n    flowcontrol: vegas\n", "dubbo.provider.flowcontrol"),
        (
            "dubbo:\n  services:\n    adder:\n      interface: org.example.Adder\n      flowcontrol: autoConcurrencyLimiter\n",
            "dubbo.services.adder.flowcontrol",
        ),
    ] {
        let err = DubboConfig::from_yaml(yaml).expect_err("refused");
        let text = err.to_string();
        assert!(text.contains(key), "{text}");
        assert!(text.contains("autoConcurrencyLimier"), "{text}");
    }
}

#[tokio::test]
async fn check_true_fails_at_refer_and_check_false_refers() {
    for scheme in ["dubbo", "tri"] {
        let port = closed_port();
        let url = format!("{scheme}://127.0.0.1:{port}");
        let consumer = Application::builder("checker").build().unwrap();
        let err = consumer
            .default_module()
            .refer(ReferenceOptions::new("org.example.Adder").url(url.clone()))
            .await
            .unwrap_err();
        assert!(!err.to_string().is_empty());
        let reference = consumer
            .default_module()
            .refer(
                ReferenceOptions::new("org.example.Adder")
                    .url(url.clone())
                    .parameter("check", "false")
                    .timeout(Duration::from_secs(5)),
            )
            .await
            .unwrap();
        let client = AdderClient::new(reference.invoker());
        assert!(client.add(1, 1).await.is_err(), "{scheme}: no provider yet");
        // The provider comes up on that port: the same reference now works.
        let provider = Application::builder("late")
            .protocol(scheme, port)
            .host("127.0.0.1")
            .build()
            .unwrap();
        export_one(&provider, ServiceOptions::new()).await;
        let mut answer = None;
        for _ in 0..50 {
            if let Ok(v) = client.add(1, 1).await {
                answer = Some(v);
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(answer, Some(2), "{scheme}");
        provider.shutdown().await;
        consumer.shutdown().await;
    }
}

#[tokio::test]
async fn consumer_check_false_from_yaml() {
    let port = closed_port();
    let yaml = format!(
        "dubbo:\n  application:\n    name: lenient\n  consumer:\n    check: \"false\"\n  references:\n    org.example.Adder:\n      url: dubbo://127.0.0.1:{port}\n"
    );
    let consumer = Application::from_config(DubboConfig::from_yaml(&yaml).unwrap()).unwrap();
    let reference = consumer
        .default_module()
        .refer(ReferenceOptions::new("org.example.Adder"))
        .await
        .unwrap();
    assert_eq!(reference.invoker().url().parameter("check"), Some("false"));
    consumer.shutdown().await;
}

#[tokio::test]
async fn registries_are_checked_at_start() {
    // A known scheme is accepted without connecting (nothing is opened before an export or a
    // reference); a scheme no registry implements is refused, naming the key.
    let zk = "dubbo:\n  application:\n    name: r\n  registry:\n    address: zookeeper://127.0.0.1:2181\n";
    Application::from_config(DubboConfig::from_yaml(zk).unwrap()).unwrap();
    let nacos = "dubbo:\n  application:\n    name: r\n  registries:\n    zk:\n      address: nacos://127.0.0.1:8848\n";
    let err = Application::from_config(DubboConfig::from_yaml(nacos).unwrap()).unwrap_err();
    assert!(
        err.to_string().contains("dubbo.registries.zk.address"),
        "{err}"
    );
    assert!(err.to_string().contains("nacos"), "{err}");
    let none = "dubbo:\n  application:\n    name: r\n  registry:\n    address: N/A\n";
    Application::from_config(DubboConfig::from_yaml(none).unwrap()).unwrap();
}

#[tokio::test]
async fn reference_protocol_never_rewrites_the_url_scheme() {
    let provider = Application::builder("tri-provider")
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let port = export_one(&provider, ServiceOptions::new()).await[0].port();
    let consumer = Application::builder("proto").build().unwrap();
    // A conflicting explicit protocol is an error naming the key.
    let err = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Adder")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .protocol("tri"),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("dubbo.references.org.example.Adder.protocol"),
        "{err}"
    );
    // An agreeing one, or an address without a scheme, works.
    for (url, protocol) in [
        (format!("tri://127.0.0.1:{port}"), "triple"),
        (format!("127.0.0.1:{port}"), "tri"),
    ] {
        let reference = consumer
            .default_module()
            .refer(
                ReferenceOptions::new("org.example.Adder")
                    .url(url)
                    .protocol(protocol),
            )
            .await
            .unwrap();
        assert_eq!(reference.invoker().url().protocol(), Some("tri"));
        assert_eq!(
            AdderClient::new(reference.invoker())
                .add(1, 2)
                .await
                .unwrap(),
            3
        );
    }
    consumer.shutdown().await;
    provider.shutdown().await;
}

#[tokio::test]
async fn exported_url_advertises_the_registry_address_and_a_timestamp() {
    let before = now_millis();
    let app = Application::builder("advertiser")
        .protocol("dubbo", 0)
        .env([
            ("DUBBO_IP_TO_BIND", "127.0.0.1"),
            ("DUBBO_DUBBO_IP_TO_REGISTRY", "127.0.0.2"),
            ("DUBBO_PORT_TO_REGISTRY", "30001"),
        ])
        .build()
        .unwrap();
    let url = export_one(&app, ServiceOptions::new()).await.remove(0);
    assert_eq!(url.host(), Some("127.0.0.2"), "{url}");
    assert_eq!(url.port(), 30001);
    assert_eq!(url.parameter("bind.ip"), Some("127.0.0.1"));
    assert_eq!(url.parameter("anyhost"), Some("false"));
    let bound: u16 = url.parameter("bind.port").unwrap().parse().unwrap();
    assert!(bound != 0 && bound != 30001 && bound != 20880);
    let ts: u128 = url.parameter("timestamp").unwrap().parse().unwrap();
    assert!(ts >= before && ts <= now_millis(), "{url}");
    // The service is served where it was bound.
    assert_eq!(
        call(&format!("dubbo://127.0.0.1:{bound}"), None)
            .await
            .unwrap(),
        5
    );
    app.shutdown().await;
}

#[tokio::test]
async fn unset_host_binds_every_interface_and_advertises_a_real_address() {
    let app = Application::builder("anyhost")
        .protocol("dubbo", 0)
        .env(std::iter::empty::<(String, String)>())
        .build()
        .unwrap();
    let url = export_one(&app, ServiceOptions::new()).await.remove(0);
    assert_eq!(url.parameter("anyhost"), Some("true"), "{url}");
    assert_eq!(url.parameter("bind.ip"), Some("0.0.0.0"));
    let host = url.host().unwrap();
    assert!(host != "0.0.0.0" && !host.is_empty(), "{url}");
    assert_eq!(
        call(&format!("dubbo://127.0.0.1:{}", url.port()), None)
            .await
            .unwrap(),
        5
    );
    app.shutdown().await;
}

#[tokio::test]
async fn invalid_deployment_variables_name_the_variable() {
    let app = Application::builder("bad-env")
        .protocol("dubbo", 0)
        .env([("DUBBO_PORT_TO_BIND", "99999")])
        .build()
        .unwrap();
    let err = app
        .default_module()
        .export(AdderServer::new(AdderImpl), ServiceOptions::new())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("DUBBO_PORT_TO_BIND"), "{err}");
    app.shutdown().await;
}
