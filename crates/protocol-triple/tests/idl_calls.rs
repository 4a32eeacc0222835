//! IDL-mode calls of all four kinds between a Rust client and a Rust server over real sockets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use dubbo_protocol_triple::{Code, Encoding, Request, Response, Streaming, TripleConfig};
use futures::StreamExt;

#[tokio::test]
async fn unary_round_trip() {
    let server = start_server(TripleConfig::default()).await;
    let client = client_for(&server).await;
    let reply: Response<GreeterReply> = client
        .unary(
            &path("Greet"),
            Request::new(GreeterRequest {
                name: "world".into(),
            }),
        )
        .await
        .unwrap();
    assert_eq!(reply.get_ref().message, "Hello world");
    assert_eq!(
        reply.metadata().get("content-type").unwrap(),
        "application/grpc"
    );
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn many_concurrent_unary_calls_share_one_connection() {
    let server = start_server(TripleConfig::default()).await;
    let client = client_for(&server).await;
    let calls = (0..50).map(|i| {
        let c = client.clone();
        async move {
            let r: Response<GreeterReply> = c
                .unary(
                    &path("Greet"),
                    Request::new(GreeterRequest {
                        name: format!("n{i}"),
                    }),
                )
                .await
                .unwrap();
            assert_eq!(r.get_ref().message, format!("Hello n{i}"));
        }
    });
    futures::future::join_all(calls).await;
}

#[tokio::test]
async fn server_streaming() {
    let server = start_server(TripleConfig::default()).await;
    let client = client_for(&server).await;
    let resp: Response<Streaming<GreeterReply>> = client
        .server_streaming(
            &path("GreetServerStream"),
            Request::new(GreeterRequest { name: "x".into() }),
        )
        .await
        .unwrap();
    let all: Vec<String> = resp
        .into_inner()
        .map(|r| r.unwrap().message)
        .collect()
        .await;
    assert_eq!(all.len(), 10);
    assert_eq!(all[9], "Hello x #9");
}

#[tokio::test]
async fn client_streaming() {
    let server = start_server(TripleConfig::default()).await;
    let client = client_for(&server).await;
    let input = futures::stream::iter(["a", "b", "c"].map(|n| GreeterRequest { name: n.into() }));
    let resp: Response<GreeterReply> = client
        .client_streaming(&path("GreetClientStream"), Request::new(input))
        .await
        .unwrap();
    assert_eq!(resp.get_ref().message, "Hello a,b,c");
}

#[tokio::test]
async fn bidi_streaming_interleaves() {
    let server = start_server(TripleConfig::default()).await;
    let client = client_for(&server).await;
    let (tx, rx) = tokio::sync::mpsc::channel::<GreeterRequest>(1);
    let input = tokio_stream_from(rx);
    let resp: Response<Streaming<GreeterReply>> = client
        .bidi_streaming(&path("GreetBiStream"), Request::new(input))
        .await
        .unwrap();
    let mut out = resp.into_inner();
    for i in 0..5 {
        tx.send(GreeterRequest {
            name: format!("p{i}"),
        })
        .await
        .unwrap();
        // Each reply arrives before the next request is sent: real interleaving.
        let r = out.message().await.unwrap().unwrap();
        assert_eq!(r.message, format!("Hello p{i}"));
    }
    drop(tx);
    assert!(out.message().await.unwrap().is_none());
}

fn tokio_stream_from<T: Send + 'static>(
    mut rx: tokio::sync::mpsc::Receiver<T>,
) -> impl futures::Stream<Item = T> + Send + 'static {
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

#[tokio::test]
async fn gzip_requests_and_responses() {
    let server = start_server(TripleConfig::default().with_send_encoding(Encoding::Gzip)).await;
    let client = client_for(&server).await.with_send_encoding(Encoding::Gzip);
    let name = "z".repeat(100_000);
    let reply: Response<GreeterReply> = client
        .unary(
            &path("Greet"),
            Request::new(GreeterRequest { name: name.clone() }),
        )
        .await
        .unwrap();
    assert_eq!(reply.get_ref().message.len(), name.len() + 6);
    assert_eq!(reply.metadata().get("grpc-encoding").unwrap(), "gzip");
}

#[tokio::test]
async fn grpc_timeout_is_honoured_on_both_sides() {
    let server = start_server(TripleConfig::default()).await;
    let client = client_for(&server).await;
    // Client-side deadline.
    let mut req = Request::new(GreeterRequest {
        name: "2000".into(),
    });
    req.set_timeout(Duration::from_millis(100));
    let start = std::time::Instant::now();
    let err = client
        .unary::<_, GreeterReply>(&path("Slow"), req)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded);
    assert!(start.elapsed() < Duration::from_millis(1500));

    // Server-side deadline: a raw request with grpc-timeout and no client timer.
    let mut md = http::HeaderMap::new();
    md.insert("grpc-timeout", "100m".parse().unwrap());
    let payload = prost::Message::encode_to_vec(&GreeterRequest {
        name: "2000".into(),
    });
    let err = client
        .unary_raw(&path("Slow"), &md, payload.into(), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err}");
}

#[tokio::test]
async fn unknown_service_and_method_are_unimplemented() {
    let server = start_server(TripleConfig::default()).await;
    let client = client_for(&server).await;
    let err = client
        .unary::<_, GreeterReply>("/no.Such/Greet", Request::new(GreeterRequest::default()))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    let err = client
        .unary::<_, GreeterReply>(&path("Nope"), Request::new(GreeterRequest::default()))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    // The connection is still fine.
    let ok: Response<GreeterReply> = client
        .unary(
            &path("Greet"),
            Request::new(GreeterRequest { name: "ok".into() }),
        )
        .await
        .unwrap();
    assert_eq!(ok.get_ref().message, "Hello ok");
}

#[tokio::test]
async fn connection_refused_is_unavailable() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    let ch = dubbo_protocol_triple::TripleChannel::lazy(addr.to_string(), TripleConfig::default());
    let client = dubbo_protocol_triple::TripleClient::new(ch);
    let err = client
        .unary::<_, GreeterReply>(&path("Greet"), Request::new(GreeterRequest::default()))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable);
}
