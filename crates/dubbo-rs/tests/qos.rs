//! The QoS port: probes, `ls` and `/metrics` with Java Dubbo 3.3's names, telnet on the same
//! port, `invoke`, `gracefulShutdown`, and the permission levels of callers; and the
//! Pushgateway push of the same text, against a stuck gateway.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::{ConfigError, DubboConfig};
use dubbo_rs::prelude::*;

mod support;
use support::{qos_get as get, qos_request_at, QosTelnet};

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

/// Overloads of one Java method name and arity, which `invoke` tells apart by the JSON
/// arguments when it can and otherwise lists for `select`.
#[dubbo_rs::service(interface = "org.example.Calc")]
pub trait Calc {
    #[dubbo(name = "twice")]
    async fn twice_int(&self, v: i32) -> Result<i32, RpcError>;
    #[dubbo(name = "twice")]
    async fn twice_text(&self, v: String) -> Result<String, RpcError>;
    #[dubbo(name = "twice")]
    async fn twice_long(&self, v: i64) -> Result<i64, RpcError>;
}

struct CalcImpl;

impl Calc for CalcImpl {
    async fn twice_int(&self, v: i32) -> Result<i32, RpcError> {
        Ok(v * 2)
    }
    async fn twice_text(&self, v: String) -> Result<String, RpcError> {
        Ok(v.repeat(2))
    }
    async fn twice_long(&self, v: i64) -> Result<i64, RpcError> {
        Ok(v * 20)
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
    assert_eq!(
        get(&app, "/nope").await,
        (404, "nope :no such command".into())
    );
    let (status, config) = get(&app, "/getConfig/ProtocolConfig").await;
    assert_eq!(status, 200);
    assert!(
        config.starts_with("ApplicationModel: qos-app\nProtocolConfig dubbo:\n")
            && config.contains("host: 127.0.0.1"),
        "{config}"
    );
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

/// An application serving Echo over dubbo:// on 127.0.0.1, with QoS on port 0 and `extra`
/// application keys.
async fn echo_app(extra: &str) -> (Application, Vec<dubbo_rs::url::Url>) {
    let app = build(&format!(
        "    qos-port: 0\n{extra}  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n"
    ))
    .unwrap();
    let urls = support::export(&app, EchoServer::new(EchoImpl)).await;
    (app, urls)
}

#[tokio::test]
async fn telnet_on_the_same_port() {
    let (app, urls) = echo_app("").await;
    let (mut t, banner) = QosTelnet::connect(app.qos_address().unwrap()).await;
    assert!(
        banner.contains("QoS") && banner.ends_with("\r\n"),
        "{banner:?}"
    );
    // After the banner, a first command starting with P is telnet, not HTTP.
    assert_eq!(
        t.run("ps").await,
        format!("{}\r\n", urls[0].port()),
        "one dubbo:// server"
    );
    // A blank line is answered with a prompt alone.
    assert_eq!(t.run("").await, "");
    let ls = t.run("ls").await;
    assert!(
        ls.contains("As Provider side:") && ls.contains("org.example.Echo"),
        "{ls}"
    );
    let help = t.run("help").await;
    for command in ["invoke", "ps", "gracefulShutdown", "quit"] {
        assert!(help.contains(command), "{help}");
    }
    assert!(t
        .run("help invoke")
        .await
        .contains("invoke org.example.Greeter.sayHello"));
    assert!(t.run("version").await.starts_with("dubbo version \""));
    let answer = t
        .run("invoke org.example.Echo.echo(\"hello, telnet world\")")
        .await;
    assert!(
        answer.starts_with(
            "Use default service org.example.Echo.\r\nresult: \"hello, telnet world\"\r\nelapsed: "
        ),
        "{answer:?}"
    );
    assert!(answer.ends_with(" ms.\r\n"), "{answer:?}");
    // The simple name, any case.
    assert!(t
        .run("invoke echo.echo(\"x\")")
        .await
        .contains("result: \"x\""));
    let bad = t.run("invoke Echo.echo({\"a\": })").await;
    assert!(bad.starts_with("Invalid json argument 1:"), "{bad}");
    let wrong_type = t.run("invoke Echo.echo(12)").await;
    assert!(
        wrong_type.contains("Failed to invoke method echo") && wrong_type.contains("argument 1"),
        "{wrong_type}"
    );
    let failed = t.run("invoke Echo.echo(\"fail\")").await;
    assert!(
        failed.contains("java.lang.IllegalStateException: no"),
        "{failed}"
    );
    assert!(t
        .run("invoke Nope.echo(1)")
        .await
        .contains("No such service Nope"));
    assert!(t
        .run("invoke Echo.nope(1)")
        .await
        .contains("No such method nope"));
    // cd / pwd: a default service for invoke, per telnet session.
    assert_eq!(t.run("pwd").await, "/\r\n");
    assert_eq!(t.run("cd Nope").await, "No such service Nope\r\n");
    assert!(t
        .run("cd Echo")
        .await
        .starts_with("Used the Echo as default."));
    assert_eq!(t.run("pwd").await, "Echo\r\n");
    assert!(t
        .run("invoke echo(\"by default\")")
        .await
        .contains("result: \"by default\""));
    assert_eq!(t.run("cd /").await, "Cancelled default service Echo.\r\n");
    assert!(t
        .run("invoke echo(\"x\")")
        .await
        .contains("Name the service"));
    assert_eq!(t.run("nope 1").await, "nope 1 :no such command\r\n");
    assert_eq!(t.run("live").await, "true\r\n");
    // Overloads: a string argument picks twice(String); a number fits twice(int) and
    // twice(long), which `select` chooses between.
    support::export(&app, CalcServer::new(CalcImpl)).await;
    assert!(t
        .run("invoke Calc.twice(\"ab\")")
        .await
        .contains("result: \"abab\""));
    assert_eq!(
        t.run("select 1").await,
        "Nothing to select: run an invoke whose method has several overloads first.\r\n"
    );
    let listed = t.run("invoke Calc.twice(3)").await;
    assert!(
        listed.starts_with("Methods:\r\n1. twice(int)\r\n2. twice(long)\r\n"),
        "{listed:?}"
    );
    assert!(t.run("select 3").await.starts_with("Illegal index 3"));
    assert!(t.run("select 2").await.contains("result: 60\r\n"));
    t.send("quit").await;
    assert_eq!(t.rest().await, "BYE!\n");
    app.shutdown().await;
}

#[tokio::test]
async fn invoke_over_http() {
    let (app, _) = echo_app("").await;
    let (status, body) = get(&app, "/invoke?call=org.example.Echo.echo(%22hi%20there%22)").await;
    assert_eq!(status, 200);
    assert!(
        body.contains("result: \"hi there\"") && body.contains("elapsed: "),
        "{body}"
    );
    let (status, body) =
        support::qos_request(&app, "POST", "/invoke", "call=Echo.echo%28%22posted%22%29").await;
    assert_eq!(status, 200);
    assert!(body.contains("result: \"posted\""), "{body}");
    // The call went through the provider filters: the metrics filter counted it.
    let (_, metrics) = get(&app, "/metrics").await;
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("dubbo_provider_requests_total{")
                && l.contains("method=\"echo\"")
                && l.ends_with(" 2")),
        "{metrics}"
    );
    assert_eq!(get(&app, "/help").await.0, 200);
    app.shutdown().await;
}

