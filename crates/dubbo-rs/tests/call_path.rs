//! The common call path, end to end over real servers on 127.0.0.1: filters chosen by
//! configuration on both sides for interface and IDL services, call reports and per-provider
//! statistics, re-sent invocations, withdrawing exports, shutdown phases, and references that
//! follow new settings without a new connection.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::core::{
    BoxFuture, CallReport, Filter, FilterSpec, Invocation, Next, Outcome, RpcResult, Side, Stage,
};
use dubbo_rs::prelude::*;
use dubbo_rs::{Framework, ShutdownPhase};
use dubbo_triple_greeter::{ContractGreeter, GreeterClient, GreeterRequest, GreeterServer};

#[dubbo_rs::service(interface = "org.example.Clock")]
pub trait Clock {
    async fn echo(&self, text: String) -> Result<String, RpcError>;
    async fn sleep(&self, millis: i64) -> Result<i64, RpcError>;
    async fn fail(&self) -> Result<String, RpcError>;
}

struct ClockImpl;

impl Clock for ClockImpl {
    async fn echo(&self, text: String) -> Result<String, RpcError> {
        Ok(text)
    }

    async fn sleep(&self, millis: i64) -> Result<i64, RpcError> {
        tokio::time::sleep(Duration::from_millis(millis as u64)).await;
        Ok(millis)
    }

    async fn fail(&self) -> Result<String, RpcError> {
        Err(RpcError::business("java.lang.IllegalStateException", "no"))
    }
}

const GREETER: &str = "org.apache.dubbo.interop.tri.Greeter";

/// Counts the calls it sees, by side and by service.
#[derive(Default)]
struct Counter {
    seen: Mutex<Vec<(Side, String, String)>>,
}

impl Counter {
    fn count(&self, side: Side, service: &str) -> usize {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|(s, svc, _)| *s == side && svc == service)
            .count()
    }
}

struct CountingFilter {
    side: Side,
    counter: Arc<Counter>,
}

impl Filter for CountingFilter {
    fn invoke<'a>(&'a self, call: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        self.counter.seen.lock().unwrap().push((
            self.side,
            call.service().interface().to_owned(),
            call.method_name().to_owned(),
        ));
        next.run(call)
    }
}

/// A framework with a `counter` filter that runs only where configuration names it.
fn framework_with_counter(stage: Stage, side: Side) -> (Arc<Framework>, Arc<Counter>) {
    let framework = Framework::new();
    let counter = Arc::new(Counter::default());
    let stages: &'static [Stage] = match stage {
        Stage::Provider => &[Stage::Provider],
        Stage::Cluster => &[Stage::Cluster],
        Stage::Consumer => &[Stage::Consumer],
    };
    let filter = CountingFilter {
        side,
        counter: counter.clone(),
    };
    framework.register_filter(FilterSpec::new("counter", 0, stages, Arc::new(filter)).on_request());
    (framework, counter)
}

async fn provider(framework: Arc<Framework>, yaml: &str) -> (Application, u16, u16) {
    let config = DubboConfig::from_yaml(yaml).unwrap();
    let app = Application::builder("clock-provider")
        .framework(framework)
        .config(config)
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(ClockServer::new(ClockImpl), ServiceOptions::new())
        .await
        .unwrap();
    let port_of = |scheme: &str| {
        urls.iter()
            .find(|u| u.protocol() == Some(scheme))
            .map(|u| u.port())
            .unwrap()
    };
    let (dubbo, tri) = (port_of("dubbo"), port_of("tri"));
    let idl = app
        .default_module()
        .export_idl(GreeterServer::new(ContractGreeter), ServiceOptions::new())
        .await
        .unwrap();
    assert_eq!(idl.port(), tri, "{idl}");
    (app, dubbo, tri)
}

const PROVIDER_YAML: &str = "
dubbo:
  application:
    name: clock-provider
    shutdown-wait: 2000
  protocols:
    dubbo:
      port: 0
      host: 127.0.0.1
    tri:
      port: 0
      host: 127.0.0.1
  provider:
    filter: counter
";

async fn clock(consumer: &Application, url: String) -> ClockClient {
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Clock")
                .url(url)
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    ClockClient::new(reference.invoker())
}

async fn greeter(consumer: &Application, tri: u16) -> GreeterClient {
    let reference = consumer
        .default_module()
        .refer(ReferenceOptions::new(GREETER).url(format!("tri://127.0.0.1:{tri}")))
        .await
        .unwrap();
    GreeterClient::from_invoker(reference.invoker())
}

fn hello(name: &str) -> GreeterRequest {
    GreeterRequest { name: name.into() }
}

