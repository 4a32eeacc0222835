//! Graceful shutdown: the two-phase GOAWAY lets an in-flight call finish, new calls fail (or
//! go elsewhere), and the channel reports itself unavailable.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use dubbo_protocol_triple::{Code, Request, Response, Streaming, TripleConfig};
use futures::StreamExt;

#[tokio::test]
async fn in_flight_calls_finish_new_calls_fail() {
    let server = std::sync::Arc::new(start_server(TripleConfig::default()).await);
    let addr = server.local_addr();
    let client = client_for(&server).await;

    // An in-flight unary call (500 ms) and an in-flight server stream.
    let c = client.clone();
    let slow = tokio::spawn(async move {
        c.unary::<_, GreeterReply>(
            &path("Slow"),
            Request::new(GreeterRequest { name: "500".into() }),
        )
        .await
    });
    let stream: Response<Streaming<GreeterReply>> = client
        .server_streaming(
            &path("GreetServerStream"),
            Request::new(GreeterRequest { name: "s".into() }),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    let s = server.clone();
    let shutdown = tokio::spawn(async move { s.shutdown(Duration::from_secs(5)).await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert!(server.is_shutting_down());

    // New calls are refused: the connection got GOAWAY and the listener is closed.
    let err = client
        .unary::<_, GreeterReply>(
            &path("Greet"),
            Request::new(GreeterRequest { name: "new".into() }),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
    assert!(!client.channel().is_available());
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());

    // The in-flight calls complete normally.
    let reply = slow.await.unwrap().unwrap();
    assert_eq!(reply.get_ref().message, "slept 500");
    let all: Vec<_> = stream.into_inner().collect().await;
    assert_eq!(all.len(), 10);
    assert!(all.iter().all(|r| r.is_ok()));

    tokio::time::timeout(Duration::from_secs(3), shutdown)
        .await
        .expect("shutdown finishes once in-flight calls are done")
        .unwrap();
}

#[tokio::test]
async fn grace_period_bounds_shutdown() {
    let server = std::sync::Arc::new(start_server(TripleConfig::default()).await);
    let client = client_for(&server).await;
    let c = client.clone();
    let slow = tokio::spawn(async move {
        c.unary::<_, GreeterReply>(
            &path("Slow"),
            Request::new(GreeterRequest {
                name: "5000".into(),
            }),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let start = std::time::Instant::now();
    server.shutdown(Duration::from_millis(300)).await;
    assert!(start.elapsed() < Duration::from_secs(2));
    // The call that outlived the grace period fails as a transport failure.
    let err = slow.await.unwrap().unwrap_err();
    assert_eq!(err.code(), Code::Unavailable, "{err}");
}