#[tokio::test]
async fn invoke_is_trusted_by_the_services_own_authentication() {
    let (app, urls) = echo_app(
        "  provider:\n    parameters: { auth: 'true', authenticator: accesskey, .accessKeyId: a, .secretAccessKey: s }\n",
    )
    .await;
    assert_eq!(urls[0].parameter("auth"), Some("true"));
    let (status, body) = get(&app, "/invoke?call=org.example.Echo.echo(%22trusted%22)").await;
    assert_eq!(status, 200);
    assert!(body.contains("result: \"trusted\""), "{body}");
    app.shutdown().await;
}

#[tokio::test]
async fn graceful_shutdown_sends_readonly_and_takes_services_offline() {
    let (app, urls) = echo_app("").await;
    let consumer = build("").unwrap();
    let reference = support::refer_echo(&consumer, &urls[0]).await;
    let client = EchoClient::new(reference.invoker());
    assert_eq!(client.echo("before".into()).await.unwrap(), "before");
    assert!(reference.invoker().is_available());
    // `ps -l PORT`: the consumer's connection, as Java lists it.
    let port = urls[0].port();
    let (status, conns) = get(&app, &format!("/ps?o=-l&p={port}")).await;
    assert_eq!(status, 200);
    assert!(
        conns.starts_with("127.0.0.1:") && conns.ends_with(&format!(" -> 127.0.0.1:{port}")),
        "{conns}"
    );
    assert_eq!(get(&app, "/gracefulShutdown").await, (200, "OK".into()));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while reference.invoker().is_available() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "readonly event never arrived"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Still serving: only the consumers' choice and the registries changed.
    assert!(!app.is_shut_down());
    assert_eq!(get(&app, "/live").await, (200, "true".into()));
    consumer.shutdown().await;
    app.shutdown().await;
}

