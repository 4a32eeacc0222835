//! The QoS port: probes, `ls` and `/metrics` with Java Dubbo 3.3's names, on 127.0.0.1; and the
//! Pushgateway push of the same text, against a stuck gateway.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::{ConfigError, DubboConfig};
use dubbo_rs::prelude::*;

mod support;
use support::qos_get as get;

#[dubbo_rs::service(interface = "org.example.Echo")]
pub trait Echo {
    async fn echo(&self, text: String) -> Result<String, RpcError>;
}

struct EchoImpl;

impl Echo for EchoImpl {
    async fn echo(&self, text: String) -> Result<String, RpcError> {
        if text == "fail" {
            return Err(RpcError::business("java.lang.IllegalStateException", "no"));
        }
        Ok(text)
    }
}

fn build(yaml: &str) -> Result<Application, DubboError> {
    let text = format!("dubbo:\n  application:\n    name: qos-app\n{yaml}");
    Application::builder("qos-app")
        .config(DubboConfig::from_yaml(&text).unwrap())
        .build()
}

#[tokio::test]
async fn probes_ls_and_metrics() {
    let app =
        build("    qos-port: 0\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n")
            .unwrap();
    assert!(app.qos_address().unwrap().ip().is_loopback());
    assert_eq!(get(&app, "/live").await, (200, "true".into()));
    assert_eq!(get(&app, "/ready").await, (503, "false".into()));
    assert_eq!(get(&app, "/startup").await, (503, "false".into()));
    let urls = app
        .default_module()
        .export(
            EchoServer::new(EchoImpl),
            ServiceOptions::new().version("1.0.0"),
        )
        .await
        .unwrap();
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Echo")
                .version("1.0.0")
                .url(format!("dubbo://127.0.0.1:{}", urls[0].port()))
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    app.ready().await;
    assert_eq!(get(&app, "/ready").await, (200, "true".into()));
    assert_eq!(get(&app, "/startup").await, (200, "true".into()));
    let client = EchoClient::new(reference.invoker());
    for _ in 0..3 {
        client.echo("hi".into()).await.unwrap();
    }
    client.echo("fail".into()).await.unwrap_err();
    let (status, ls) = get(&app, "/ls").await;
    assert_eq!(status, 200);
    assert!(
        ls.contains("As Provider side:") && ls.contains("org.example.Echo"),
        "{ls}"
    );
    let (status, text) = get(&app, "/metrics").await;
    assert_eq!(status, 200);
    let find = |name: &str, side: &str| -> Option<f64> {
        text.lines()
            .filter(|l| l.starts_with(&format!("dubbo_{side}_{name}{{")))
            .find(|l| l.contains("method=\"echo\"") && l.contains("application_name=\"qos-app\""))
            .and_then(|l| l.rsplit(' ').next())
            .and_then(|v| v.parse().ok())
    };
    for side in ["provider", "consumer"] {
        assert_eq!(find("requests_total", side), Some(4.0), "{side}\n{text}");
        assert_eq!(find("requests_succeed_total", side), Some(3.0), "{side}");
        assert_eq!(
            find("requests_business_failed_total", side),
            Some(1.0),
            "{side}"
        );
        assert_eq!(find("requests_failed_total", side), Some(1.0), "{side}");
        assert_eq!(find("requests_processing", side), Some(0.0), "{side}");
        assert!(find("rt_milliseconds_p99", side).is_some(), "{side}");
        assert!(find("qps_total", side).unwrap() > 0.0, "{side}");
    }
    assert!(text.contains("version=\"1.0.0\""), "{text}");
    assert_eq!(get(&app, "/nope").await.0, 404);
    let addr = app.qos_address().unwrap();
    app.shutdown().await;
    // Stopped with the application.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn a_qos_port_in_use_is_refused_naming_the_key() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    match build(&format!("    qos-enable: true\n    qos-port: {port}\n")) {
        Err(DubboError::Config(ConfigError::Invalid { key, .. })) => {
            assert_eq!(key, "dubbo.application.qos-port")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    // Off when asked to be, whatever the port says.
    let app = build(&format!("    qos-enable: false\n    qos-port: {port}\n")).unwrap();
    assert!(app.qos_address().is_none());
}

/// A Pushgateway that accepts connections and never answers costs one counted failure per
/// push, never more than one push at a time, and the push task stops with the application.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_pushgateway_is_counted_and_stops_with_the_application() {
    let stuck = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = stuck.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut connections = Vec::new();
        while let Ok((s, _)) = stuck.accept().await {
            connections.push(s);
        }
    });
    let app = Application::builder("push-app")
        .pushgateway(&addr.to_string(), "push-app", 1)
        .build()
        .unwrap();
    let events = app.framework().event_metrics().clone();
    tokio::time::sleep(Duration::from_millis(3600)).await;
    // The first push at 1 s times out at 2 s; the next starts an interval later.
    let failures = events.push_failures();
    assert!((1..=2).contains(&failures), "{failures} failures");
    assert!(app.tasks().running().iter().any(|t| t == "pushgateway"));
    let started = std::time::Instant::now();
    app.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(!app.tasks().running().iter().any(|t| t == "pushgateway"));
    held.abort();
}
