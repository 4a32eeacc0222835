//! Interface-mode streams of one interface exported under several keys on one port (versions,
//! groups): each request reaches the export its `tri-service-version` / `tri-service-group`
//! name, falls back as Java's Triple server does, and withdrawing one export leaves the others
//! served.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use futures::StreamExt;

use dubbo_core::Invoker;
use dubbo_protocol_triple::server::interface_stream::StreamingInterface;
use dubbo_protocol_triple::server::IdlInvoker;
use dubbo_protocol_triple::{
    IdlService, Request, Status, Streaming, TripleChannel, TripleClient, TripleConfig, TripleServer,
};
use dubbo_url::Url;

const IFACE: &str = "org.example.Streams";

/// The interface as exported under `tag`: each answer names it.
fn streams(tag: &'static str) -> Arc<dyn IdlService> {
    Arc::new(
        StreamingInterface::new(IFACE)
            .server_streaming("count", move |n: i32| async move {
                Ok(futures::stream::iter(
                    (0..n).map(move |i| Ok::<_, Status>(format!("{tag}:{i}"))),
                ))
            })
            .bidi_streaming("echo", move |reqs: Streaming<String>| async move {
                Ok(reqs.map(move |r| r.map(|s| format!("{tag}:{s}"))))
            }),
    )
}

fn export(server: &TripleServer, tag: &'static str, query: &str) -> dubbo_core::Exporter {
    let url = Url::parse(&format!("tri://127.0.0.1:0/{IFACE}?{query}")).unwrap();
    let service = streams(tag);
    let invoker: Arc<dyn Invoker> = Arc::new(IdlInvoker::new(service.clone(), url.clone()));
    server.export_idl(service, invoker, url)
}

/// The server stream `count(2)` asked with the given headers: its answers, or the error.
async fn count(
    client: &TripleClient,
    group: Option<&str>,
    version: Option<&str>,
) -> Result<Vec<String>, Status> {
    let mut req = Request::new(2i32);
    if let Some(g) = group {
        req.metadata_mut()
            .insert("tri-service-group", g.parse().unwrap());
    }
    if let Some(v) = version {
        req.metadata_mut()
            .insert("tri-service-version", v.parse().unwrap());
    }
    let s = client
        .interface_server_streaming::<i32, String>(&format!("/{IFACE}/count"), req)
        .await?
        .into_inner();
    s.collect::<Vec<_>>().await.into_iter().collect()
}

async fn echo(client: &TripleClient, version: &str) -> Vec<String> {
    let mut req = Request::new(futures::stream::iter(["a".to_owned(), "b".to_owned()]));
    req.metadata_mut()
        .insert("tri-service-version", version.parse().unwrap());
    let s = client
        .interface_bidi_streaming::<_, String, String>(&format!("/{IFACE}/echo"), req)
        .await
        .unwrap()
        .into_inner();
    s.map(|r| r.unwrap()).collect().await
}

fn tagged(tag: &str) -> Vec<String> {
    vec![format!("{tag}:0"), format!("{tag}:1")]
}

#[tokio::test]
async fn versions_and_groups_each_answer_their_own_requests() {
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default())
        .await
        .unwrap();
    // 2.0.0 first: selection does not depend on the order of export.
    let v2 = export(&server, "v2", "version=2.0.0");
    let v1 = export(&server, "v1", "version=1.0.0");
    let ga = export(&server, "ga", "group=a&version=3.0.0");
    let channel = TripleChannel::connect(server.local_addr().to_string(), TripleConfig::default())
        .await
        .unwrap();
    let client = TripleClient::new(channel);

    assert_eq!(
        count(&client, None, Some("1.0.0")).await.unwrap(),
        tagged("v1")
    );
    assert_eq!(
        count(&client, None, Some("2.0.0")).await.unwrap(),
        tagged("v2")
    );
    assert_eq!(
        count(&client, Some("a"), Some("3.0.0")).await.unwrap(),
        tagged("ga")
    );
    assert_eq!(echo(&client, "2.0.0").await, ["v2:a", "v2:b"]);
    assert_eq!(echo(&client, "1.0.0").await, ["v1:a", "v1:b"]);
    // No headers, or a version nobody exports: Java's default version, 1.0.0.
    assert_eq!(count(&client, None, None).await.unwrap(), tagged("v1"));
    assert_eq!(
        count(&client, None, Some("9.9.9")).await.unwrap(),
        tagged("v1")
    );

    // Withdrawing 1.0.0 leaves the others served; its requests go to the earliest export left.
    v1.unexport();
    assert_eq!(
        count(&client, None, Some("2.0.0")).await.unwrap(),
        tagged("v2")
    );
    assert_eq!(
        count(&client, Some("a"), Some("3.0.0")).await.unwrap(),
        tagged("ga")
    );
    assert_eq!(
        count(&client, None, Some("1.0.0")).await.unwrap(),
        tagged("v2")
    );

    v2.unexport();
    assert_eq!(
        count(&client, None, Some("2.0.0")).await.unwrap(),
        tagged("ga")
    );
    ga.unexport();
    let err = count(&client, None, None).await.unwrap_err();
    assert_eq!(
        err.code(),
        dubbo_protocol_triple::Code::Unimplemented,
        "{err:?}"
    );
}