/// This machine's first non-loopback IPv4 address: connecting from it makes a foreign caller
/// without leaving the machine (Java's check is the same `isLoopbackAddress`).
fn foreign_address() -> Option<std::net::IpAddr> {
    if_addrs::get_if_addrs()
        .ok()?
        .into_iter()
        .map(|i| i.ip())
        .find(|ip| ip.is_ipv4() && !ip.is_loopback())
}

#[tokio::test]
async fn foreign_callers_run_what_their_level_allows() {
    let Some(ip) = foreign_address() else {
        eprintln!("no non-loopback IPv4 address on this machine: skipped");
        return;
    };
    // Anonymous foreign callers: PUBLIC commands only (Java's default level, set explicitly so
    // the port listens on every interface).
    let (app, _) = echo_app(
        "    qos-anonymous-access-permission-level: PUBLIC\n    qos-anonymous-allow-commands: metrics\n",
    )
    .await;
    let addr = std::net::SocketAddr::new(ip, app.qos_address().unwrap().port());
    assert_eq!(
        qos_request_at(addr, "GET", "/live", "").await,
        (200, "true".into())
    );
    assert_eq!(
        qos_request_at(addr, "GET", "/ls", "").await,
        (403, "ls :permission deny".into())
    );
    assert_eq!(qos_request_at(addr, "GET", "/offline", "").await.0, 403);
    // An allowed command is open to anyone.
    assert_eq!(qos_request_at(addr, "GET", "/metrics", "").await.0, 200);
    // Unknown commands are unknown before they are refused.
    assert_eq!(qos_request_at(addr, "GET", "/nope", "").await.0, 404);
    let (mut t, _) = QosTelnet::connect(addr).await;
    assert_eq!(t.run("ls").await, "ls :permission deny\r\n");
    assert_eq!(t.run("ready").await, "false\r\n");
    // The same caller from loopback runs everything.
    assert_eq!(get(&app, "/ls").await.0, 200);
    app.shutdown().await;

    // Whitelisted: PROTECTED commands, not PRIVATE ones.
    let (app, _) = echo_app(&format!("    qos-accept-foreign-ip-whitelist: {ip}\n")).await;
    let addr = std::net::SocketAddr::new(ip, app.qos_address().unwrap().port());
    assert_eq!(qos_request_at(addr, "GET", "/ls", "").await.0, 200);
    assert_eq!(
        qos_request_at(addr, "GET", "/gracefulShutdown", "").await,
        (403, "gracefulShutdown :permission deny".into())
    );
    app.shutdown().await;

    // Level NONE: no command check, and foreign callers outside the whitelist are refused at
    // the connection with Java's message.
    let (app, _) = echo_app("    qos-anonymous-access-permission-level: NONE\n").await;
    let addr = std::net::SocketAddr::new(ip, app.qos_address().unwrap().port());
    let (status, body) = qos_request_at(addr, "GET", "/live", "").await;
    assert_eq!(status, 403);
    assert!(body.contains("Foreign Ip Not Permitted"), "{body}");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut s, b"ls\r\n")
        .await
        .unwrap();
    let mut refusal = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut s, &mut refusal)
        .await
        .unwrap();
    assert!(refusal.contains("Foreign Ip Not Permitted"), "{refusal}");
    assert_eq!(get(&app, "/ls").await.0, 200);
    app.shutdown().await;
}

