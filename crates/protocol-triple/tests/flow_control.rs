//! Backpressure: a fast streaming client against a slow server stays bounded by the HTTP/2
//! windows, on both sides; a unary sender facing a closed window gets RESOURCE_EXHAUSTED.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::*;
use dubbo_protocol_triple::{
    Code, Request, Response, TripleChannel, TripleClient, TripleConfig, TripleServer,
};

const WINDOW: u32 = 1024 * 1024;
const PAYLOAD: usize = 16 * 1024;

fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fast_client_slow_server_stays_bounded() {
    let config = TripleConfig::default().with_windows(WINDOW, WINDOW);
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), config.clone())
        .await
        .unwrap();
    let greeter = HandGreeter {
        consumed: Arc::new(AtomicUsize::new(0)),
        read_delay: Some(Duration::from_millis(1500)),
    };
    let consumed = greeter.consumed.clone();
    server.add_idl_service(greeter);
    let channel = TripleChannel::connect(server.local_addr().to_string(), config)
        .await
        .unwrap();
    let client = TripleClient::new(channel);

    // An endless, instant producer: it yields a new 16 KiB message every time it is polled.
    const TOTAL: usize = 4000; // 64 MiB if nothing held it back
    let produced = Arc::new(AtomicUsize::new(0));
    let p = produced.clone();
    let source = futures::stream::iter(0..TOTAL).map(move |i| {
        p.fetch_add(1, Ordering::SeqCst);
        GreeterRequest {
            name: format!("{i:08}{}", "x".repeat(PAYLOAD - 8)),
        }
    });
    use futures::StreamExt;

    let rss_before = rss_bytes();
    let call = tokio::spawn(async move {
        client
            .client_streaming::<_, _, GreeterReply>(&path("SlowSink"), Request::new(source))
            .await
    });

    tokio::time::sleep(Duration::from_millis(700)).await;
    let early = produced.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let later = produced.load(Ordering::SeqCst);
    assert_eq!(
        consumed.load(Ordering::SeqCst),
        0,
        "the server has not read yet"
    );
    // What the client could send before the server read: one stream window's worth, plus the
    // message being written and the one taken from the source.
    let bound = WINDOW as usize / PAYLOAD + 2;
    eprintln!("client produced {early} messages before the server read (bound {bound})");
    assert!(
        early <= bound,
        "client produced {early} messages, bound {bound}"
    );
    assert!(early >= bound - 4, "the window was used: {early}");
    assert_eq!(
        early, later,
        "nothing more is produced while the server is not reading"
    );
    // /proc/self/statm exists on Linux only; elsewhere the window checks above stand alone,
    // but on Linux an unreadable RSS must not quietly drop the memory check.
    if cfg!(target_os = "linux") {
        let before = rss_before.expect("RSS from /proc/self/statm");
        let now = rss_bytes().expect("RSS from /proc/self/statm");
        let grown = now.saturating_sub(before);
        assert!(
            grown < 24 * 1024 * 1024,
            "memory grew by {grown} bytes while the server was not reading"
        );
    }

    // Once the server reads, everything flows.
    let reply: Response<GreeterReply> = call.await.unwrap().unwrap();
    assert_eq!(reply.get_ref().message, TOTAL.to_string());
    assert_eq!(consumed.load(Ordering::SeqCst), TOTAL);
    assert_eq!(produced.load(Ordering::SeqCst), TOTAL);
}

#[tokio::test]
async fn unary_sender_gets_resource_exhausted_when_the_window_stays_closed() {
    let server_cfg = TripleConfig::default().with_windows(64 * 1024, 64 * 1024);
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), server_cfg)
        .await
        .unwrap();
    server.add_idl_service(HandGreeter::default());
    let client_cfg = TripleConfig {
        unary_send_window_timeout: Duration::from_millis(300),
        ..TripleConfig::default()
    };
    let channel = TripleChannel::connect(server.local_addr().to_string(), client_cfg)
        .await
        .unwrap();
    let client = TripleClient::new(channel);
    let big = GreeterRequest {
        name: "y".repeat(1024 * 1024),
    };
    let start = std::time::Instant::now();
    let err = client
        .unary::<_, GreeterReply>(&path("Stall"), Request::new(big))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err}");
    assert!(start.elapsed() < Duration::from_secs(3));
    // The connection is still healthy for other calls.
    let ok: Response<GreeterReply> = client
        .unary(
            &path("Greet"),
            Request::new(GreeterRequest {
                name: "after".into(),
            }),
        )
        .await
        .unwrap();
    assert_eq!(ok.get_ref().message, "Hello after");
}
