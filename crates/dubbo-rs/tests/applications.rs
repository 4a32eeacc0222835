//! Applications, modules and references end to end over dubbo:// on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;

#[dubbo_rs::service(interface = "org.example.Counter")]
pub trait Counter {
    async fn add(&self, a: i32, b: i32) -> Result<i32, RpcError>;
    async fn who(&self, ctx: &mut RequestContext) -> Result<String, RpcError>;
}

struct CounterImpl(&'static str);

impl Counter for CounterImpl {
    async fn add(&self, a: i32, b: i32) -> Result<i32, RpcError> {
        Ok(a + b)
    }

    async fn who(&self, ctx: &mut RequestContext) -> Result<String, RpcError> {
        ctx.set_response_attachment("served-by", self.0);
        Ok(self.0.to_owned())
    }
}

/// A provider of Counter 1.0.0 on a free port (`port: 0`); returns the application and the
/// port it was given.
async fn provider(name: &str, who: &'static str) -> (Application, u16) {
    let app = Application::builder(name)
        .protocol("dubbo", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(
            CounterServer::new(CounterImpl(who)),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    assert_eq!(urls.len(), 1, "{urls:?}");
    let port = urls[0].port();
    assert_ne!(port, 0, "{}", urls[0]);
    assert_ne!(
        port, 20880,
        "port 0 binds a free port, not the default: {}",
        urls[0]
    );
    (app, port)
}

async fn client(consumer: &Application, port: u16) -> CounterClient {
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Counter")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .version("1.0.0")
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    CounterClient::new(reference.invoker())
}

#[tokio::test]
async fn two_applications_shut_down_independently() {
    let (a, port_a) = provider("provider-a", "a").await;
    let (b, port_b) = provider("provider-b", "b").await;
    let consumer = Application::builder("consumer").build().unwrap();
    let ca = client(&consumer, port_a).await;
    let cb = client(&consumer, port_b).await;
    assert_eq!(ca.add(2, 3).await.unwrap(), 5);
    assert_eq!(cb.who().await.unwrap(), "b");
    let (who, attachments) = ca.who_full().await.unwrap();
    assert_eq!(who, "a");
    assert_eq!(attachments.get_str("served-by"), Some("a"));

    a.shutdown().await;
    assert!(a.is_shut_down());
    let err = ca.add(1, 1).await.unwrap_err();
    // The server closed the connection; a client that saw the shutdown notice first may
    // report that instead.
    assert!(
        matches!(
            err.code(),
            Some(ErrorCode::Network | ErrorCode::ShuttingDown)
        ),
        "{err:?}"
    );
    // The other application keeps serving.
    assert_eq!(cb.add(20, 22).await.unwrap(), 42);
    // A shut-down application refuses new work with a clear error.
    let again = a
        .default_module()
        .export(CounterServer::new(CounterImpl("x")), ServiceOptions::new())
        .await
        .unwrap_err();
    assert_eq!(again.code(), "shut_down");
    b.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn wrong_version_is_not_served() {
    let (p, port) = provider("provider-v", "v").await;
    let consumer = Application::builder("consumer-v").build().unwrap();
    // The provider is up and serves 1.0.0, so what follows is a refusal, not a dead server.
    let right = client(&consumer, port).await;
    assert_eq!(right.add(1, 2).await.unwrap(), 3);
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Counter")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .version("2.0.0")
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let err = CounterClient::new(reference.invoker())
        .add(1, 2)
        .await
        .unwrap_err();
    assert!(!err.is_business(), "{err:?}");
    assert_eq!(err.code(), Some(ErrorCode::ServiceNotFound), "{err:?}");
    // The refusal concerns only the unknown version: the same connection keeps serving 1.0.0.
    assert_eq!(right.add(2, 2).await.unwrap(), 4);
    p.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn generic_client_and_echo() {
    let (p, port) = provider("provider-g", "g").await;
    let consumer = Application::builder("consumer-g").build().unwrap();
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Counter")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .version("1.0.0"),
        )
        .await
        .unwrap();
    let generic = GenericClient::new(reference.invoker(), reference.service_key().clone());
    let sum = generic
        .invoke("add", &["int", "int"], vec![Value::Int(40), Value::Int(2)])
        .await
        .unwrap();
    assert_eq!(sum, Value::Int(42));
    assert_eq!(
        generic.echo(Value::from("ping")).await.unwrap(),
        Value::from("ping")
    );
    let err = generic.invoke("nope", &[], vec![]).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::MethodNotFound), "{err:?}");
    p.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn yaml_configured_application() {
    let port = 0;
    let yaml = format!(
        "
dubbo:
  application:
    name: yaml-provider
    shutdown-wait: 1000
  protocols:
    dubbo:
      port: {port}
      host: 127.0.0.1
      threads: 8
  services:
    org.example.Counter:
      version: 3.0.0
"
    );
    let config = DubboConfig::from_yaml(&yaml).unwrap();
    let app = Application::from_config(config).unwrap();
    let urls = app
        .default_module()
        .export(CounterServer::new(CounterImpl("y")), ServiceOptions::new())
        .await
        .unwrap();
    assert_eq!(urls.len(), 1);
    let port = urls[0].port();
    assert_ne!(port, 0, "{}", urls[0]);
    assert_eq!(urls[0].parameter("version"), Some("3.0.0"));
    assert_eq!(urls[0].parameter("threads"), Some("8"));
    assert_eq!(urls[0].parameter("methods"), Some("add,who"));
    let consumer = Application::builder("yaml-consumer").build().unwrap();
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Counter")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .version("3.0.0"),
        )
        .await
        .unwrap();
    assert_eq!(
        CounterClient::new(reference.invoker())
            .add(1, 2)
            .await
            .unwrap(),
        3
    );
    app.shutdown().await;
    consumer.shutdown().await;
}

#[test]
fn missing_application_name_fails_fast() {
    let err = Application::from_config(DubboConfig::default()).unwrap_err();
    assert!(err.to_string().contains("dubbo.application.name"), "{err}");
}

#[tokio::test]
async fn unknown_protocol_id_names_the_key() {
    let app = Application::builder("bad").build().unwrap();
    let err = app
        .default_module()
        .export(
            CounterServer::new(CounterImpl("z")),
            ServiceOptions::new().protocol("grpc"),
        )
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("dubbo.services.org.example.Counter.protocols"),
        "{err}"
    );
}

/// Seed 001's third level: a module's own defaults (`dubbo.modules.<name>`) apply to its
/// services and references only, over the application's `dubbo.provider` / `dubbo.consumer`,
/// and under a service's own keys.
#[tokio::test]
async fn a_module_has_its_own_defaults() {
    let yaml = "dubbo:\n  application:\n    name: modules-app\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n  provider:\n    weight: 50\n    timeout: 300\n  consumer:\n    timeout: 400\n    retries: 1\n  modules:\n    billing:\n      provider:\n        weight: 7\n      consumer:\n        timeout: 900\n";
    let app = Application::builder("modules-app")
        .config(DubboConfig::from_yaml(yaml).unwrap())
        .build()
        .unwrap();
    let billing = app.module("billing");
    let plain = app
        .default_module()
        .export(
            CounterServer::new(CounterImpl("plain")),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    let own = billing
        .export(
            CounterServer::new(CounterImpl("billing")),
            ServiceOptions::new().version("2.0.0"),
        )
        .await
        .unwrap();
    assert_eq!(plain[0].parameter("weight"), Some("50"), "{}", plain[0]);
    assert_eq!(own[0].parameter("weight"), Some("7"), "{}", own[0]);
    assert_eq!(
        own[0].parameter("timeout"),
        Some("300"),
        "inherited: {}",
        own[0]
    );

    let options = |version: &str, port: u16| {
        ReferenceOptions::new("org.example.Counter")
            .version(version)
            .url(format!("dubbo://127.0.0.1:{port}"))
    };
    app.default_module()
        .refer(options("1.0.0", plain[0].port()))
        .await
        .unwrap();
    let reference = billing
        .refer(options("2.0.0", own[0].port()))
        .await
        .unwrap();
    let referred = app.referred();
    let url_of = |version: &str| {
        referred
            .iter()
            .find(|r| r.key.version() == Some(version))
            .map(|r| r.url.clone())
            .unwrap()
    };
    assert_eq!(url_of("1.0.0").parameter("timeout"), Some("400"));
    assert_eq!(url_of("2.0.0").parameter("timeout"), Some("900"));
    assert_eq!(url_of("2.0.0").parameter("retries"), Some("1"), "inherited");
    assert_eq!(
        CounterClient::new(reference.invoker())
            .add(2, 3)
            .await
            .unwrap(),
        5
    );
    app.shutdown().await;
}

#[test]
fn a_module_filter_must_exist() {
    let yaml = "dubbo:\n  application:\n    name: modules-bad\n  modules:\n    billing:\n      consumer:\n        filter: nosuchfilter\n";
    let err = Application::builder("modules-bad")
        .config(DubboConfig::from_yaml(yaml).unwrap())
        .build()
        .expect_err("an unknown filter was accepted")
        .to_string();
    assert!(
        err.contains("dubbo.modules.billing.consumer.filter"),
        "{err}"
    );
}