#[dubbo_rs::service(interface = "org.example.Slow")]
pub trait Slow {
    async fn pause(&self, ms: i32) -> Result<i32, RpcError>;
}

struct SlowImpl;

impl Slow for SlowImpl {
    async fn pause(&self, ms: i32) -> Result<i32, RpcError> {
        tokio::time::sleep(Duration::from_millis(ms.max(0) as u64)).await;
        Ok(ms)
    }
}

/// The dubbo:// server's request pool under Java's thread-pool metric names: with one worker
/// and no queue, two of three calls at once are refused and counted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thread_pool_metrics_count_what_the_pool_refuses() {
    let app = build(
        "    qos-port: 0\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n      threads: 1\n",
    )
    .unwrap();
    let urls = support::export(&app, SlowServer::new(SlowImpl)).await;
    let port = urls[0].port();
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Slow")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .parameter("cluster", "failfast")
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let client = SlowClient::new(reference.invoker());
    let first = {
        let client = client.clone();
        tokio::spawn(async move { client.pause(400).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, during) = get(&app, "/metrics").await;
    let refused = [client.pause(1).await, client.pause(1).await];
    assert!(first.await.unwrap().is_ok());
    for r in &refused {
        assert_eq!(
            r.as_ref().err().and_then(|e| e.code()),
            Some(ErrorCode::ThreadPoolExhausted),
            "{r:?}"
        );
    }
    let (_, after) = get(&app, "/metrics").await;
    let pool = format!("thread_pool_name=\"DubboServerHandler-127.0.0.1:{port}\"");
    let value = |text: &str, name: &str| -> Option<String> {
        text.lines()
            .find(|l| l.starts_with(&format!("dubbo_thread_pool_{name}{{")) && l.contains(&pool))
            .and_then(|l| l.rsplit(' ').next())
            .map(str::to_owned)
    };
    assert_eq!(
        value(&during, "active_size").as_deref(),
        Some("1"),
        "{during}"
    );
    assert_eq!(
        value(&after, "active_size").as_deref(),
        Some("0"),
        "{after}"
    );
    assert_eq!(value(&after, "core_size").as_deref(), Some("1"));
    assert_eq!(value(&after, "max_size").as_deref(), Some("1"));
    assert_eq!(value(&after, "largest_size").as_deref(), Some("1"));
    assert_eq!(
        value(&after, "reject_thread_count").as_deref(),
        Some("2"),
        "{after}"
    );
    assert!(after.contains("application_name=\"qos-app\""));
    let connections = after.lines().find(|l| {
        l.starts_with("dubbo_rs_server_connections{") && l.contains(&format!("port=\"{port}\""))
    });
    assert_eq!(
        connections.and_then(|l| l.rsplit(' ').next()),
        Some("1"),
        "{after}"
    );
    app.shutdown().await;
}

/// Java's `publishMetadata` (with the embedded file registry) and `shutdown`, over HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_metadata_and_shutdown() {
    let dir = support::TempDir::new("qos-publish");
    let app = build(&format!(
        "    qos-port: 0\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n  registry:\n    address: {}\n",
        dir.url()
    ))
    .unwrap();
    support::export(&app, EchoServer::new(EchoImpl)).await;
    let (_, early) = get(&app, "/publishMetadata").await;
    assert!(early.starts_with("the application is not ready"), "{early}");
    app.ready().await;
    assert_eq!(
        get(&app, "/publishMetadata").await,
        (200, "publish metadata succeeded. App:qos-app".into())
    );
    let (_, later) = get(&app, "/publishMetadata/1").await;
    assert!(
        later.starts_with("publish task submitted, will publish in 1 seconds"),
        "{later}"
    );
    let (_, bad) = get(&app, "/shutdown/soon").await;
    assert!(bad.contains("not a number"), "{bad}");
    assert!(!app.is_shut_down());
    let (status, answer) = get(&app, "/shutdown").await;
    assert_eq!(status, 200);
    assert!(
        answer.starts_with("Application is shutting down"),
        "{answer}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !app.is_shut_down() {
        assert!(std::time::Instant::now() < deadline, "not shut down");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
