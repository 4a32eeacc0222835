//! The `tps` and `accesslog` provider filters, configured from YAML and run over real dubbo://
//! and tri:// servers on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;
use dubbo_rs::url::Url;

#[dubbo_rs::service(interface = "org.example.Greeter")]
pub trait Greeter {
    async fn greet(&self, name: String) -> Result<String, RpcError>;
}

struct GreeterImpl;

impl Greeter for GreeterImpl {
    async fn greet(&self, name: String) -> Result<String, RpcError> {
        Ok(format!("Hello {name}"))
    }
}

/// A greeter provider over dubbo:// and tri:// on free ports, configured by `services_yaml`
/// (the lines under `dubbo.services.org.example.Greeter`).
async fn provider(service_yaml: &str) -> (Application, Vec<Url>) {
    let yaml = format!(
        "dubbo:\n  application:\n    name: greeter-provider\n  protocols:\n    dubbo:\n      port: 0\n    tri:\n      port: 0\n  services:\n    org.example.Greeter:\n{service_yaml}"
    );
    let config = DubboConfig::from_yaml(&yaml).unwrap();
    let app = Application::builder("greeter-provider")
        .config(config)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(GreeterServer::new(GreeterImpl), ServiceOptions::new())
        .await
        .unwrap();
    (app, urls)
}

async fn client(consumer: &Application, url: &Url) -> GreeterClient {
    let target = format!(
        "{}://127.0.0.1:{}",
        url.protocol().unwrap_or("dubbo"),
        url.port()
    );
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Greeter")
                .url(target)
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    GreeterClient::new(reference.invoker())
}

fn by_protocol<'a>(urls: &'a [Url], protocol: &str) -> &'a Url {
    urls.iter()
        .find(|u| u.protocol() == Some(protocol))
        .unwrap()
}

#[tokio::test]
async fn tps_limits_calls_per_interval_for_the_whole_service() {
    let (app, urls) =
        provider("      parameters:\n        tps: 2\n        tps.interval: 1000\n").await;
    let dubbo = by_protocol(&urls, "dubbo");
    let tri = by_protocol(&urls, "tri");
    assert_eq!(dubbo.parameter("tps"), Some("2"), "{dubbo}");
    let consumer = Application::builder("greeter-consumer").build().unwrap();
    let over_dubbo = client(&consumer, dubbo).await;
    let over_tri = client(&consumer, tri).await;

    let started = Instant::now();
    assert_eq!(over_dubbo.greet("a".into()).await.unwrap(), "Hello a");
    assert_eq!(over_dubbo.greet("b".into()).await.unwrap(), "Hello b");
    // The window belongs to the service, whatever the protocol: the third call is refused.
    for refused in [
        over_dubbo.greet("c".into()).await,
        over_tri.greet("c".into()).await,
    ] {
        let err = refused.unwrap_err();
        assert_eq!(err.code(), Some(ErrorCode::LimitExceeded), "{err}");
        assert!(
            err.message()
                .contains("Failed to invoke service org.example.Greeter.greet because exceed max service tps."),
            "{err}"
        );
    }
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "too slow to test"
    );

    // After the interval the window refills.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(over_tri.greet("d".into()).await.unwrap(), "Hello d");
    assert_eq!(over_dubbo.greet("e".into()).await.unwrap(), "Hello e");
    assert!(over_dubbo.greet("f".into()).await.is_err());

    consumer.shutdown().await;
    app.shutdown().await;
}

#[tokio::test]
async fn without_tps_nothing_is_limited() {
    let (app, urls) = provider("      timeout: 3000\n").await;
    let consumer = Application::builder("greeter-consumer").build().unwrap();
    let c = client(&consumer, by_protocol(&urls, "dubbo")).await;
    for i in 0..20 {
        assert!(c.greet(i.to_string()).await.is_ok());
    }
    consumer.shutdown().await;
    app.shutdown().await;
}

