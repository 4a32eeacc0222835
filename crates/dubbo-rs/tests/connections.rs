//! Connections between consumers and providers, end to end on 127.0.0.1: one shared
//! connection per provider address by default, `connections=N` dedicated ones per reference,
//! and the provider's `accepts` limit over dubbo:// and tri://.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;
use tokio::io::AsyncReadExt;

#[dubbo_rs::service(interface = "org.example.conn.Peer")]
pub trait Peer {
    /// The consumer address the provider sees: one per connection.
    async fn who(&self, ctx: &mut RequestContext) -> Result<String, RpcError>;
}

struct PeerImpl;

impl Peer for PeerImpl {
    async fn who(&self, ctx: &mut RequestContext) -> Result<String, RpcError> {
        Ok(ctx.remote_addr.map(|a| a.to_string()).unwrap_or_default())
    }
}

/// A provider of Peer on free dubbo:// and tri:// ports with `accepts` (if any) on both; the
/// application and the two ports.
async fn provider(accepts: Option<u32>) -> (Application, u16, u16) {
    let limit = accepts.map_or(String::new(), |n| format!("      accepts: {n}\n"));
    let text = format!(
        "dubbo:\n  application:\n    name: peer-provider\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n{limit}    tri:\n      port: 0\n      host: 127.0.0.1\n{limit}"
    );
    let config = DubboConfig::from_yaml(&text).unwrap();
    let app = Application::builder("peer-provider")
        .config(config)
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(PeerServer::new(PeerImpl), ServiceOptions::new())
        .await
        .unwrap();
    let port = |scheme: &str| {
        urls.iter()
            .find(|u| u.protocol() == Some(scheme))
            .map(|u| u.port())
            .unwrap()
    };
    let (dubbo, tri) = (port("dubbo"), port("tri"));
    (app, dubbo, tri)
}

async fn peer(app: &Application, url: String, connections: Option<u32>) -> PeerClient {
    let mut options = ReferenceOptions::new("org.example.conn.Peer")
        .url(url)
        .timeout(Duration::from_secs(5));
    if let Some(n) = connections {
        options = options.parameter("connections", n.to_string());
    }
    let reference = app.default_module().refer(options).await.unwrap();
    PeerClient::new(reference.invoker())
}

/// How many calls each consumer address (connection) served, over `n` calls.
async fn spread(client: &PeerClient, n: usize) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for _ in 0..n {
        *seen.entry(client.who().await.unwrap()).or_insert(0) += 1;
    }
    seen
}

/// Whether the server closes a fresh raw connection on its own within a second.
async fn closed_at_once(port: u16) -> bool {
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let mut buf = [0u8; 16];
    matches!(
        tokio::time::timeout(Duration::from_secs(1), s.read(&mut buf)).await,
        Ok(Ok(0) | Err(_))
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn references_share_one_connection_unless_they_ask_for_dedicated_ones() {
    let (app, dubbo, _) = provider(None).await;
    let consumer = Application::builder("peer-consumer").build().unwrap();
    let url = format!("dubbo://127.0.0.1:{dubbo}");

    // Two references with the default share one connection.
    let a = peer(&consumer, url.clone(), None).await;
    let b = peer(&consumer, url.clone(), None).await;
    let mut shared = spread(&a, 10).await;
    for (k, v) in spread(&b, 10).await {
        *shared.entry(k).or_insert(0) += v;
    }
    assert_eq!(shared.len(), 1, "{shared:?}");

    // `connections=3`: three more connections of its own, and calls use them all.
    let dedicated = peer(&consumer, url, Some(3)).await;
    let used = spread(&dedicated, 30).await;
    assert_eq!(used.len(), 3, "{used:?}");
    assert!(used.values().all(|n| *n >= 5), "calls spread: {used:?}");
    assert!(
        used.keys().all(|k| !shared.contains_key(k)),
        "dedicated, not the shared one"
    );
    consumer.shutdown().await;
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepts_closes_connections_beyond_the_limit_and_the_others_keep_working() {
    let (app, dubbo, tri) = provider(Some(2)).await;
    let consumer = Application::builder("peer-consumer").build().unwrap();

    // dubbo://: a reference with two dedicated connections takes both places.
    let full = peer(&consumer, format!("dubbo://127.0.0.1:{dubbo}"), Some(2)).await;
    assert_eq!(spread(&full, 10).await.len(), 2);
    assert!(closed_at_once(dubbo).await, "a third dubbo:// connection");
    assert_eq!(
        spread(&full, 10).await.len(),
        2,
        "the first two still serve"
    );

    // tri://: one reference's connection and one idle raw one; a third is closed.
    let one = peer(&consumer, format!("tri://127.0.0.1:{tri}"), None).await;
    assert_eq!(spread(&one, 3).await.len(), 1);
    let _idle = tokio::net::TcpStream::connect(("127.0.0.1", tri))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(closed_at_once(tri).await, "a third tri:// connection");
    assert_eq!(spread(&one, 3).await.len(), 1, "the first still serves");

    // Below the limit again, a new connection is served.
    drop(_idle);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!closed_at_once(tri).await, "room again after one closed");
    consumer.shutdown().await;
    app.shutdown().await;
}