#[tokio::test]
async fn a_configured_user_filter_sees_interface_and_idl_calls_on_both_sides() {
    let (pf, provider_counts) = framework_with_counter(Stage::Provider, Side::Provider);
    let (app, dubbo, tri) = provider(pf, PROVIDER_YAML).await;

    let (cf, consumer_counts) = framework_with_counter(Stage::Consumer, Side::Consumer);
    let consumer_yaml = "
dubbo:
  application:
    name: clock-consumer
  consumer:
    filter: counter
";
    let consumer = Application::builder("clock-consumer")
        .framework(cf)
        .config(DubboConfig::from_yaml(consumer_yaml).unwrap())
        .build()
        .unwrap();
    let over_dubbo = clock(&consumer, format!("dubbo://127.0.0.1:{dubbo}")).await;
    let over_tri = clock(&consumer, format!("tri://127.0.0.1:{tri}")).await;
    let greeter = greeter(&consumer, tri).await;

    assert_eq!(over_dubbo.echo("a".into()).await.unwrap(), "a");
    assert_eq!(over_tri.echo("b".into()).await.unwrap(), "b");
    assert_eq!(over_tri.echo("c".into()).await.unwrap(), "c");
    let reply = greeter.greet(hello("idl")).await.unwrap();
    assert_eq!(reply.message, "Hello idl");
    let mut stream = greeter.greet_server_stream(hello("s")).await.unwrap();
    let mut n = 0;
    while stream.message().await.unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, 10);

    for counts in [&provider_counts, &consumer_counts] {
        let side = if Arc::ptr_eq(counts, &provider_counts) {
            Side::Provider
        } else {
            Side::Consumer
        };
        assert_eq!(counts.count(side, "org.example.Clock"), 3, "{side:?}");
        assert_eq!(
            counts.count(side, GREETER),
            2,
            "{side:?}: unary and streaming"
        );
    }
    app.shutdown().await;
    consumer.shutdown().await;
}

/// A cluster-level filter (once per call, before a provider is chosen) that attaches a
/// report to every call and keeps the last one.
#[derive(Default)]
struct Reporter {
    last: Mutex<Option<Arc<CallReport>>>,
}

impl Filter for Reporter {
    fn invoke<'a>(&'a self, mut call: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let report = CallReport::attach(&mut call);
        *self.last.lock().unwrap() = Some(report);
        next.run(call)
    }
}

