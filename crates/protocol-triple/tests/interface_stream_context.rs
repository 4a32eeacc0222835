//! The `*_with_context` handlers of a `StreamingInterface` served without filters
//! (`add_idl_service`): the request context is made from the request itself (its attachments,
//! the caller's address, the key its path and headers name, its deadline).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use futures::StreamExt;

use dubbo_core::RequestContext;
use dubbo_protocol_triple::server::interface_stream::StreamingInterface;
use dubbo_protocol_triple::{
    Request, Status, Streaming, TripleChannel, TripleClient, TripleConfig, TripleServer,
};

const IFACE: &str = "org.example.Context";

fn describe(ctx: &RequestContext) -> String {
    format!(
        "who={} ip={} service={} deadline={}",
        ctx.attachment("who").unwrap_or("-"),
        ctx.remote_addr
            .map(|a| a.ip().to_string())
            .unwrap_or_default(),
        ctx.service
            .as_ref()
            .map(|k| k.to_string())
            .unwrap_or_default(),
        ctx.deadline.is_some()
    )
}

/// `req` with an attachment `who: bob`, version 2.0.0 and a timeout.
fn with_headers<T>(mut req: Request<T>) -> Request<T> {
    req.metadata_mut().insert("who", "bob".parse().unwrap());
    req.metadata_mut()
        .insert("tri-service-version", "2.0.0".parse().unwrap());
    req.set_timeout(Duration::from_secs(5));
    req
}

#[tokio::test]
async fn handlers_with_context_see_the_request() {
    let service = StreamingInterface::new(IFACE)
        .server_streaming_with_context("s", |ctx, n: i32| async move {
            let d = describe(&ctx);
            Ok(futures::stream::iter(
                (0..n).map(move |i| Ok::<_, Status>(format!("{i} {d}"))),
            ))
        })
        .client_streaming_with_context("c", |ctx, reqs: Streaming<String>| async move {
            let n = reqs.count().await;
            Ok(format!("{n} {}", describe(&ctx)))
        })
        .bidi_streaming_with_context("b", |ctx, reqs: Streaming<String>| async move {
            let d = describe(&ctx);
            Ok(reqs.map(move |r| r.map(|m| format!("{m} {d}"))))
        });
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default())
        .await
        .unwrap();
    server.add_idl_service(service);
    let channel = TripleChannel::connect(server.local_addr().to_string(), TripleConfig::default())
        .await
        .unwrap();
    let client = TripleClient::new(channel);
    let want = format!("who=bob ip=127.0.0.1 service={IFACE}:2.0.0 deadline=true");

    let got: Vec<String> = client
        .interface_server_streaming::<i32, String>(
            &format!("/{IFACE}/s"),
            with_headers(Request::new(1)),
        )
        .await
        .unwrap()
        .into_inner()
        .map(|r| r.unwrap())
        .collect()
        .await;
    assert_eq!(got, [format!("0 {want}")]);

    let req = with_headers(Request::new(futures::stream::iter(["x".to_owned()])));
    let got = client
        .interface_client_streaming::<_, String, String>(&format!("/{IFACE}/c"), req)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got, format!("1 {want}"));

    let req = with_headers(Request::new(futures::stream::iter(["y".to_owned()])));
    let got: Vec<String> = client
        .interface_bidi_streaming::<_, String, String>(&format!("/{IFACE}/b"), req)
        .await
        .unwrap()
        .into_inner()
        .map(|r| r.unwrap())
        .collect()
        .await;
    assert_eq!(got, [format!("y {want}")]);

    // Without attachments or a version: none in the context.
    let got = client
        .interface_client_streaming::<_, String, String>(
            &format!("/{IFACE}/c"),
            Request::new(futures::stream::iter(Vec::<String>::new())),
        )
        .await
        .unwrap()
        .into_inner();
    assert!(
        got.starts_with(&format!("0 who=- ip=127.0.0.1 service={IFACE} ")),
        "{got}"
    );
}
