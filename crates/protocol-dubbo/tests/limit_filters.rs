//! The token, executes and actives filters over a real dubbo:// server on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_core::filters::builtin_filters;
use dubbo_core::{
    invoker_fn, ErrorCode, FilterChain, Invocation, Invoker, MethodSignature, Protocol,
    RpcResponse, ServiceKey, Stage, Value,
};
use dubbo_protocol_dubbo::DubboProtocol;
use dubbo_url::Url;

const GREETER: &str = "org.example.Greeter";

/// `sayHello(name)` answers at once; `sleep(ms)` waits. `peak` records the most calls seen
/// running at once.
fn greeter(url: Url, running: Arc<AtomicUsize>, peak: Arc<AtomicUsize>) -> Arc<dyn Invoker> {
    Arc::new(invoker_fn(url, move |inv: Invocation| {
        let running = running.clone();
        let peak = peak.clone();
        async move {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
            let out = match inv.method_name() {
                "sleep" => {
                    let ms = inv
                        .args()
                        .first()
                        .and_then(|v| v.to_value().ok())
                        .and_then(|v| v.as_i64())
                        .unwrap_or(0);
                    tokio::time::sleep(Duration::from_millis(ms as u64)).await;
                    Value::String(format!("slept {ms}"))
                }
                _ => {
                    let name = inv
                        .args()
                        .first()
                        .and_then(|v| v.to_value().ok())
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_else(|| "?".to_owned());
                    Value::String(format!("Hello {name}"))
                }
            };
            running.fetch_sub(1, Ordering::SeqCst);
            Ok(RpcResponse::new(out))
        }
    }))
}

fn call(name: &str, arg: Value) -> Invocation {
    Invocation::new(
        ServiceKey::interface_only(GREETER),
        Arc::new(MethodSignature::new(
            name,
            &["java.lang.Object"],
            "java.lang.Object",
        )),
        vec![arg],
    )
}

/// Exports the greeter with `provider_params` and refers to it with `consumer_params`, through
/// the built-in consumer filters. Returns the protocol, the reference and the peak counter.
async fn setup(
    provider_params: &str,
    consumer_params: &str,
) -> (DubboProtocol, Arc<dyn Invoker>, Arc<AtomicUsize>) {
    let protocol = DubboProtocol::new();
    let url = Url::parse(&format!(
        "dubbo://127.0.0.1:0/{GREETER}?bind.port=0&side=provider{provider_params}"
    ))
    .unwrap();
    let peak = Arc::new(AtomicUsize::new(0));
    let service = greeter(url.clone(), Arc::new(AtomicUsize::new(0)), peak.clone());
    // Dropping the handle does not unexport: the service stays until the protocol shuts down.
    let service: Arc<dyn Invoker> = Arc::new(FilterChain::build(
        &builtin_filters(),
        Stage::Provider,
        &url,
        service,
    ));
    protocol.export(url.clone(), service).await.unwrap();
    let addr = protocol.server_addr(&url).unwrap();
    let consumer = Url::parse(&format!(
        "dubbo://{addr}/{GREETER}?timeout=3000&side=consumer{consumer_params}"
    ))
    .unwrap();
    let remote = protocol.refer(consumer.clone()).await.unwrap();
    let chain: Arc<dyn Invoker> = Arc::new(FilterChain::build(
        &builtin_filters(),
        Stage::Consumer,
        &consumer,
        remote,
    ));
    (protocol, chain, peak)
}