#[tokio::test]
async fn call_reports_and_statistics_know_the_provider_and_the_outcome() {
    let (pf, _) = framework_with_counter(Stage::Provider, Side::Provider);
    let (app, dubbo, _) = provider(pf, PROVIDER_YAML).await;
    let framework = Framework::new();
    let reporter = Arc::new(Reporter::default());
    framework.register_filter(
        FilterSpec::new("reporter", 0, &[Stage::Cluster], reporter.clone()).on_request(),
    );
    let consumer = Application::builder("clock-consumer")
        .framework(framework.clone())
        .build()
        .unwrap();
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Clock")
                .url(format!("dubbo://127.0.0.1:{dubbo}"))
                .parameter("filter", "reporter")
                // One attempt per call, so the statistics below count calls.
                .parameter("retries", "0")
                .timeout(Duration::from_millis(300)),
        )
        .await
        .unwrap();
    let client = ClockClient::new(reference.invoker());
    let last = || {
        reporter
            .last
            .lock()
            .unwrap()
            .clone()
            .unwrap()
            .last()
            .unwrap()
    };

    assert_eq!(client.echo("x".into()).await.unwrap(), "x");
    let ok = last();
    assert_eq!(ok.outcome, Outcome::Success);
    assert_eq!(ok.provider.port(), dubbo);
    assert_eq!(ok.provider.host(), Some("127.0.0.1"));

    assert!(client.fail().await.unwrap_err().is_business());
    assert_eq!(last().outcome, Outcome::Business);

    let err = client.sleep(2_000).await.unwrap_err();
    assert!(err.is_timeout(), "{err}");
    let timed_out = last();
    assert_eq!(timed_out.outcome, Outcome::Failed(ErrorCode::Timeout));
    assert!(
        timed_out.elapsed >= Duration::from_millis(250),
        "{timed_out:?}"
    );

    let stats = framework
        .stats()
        .get(&ok.provider)
        .expect("statistics of the provider");
    assert_eq!(stats.all().total(), 3);
    assert_eq!(
        stats.all().failed(),
        1,
        "a business exception is not a provider failure"
    );
    assert_eq!(stats.all().active(), 0);
    assert_eq!(stats.get_method("echo").unwrap().succeeded(), 1);
    assert_eq!(stats.get_method("sleep").unwrap().failed(), 1);
    assert!(stats.get_method("echo").unwrap().ewma_latency().is_some());
    app.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn one_invocation_is_sent_twice_to_two_providers() {
    let (pf1, _) = framework_with_counter(Stage::Provider, Side::Provider);
    let (pf2, _) = framework_with_counter(Stage::Provider, Side::Provider);
    let (a, port_a, _) = provider(pf1, PROVIDER_YAML).await;
    let (b, port_b, _) = provider(pf2, PROVIDER_YAML).await;
    let consumer = Application::builder("clock-consumer").build().unwrap();
    let module = consumer.default_module();
    let refer = |port: u16| {
        module.refer(
            ReferenceOptions::new("org.example.Clock").url(format!("dubbo://127.0.0.1:{port}")),
        )
    };
    let ra = refer(port_a).await.unwrap().invoker();
    let rb = refer(port_b).await.unwrap().invoker();
    let method = Arc::new(dubbo_rs::core::MethodSignature::new(
        "echo",
        &["java.lang.String"],
        "java.lang.String",
    ));
    let mut call = Invocation::new(
        dubbo_rs::core::ServiceKey::interface_only("org.example.Clock"),
        method,
        vec!["twice".into()],
    );
    let report = CallReport::attach(&mut call);
    let copy = call.clone();
    assert_eq!(ra.invoke(call).await.unwrap().value, Value::from("twice"));
    assert_eq!(rb.invoke(copy).await.unwrap().value, Value::from("twice"));
    let ports: Vec<u16> = report
        .attempts()
        .iter()
        .map(|a| a.provider.port())
        .collect();
    assert_eq!(
        ports,
        vec![port_a, port_b],
        "one report, both attempts in order"
    );
    a.shutdown().await;
    b.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn release_withdraws_interface_and_idl_services_but_not_a_later_export() {
    let (pf, _) = framework_with_counter(Stage::Provider, Side::Provider);
    let (app, dubbo, tri) = provider(pf, PROVIDER_YAML).await;
    let consumer = Application::builder("clock-consumer").build().unwrap();
    let over_dubbo = clock(&consumer, format!("dubbo://127.0.0.1:{dubbo}")).await;
    let greeter = greeter(&consumer, tri).await;
    assert_eq!(over_dubbo.echo("up".into()).await.unwrap(), "up");
    greeter.greet(hello("up")).await.unwrap();
    assert_eq!(app.exported().len(), 3, "{:?}", app.exported());
    assert_eq!(consumer.referred().len(), 2);

    // A second module exports the same interface service; releasing the first module must
    // leave that later export in place, and withdraw the IDL service it alone served.
    let second = app.module("second");
    second
        .export(
            ClockServer::new(ClockImpl),
            ServiceOptions::new().protocol("dubbo"),
        )
        .await
        .unwrap();
    app.default_module().release();
    assert_eq!(over_dubbo.echo("still".into()).await.unwrap(), "still");
    let status = greeter.greet(hello("gone")).await.unwrap_err();
    assert_eq!(
        status.code(),
        dubbo_rs::protocol_triple::Code::Unimplemented,
        "{status:?}"
    );
    second.release();
    let err = over_dubbo.echo("gone".into()).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::ServiceNotFound), "{err}");
    app.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn shutdown_runs_its_phases_in_order_and_stops_background_tasks() {
    let (pf, _) = framework_with_counter(Stage::Provider, Side::Provider);
    let (app, dubbo, _) = provider(pf, PROVIDER_YAML).await;
    let consumer = Application::builder("clock-consumer").build().unwrap();
    let client = Arc::new(clock(&consumer, format!("dubbo://127.0.0.1:{dubbo}")).await);
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    for phase in [
        ShutdownPhase::Close,
        ShutdownPhase::Drain,
        ShutdownPhase::Notify,
        ShutdownPhase::Unregister,
    ] {
        let log = log.clone();
        let client = client.clone();
        app.on_shutdown(phase, move || async move {
            // While unregistering, the provider still serves; once drained, it does not.
            let served = client.echo("probe".into()).await.is_ok();
            log.lock()
                .unwrap()
                .push(format!("{phase:?} served={served}"));
        });
    }
    let stopped = Arc::new(AtomicUsize::new(0));
    let flag = stopped.clone();
    app.tasks().spawn("watcher", move |cancel| async move {
        cancel.cancelled().await;
        flag.fetch_add(1, Ordering::SeqCst);
    });
    app.shutdown().await;
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "Unregister served=true",
            "Notify served=true",
            "Drain served=false",
            "Close served=false",
        ]
    );
    assert_eq!(stopped.load(Ordering::SeqCst), 1);
    assert!(app.tasks().running().is_empty());
    consumer.shutdown().await;
}