#[tokio::test]
async fn accesslog_path_appends_java_lines_to_the_file() {
    let dir = std::env::temp_dir().join(format!("dubbo-rs-accesslog-{}", std::process::id()));
    let path = dir.join("logs").join("access.log");
    let _ = std::fs::remove_dir_all(&dir);
    let (app, urls) = provider(&format!(
        "      version: 1.0.0\n      accesslog: {}\n",
        path.display()
    ))
    .await;
    let dubbo = by_protocol(&urls, "dubbo");
    let consumer = Application::builder("greeter-consumer").build().unwrap();
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Greeter")
                .url(format!("dubbo://127.0.0.1:{}", dubbo.port()))
                .version("1.0.0")
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let c = GreeterClient::new(reference.invoker());
    assert_eq!(c.greet("world".into()).await.unwrap(), "Hello world");
    assert_eq!(c.greet("again".into()).await.unwrap(), "Hello again");

    let deadline = Instant::now() + Duration::from_secs(5);
    let text = loop {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.lines().count() >= 2 || Instant::now() > deadline {
            break text;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    let expected_tail = format!(
        " -> 127.0.0.1:{} - org.example.Greeter:1.0.0 greet(java.lang.String) [\"world\"]",
        dubbo.port()
    );
    assert!(lines[0].ends_with(&expected_tail), "{}", lines[0]);
    assert!(lines[0].starts_with('['), "{}", lines[0]);
    // `[yyyy-MM-dd HH:mm:ss] 127.0.0.1:<port>`
    assert_eq!(&lines[0][20..32], "] 127.0.0.1:", "{}", lines[0]);
    assert!(lines[1].ends_with("[\"again\"]"), "{}", lines[1]);

    consumer.shutdown().await;
    app.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `tracing` subscriber that keeps the messages of events with target `dubbo.accesslog`.
#[derive(Default, Clone)]
struct Captured(Arc<Mutex<Vec<String>>>);

struct Message<'a>(&'a mut String);

impl tracing::field::Visit for Message<'_> {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            *self.0 = format!("{value:?}");
        }
    }
}

impl tracing::Subscriber for Captured {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if event.metadata().target() == "dubbo.accesslog" {
            assert_eq!(*event.metadata().level(), tracing::Level::INFO);
            let mut message = String::new();
            event.record(&mut Message(&mut message));
            self.0.lock().unwrap().push(message);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

// One thread: the provider's tasks run where the subscriber is set.
#[tokio::test(flavor = "current_thread")]
async fn accesslog_true_logs_through_tracing() {
    let captured = Captured::default();
    let _guard = tracing::subscriber::set_default(captured.clone());
    let (app, urls) = provider("      group: g1\n      accesslog: true\n").await;
    let consumer = Application::builder("greeter-consumer").build().unwrap();
    for url in [by_protocol(&urls, "dubbo"), by_protocol(&urls, "tri")] {
        let reference = consumer
            .default_module()
            .refer(
                ReferenceOptions::new("org.example.Greeter")
                    .url(format!(
                        "{}://127.0.0.1:{}",
                        url.protocol().unwrap(),
                        url.port()
                    ))
                    .group("g1")
                    .timeout(Duration::from_secs(5)),
            )
            .await
            .unwrap();
        let c = GreeterClient::new(reference.invoker());
        assert_eq!(c.greet("log me".into()).await.unwrap(), "Hello log me");
    }
    let lines = captured.0.lock().unwrap().clone();
    assert_eq!(lines.len(), 2, "{lines:?}");
    for (line, url) in lines
        .iter()
        .zip([by_protocol(&urls, "dubbo"), by_protocol(&urls, "tri")])
    {
        assert!(
            line.ends_with(&format!(
                " -> 127.0.0.1:{} - g1/org.example.Greeter greet(java.lang.String) [\"log me\"]",
                url.port()
            )),
            "{line}"
        );
    }
    consumer.shutdown().await;
    app.shutdown().await;
}