#[tokio::test]
async fn token_refuses_calls_without_the_right_token() {
    // The reference sends no token: refused, with Java's message.
    let (protocol, reference, _) = setup("&token=s3cret", "").await;
    let err = reference
        .invoke(call("sayHello", "x".into()))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Forbidden), "{err}");
    let m = err.message();
    assert!(
        m.contains("org.apache.dubbo.rpc.RpcException: Invalid token! Forbid invoke remote service interface org.example.Greeter method sayHello() from consumer 127.0.0.1 to provider 127.0.0.1, consumer incorrect token is null"),
        "{m}"
    );
    // A wrong token is named in the refusal.
    let wrong = call("sayHello", "x".into()).with_attachment("token", "guess");
    let err = reference.invoke(wrong).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Forbidden), "{err}");
    assert!(
        err.message().ends_with("consumer incorrect token is guess"),
        "{err}"
    );
    protocol.shutdown(Duration::ZERO).await;

    // The reference URL's token is sent as the attachment: served.
    let (protocol, reference, _) = setup("&token=s3cret", "&token=s3cret").await;
    let r = reference
        .invoke(call("sayHello", "t".into()))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello t".into()));
    protocol.shutdown(Duration::ZERO).await;

    // `token=false` is no token at all (Java's ConfigUtils.isEmpty).
    let (protocol, reference, _) = setup("&token=false", "").await;
    assert!(reference.invoke(call("sayHello", "f".into())).await.is_ok());
    protocol.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn executes_limits_concurrent_executions_per_method() {
    let (protocol, reference, peak) = setup("&executes=2", "").await;
    let calls: Vec<_> = (0..5)
        .map(|_| {
            let r = reference.clone();
            tokio::spawn(async move { r.invoke(call("sleep", Value::Long(300))).await })
        })
        .collect();
    let mut ok = 0;
    let mut refused = 0;
    for c in calls {
        match c.await.unwrap() {
            Ok(_) => ok += 1,
            Err(e) => {
                assert_eq!(e.code(), Some(ErrorCode::LimitExceeded), "{e}");
                assert!(
                    e.message().contains("cause: The service using threads greater than <dubbo:service executes=\"2\" /> limited."),
                    "{e}"
                );
                refused += 1;
            }
        }
    }
    assert_eq!((ok, refused), (2, 3));
    assert_eq!(peak.load(Ordering::SeqCst), 2);
    // The places are free again once the calls ended; another method has its own count.
    assert!(reference
        .invoke(call("sleep", Value::Long(1)))
        .await
        .is_ok());
    assert!(reference.invoke(call("sayHello", "y".into())).await.is_ok());
    protocol.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn executes_per_method_setting() {
    let (protocol, reference, _) = setup("&sleep.executes=1", "").await;
    let slow = {
        let r = reference.clone();
        tokio::spawn(async move { r.invoke(call("sleep", Value::Long(300))).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let err = reference
        .invoke(call("sleep", Value::Long(1)))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::LimitExceeded), "{err}");
    // sayHello has no limit.
    assert!(reference.invoke(call("sayHello", "z".into())).await.is_ok());
    assert!(slow.await.unwrap().is_ok());
    protocol.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn actives_makes_extra_calls_wait_for_a_place() {
    // Two places; six 200 ms calls all succeed, in three waves, never more than two at once.
    let (protocol, reference, peak) = setup("", "&actives=2&timeout=3000").await;
    let started = Instant::now();
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let r = reference.clone();
            tokio::spawn(async move { r.invoke(call("sleep", Value::Long(200))).await })
        })
        .collect();
    for c in calls {
        assert!(c.await.unwrap().is_ok());
    }
    assert_eq!(peak.load(Ordering::SeqCst), 2);
    assert!(
        started.elapsed() >= Duration::from_millis(550),
        "{:?}",
        started.elapsed()
    );
    protocol.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn actives_fails_after_waiting_the_timeout() {
    let (protocol, reference, _) = setup("", "&actives=1&sleep.timeout=150&timeout=3000").await;
    // This call holds the only place for 600 ms (its own deadline outlasts sleep's 150 ms).
    let hold = {
        let r = reference.clone();
        let mut inv = call("sleep", Value::Long(600));
        inv.context_mut().set_timeout(Duration::from_secs(3));
        tokio::spawn(async move { r.invoke(inv).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let started = Instant::now();
    let err = reference
        .invoke(call("sleep", Value::Long(1)))
        .await
        .unwrap_err();
    let waited = started.elapsed();
    assert_eq!(err.code(), Some(ErrorCode::LimitExceeded), "{err}");
    assert!(
        err.message().starts_with("Waiting concurrent invoke timeout in client-side for service:  org.example.Greeter, method: sleep, elapsed: "),
        "{err}"
    );
    assert!(
        err.message()
            .ends_with(", timeout: 150. concurrent invokes: 1. max concurrent invoke limit: 1"),
        "{err}"
    );
    assert!(
        waited >= Duration::from_millis(140) && waited < Duration::from_millis(500),
        "{waited:?}"
    );
    // Another method has its own count.
    assert!(reference.invoke(call("sayHello", "x".into())).await.is_ok());
    assert!(hold.await.unwrap().is_ok());
    // The place is free again.
    assert!(reference
        .invoke(call("sleep", Value::Long(1)))
        .await
        .is_ok());
    protocol.shutdown(Duration::ZERO).await;
}