#[tokio::test]
async fn a_reference_with_new_settings_shares_the_connection() {
    let (pf, _) = framework_with_counter(Stage::Provider, Side::Provider);
    let (app, dubbo, tri) = provider(pf, PROVIDER_YAML).await;
    for (scheme, port) in [("dubbo", dubbo), ("tri", tri)] {
        let (relay, connections) = counting_relay(port).await;
        let url = format!("{scheme}://127.0.0.1:{relay}");
        let consumer = Application::builder("clock-consumer").build().unwrap();
        let old_module = consumer.module("old");
        let options = |timeout: u64| {
            ReferenceOptions::new("org.example.Clock")
                .url(url.clone())
                .timeout(Duration::from_millis(timeout))
        };
        let old = ClockClient::new(old_module.refer(options(200)).await.unwrap().invoker());
        assert!(old.sleep(400).await.unwrap_err().is_timeout());
        // New settings (as an override rule would bring): a new reference on the same
        // provider, then the old one is released. The new one keeps working on the shared
        // connection and follows its own timeout.
        let new = ClockClient::new(
            consumer
                .default_module()
                .refer(options(2_000))
                .await
                .unwrap()
                .invoker(),
        );
        old_module.release();
        assert_eq!(new.sleep(400).await.unwrap(), 400, "{url}");
        assert_eq!(
            connections.load(Ordering::SeqCst),
            1,
            "{url}: one connection throughout"
        );
        consumer.shutdown().await;
    }
    app.shutdown().await;
}

/// A TCP relay on a free port in front of `target`, counting the connections it accepts.
async fn counting_relay(target: u16) -> (u16, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let accepted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            accepted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                if let Ok(mut outbound) =
                    tokio::net::TcpStream::connect(("127.0.0.1", target)).await
                {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    (port, count)
}

/// Records what it is told.
#[derive(Default)]
struct Recorder {
    events: Mutex<Vec<String>>,
}

impl dubbo_rs::ServiceListener for Recorder {
    fn exported(&self, s: &dubbo_rs::ExportedService) {
        self.push(format!(
            "exported {} {}",
            s.key,
            s.url.protocol().unwrap_or("")
        ));
    }
    fn unexported(&self, s: &dubbo_rs::ExportedService) {
        self.push(format!(
            "unexported {} {}",
            s.key,
            s.url.protocol().unwrap_or("")
        ));
    }
    fn referred(&self, r: &dubbo_rs::ReferredService) {
        self.push(format!("referred {}", r.key));
    }
    fn released(&self, r: &dubbo_rs::ReferredService) {
        self.push(format!("released {}", r.key));
    }
}

impl Recorder {
    fn push(&self, e: String) {
        self.events.lock().unwrap().push(e);
    }
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

#[tokio::test]
async fn listeners_follow_exports_and_references_and_ready_runs_once() {
    let (pf, _) = framework_with_counter(Stage::Provider, Side::Provider);
    let (app, dubbo, _) = provider(pf, PROVIDER_YAML).await;
    let recorder = Arc::new(Recorder::default());
    app.add_service_listener(recorder.clone());
    let mut replayed = recorder.take();
    replayed.sort();
    assert_eq!(
        replayed,
        vec![
            format!("exported {GREETER} tri"),
            "exported org.example.Clock dubbo".to_owned(),
            "exported org.example.Clock tri".to_owned(),
        ],
        "a late listener is told of what was exported before"
    );
    let module = app.module("calls");
    module
        .refer(ReferenceOptions::new("org.example.Clock").url(format!("dubbo://127.0.0.1:{dubbo}")))
        .await
        .unwrap();
    module.release();
    assert_eq!(
        recorder.take(),
        vec!["referred org.example.Clock", "released org.example.Clock"]
    );

    let readies = Arc::new(AtomicUsize::new(0));
    let counter = readies.clone();
    app.on_ready(move || async move {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    assert!(!app.is_ready());
    app.ready().await;
    app.ready().await;
    assert!(app.is_ready());
    assert_eq!(readies.load(Ordering::SeqCst), 1);
    app.shutdown().await;
    assert!(!app.is_ready());
    let mut withdrawn = recorder.take();
    withdrawn.sort();
    assert_eq!(withdrawn.len(), 3, "{withdrawn:?}");
    assert!(
        withdrawn.iter().all(|e| e.starts_with("unexported")),
        "{withdrawn:?}"
    );
}
