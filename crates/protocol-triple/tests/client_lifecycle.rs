//! The consumer side's connections over time: a channel that lost its provider reconnects
//! after a backoff, invokers on one address share one connection, and the connection is
//! closed once the last invoker using it is destroyed or dropped.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{interop_invoker, IFACE};
use dubbo_core::{ErrorCode, Invocation, Invoker, MethodSignature, Protocol, ServiceKey, Value};
use dubbo_protocol_triple::{TripleConfig, TripleProtocol, TripleServer};
use dubbo_url::Url;
use tokio::net::{TcpListener, TcpStream};

fn key() -> ServiceKey {
    ServiceKey::new(IFACE, None, Some("1.0.0"))
}

async fn provider(addr: SocketAddr) -> TripleServer {
    let server = TripleServer::bind(addr, TripleConfig::default())
        .await
        .unwrap();
    let url = Url::parse(&format!(
        "tri://{}/{IFACE}?version=1.0.0",
        server.local_addr()
    ))
    .unwrap();
    server.export_invoker(key(), interop_invoker(url));
    server
}

fn consumer_url(addr: SocketAddr, extra: &str) -> Url {
    Url::parse(&format!("tri://{addr}/{IFACE}?version=1.0.0{extra}")).unwrap()
}

fn say_hello(name: &str) -> Invocation {
    Invocation::new(
        key(),
        Arc::new(MethodSignature::new(
            "sayHello",
            &["java.lang.String"],
            "java.lang.String",
        )),
        vec![Value::String(name.into())],
    )
}

async fn hello(invoker: &dyn Invoker, name: &str) -> Result<Value, dubbo_core::RpcError> {
    Ok(invoker.invoke(say_hello(name)).await?.value.into_value()?)
}

/// A TCP relay in front of a provider that counts the connections it carried.
struct CountingProxy {
    addr: SocketAddr,
    opened: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl CountingProxy {
    async fn start(target: SocketAddr) -> CountingProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let opened = Arc::new(AtomicUsize::new(0));
        let closed = Arc::new(AtomicUsize::new(0));
        let (o, c) = (opened.clone(), closed.clone());
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                o.fetch_add(1, Ordering::SeqCst);
                let c = c.clone();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                    c.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
        CountingProxy {
            addr,
            opened,
            closed,
            task,
        }
    }

    fn opened(&self) -> usize {
        self.opened.load(Ordering::SeqCst)
    }

    fn closed(&self) -> usize {
        self.closed.load(Ordering::SeqCst)
    }

    /// Waits (at most 3 s) until `n` connections have been closed.
    async fn wait_closed(&self, n: usize) {
        let start = Instant::now();
        while self.closed() < n && start.elapsed() < Duration::from_secs(3) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(self.closed(), n, "connections closed");
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[tokio::test]
async fn invoker_reconnects_after_the_provider_restarts() {
    let first = provider("127.0.0.1:0".parse().unwrap()).await;
    let addr = first.local_addr();
    let protocol = TripleProtocol::default();
    let invoker = protocol
        .refer(consumer_url(addr, "&timeout=2000"))
        .await
        .unwrap();
    assert!(invoker.is_available(), "a lazy channel is available");
    assert_eq!(
        hello(&*invoker, "one").await.unwrap(),
        Value::String("Hello one".into())
    );

    first.shutdown(Duration::from_millis(200)).await;
    drop(first);
    let err = hello(&*invoker, "down").await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Network), "{err}");
    assert!(!invoker.is_available(), "waiting out the reconnect backoff");
    // While the backoff lasts, calls fail at once instead of dialling the provider again.
    let start = Instant::now();
    let err = hello(&*invoker, "down").await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Network), "{err}");
    assert!(start.elapsed() < Duration::from_millis(50));

    assert!(err.message().contains("next connect attempt"), "{err}");

    let second = provider(addr).await;
    // A cluster only calls available invokers: the invoker must become available again by
    // itself once the backoff is over, without a call to try the connection.
    let start = Instant::now();
    while !invoker.is_available() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "never available again"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        hello(&*invoker, "again").await.unwrap(),
        Value::String("Hello again".into())
    );
    assert!(invoker.is_available());
    second.shutdown(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn connection_closes_when_the_last_invoker_is_destroyed_or_dropped() {
    let server = provider("127.0.0.1:0".parse().unwrap()).await;
    let proxy = CountingProxy::start(server.local_addr()).await;
    let protocol = TripleProtocol::default();
    let a = protocol.refer(consumer_url(proxy.addr, "")).await.unwrap();
    let b = protocol.refer(consumer_url(proxy.addr, "")).await.unwrap();
    hello(&*a, "a").await.unwrap();
    hello(&*b, "b").await.unwrap();
    assert_eq!(proxy.opened(), 1, "two invokers, one connection");
    assert_eq!(protocol.open_channels(), 1);

    a.destroy();
    assert!(!a.is_available());
    let err = hello(&*a, "a").await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Network));
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(proxy.closed(), 0, "b still uses the connection");
    hello(&*b, "b").await.unwrap();
    assert_eq!(proxy.opened(), 1);

    b.destroy();
    proxy.wait_closed(1).await;
    assert_eq!(protocol.open_channels(), 0);

    // A new reference opens a new connection; dropping it (without destroy) closes that one.
    let c = protocol.refer(consumer_url(proxy.addr, "")).await.unwrap();
    hello(&*c, "c").await.unwrap();
    assert_eq!(proxy.opened(), 2);
    drop(c);
    proxy.wait_closed(2).await;
    assert_eq!(protocol.open_channels(), 0);
    drop((a, b));
    server.shutdown(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn referring_again_with_another_url_keeps_the_connection() {
    let server = provider("127.0.0.1:0".parse().unwrap()).await;
    let proxy = CountingProxy::start(server.local_addr()).await;
    let protocol = TripleProtocol::default();
    let first = protocol
        .refer(consumer_url(proxy.addr, "&timeout=1000"))
        .await
        .unwrap();
    hello(&*first, "first").await.unwrap();
    let second = protocol
        .refer(consumer_url(proxy.addr, "&timeout=2000"))
        .await
        .unwrap();
    assert_eq!(second.url().parameter("timeout"), Some("2000"));
    hello(&*second, "second").await.unwrap();
    assert_eq!(proxy.opened(), 1, "the new URL reuses the connection");

    first.destroy();
    drop(first);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(proxy.closed(), 0, "the second invoker keeps the connection");
    assert_eq!(
        hello(&*second, "still").await.unwrap(),
        Value::String("Hello still".into())
    );
    assert_eq!(proxy.opened(), 1);
    drop(second);
    proxy.wait_closed(1).await;
    server.shutdown(Duration::from_millis(200)).await;
}

#[tokio::test]
async fn accepts_refuses_and_counts_connections_beyond_the_limit() {
    use tokio::io::AsyncReadExt;
    let server = provider("127.0.0.1:0".parse().unwrap()).await;
    server.set_accepts(1);
    let _first = TcpStream::connect(server.local_addr()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mut extra = TcpStream::connect(server.local_addr()).await.unwrap();
    let mut buf = [0u8; 16];
    let closed = matches!(
        tokio::time::timeout(Duration::from_secs(1), extra.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    );
    assert!(closed, "the connection beyond `accepts` is closed");
    assert_eq!(server.refused_connections(), 1);
}
