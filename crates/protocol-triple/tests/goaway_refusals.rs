//! Refused HTTP/2 connections are told why: a GOAWAY whose debug data says the reason, seen by
//! `h2`'s client (the HTTP/2 of hyper and tonic) and, when installed, by `nghttp -v`
//! (Debian's nghttp2-client; scripts/tls.sh runs it against the interop server).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use common::*;
use dubbo_protocol_triple::{TripleConfig, TripleServer};
use dubbo_tls::testing::TestPki;
use dubbo_tls::{ServerTls, ServerTlsSettings};

/// Connects with `h2`'s client, sends a request, and returns the connection's error.
async fn h2_refusal(addr: SocketAddr) -> h2::Error {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut send, conn) = h2::client::handshake(tcp).await.unwrap();
    let conn = tokio::spawn(conn);
    let request = http::Request::post(format!("http://{addr}/{SERVICE}/Greet"))
        .header("content-type", "application/grpc")
        .body(())
        .unwrap();
    // The request may or may not be sent before the GOAWAY lands; either way it fails.
    if let Ok((response, _)) = send.send_request(request, true) {
        assert!(response.await.is_err(), "a refused connection answered");
    }
    tokio::time::timeout(Duration::from_secs(5), conn)
        .await
        .expect("the refused connection did not end")
        .unwrap()
        .expect_err("the connection ended without an error")
}

/// `nghttp -v` against `addr`: its output, or `None` when nghttp is not installed.
fn nghttp(addr: SocketAddr) -> Option<String> {
    let out = Command::new("nghttp")
        .args(["-v", "-t", "5", &format!("http://{addr}/")])
        .output();
    match out {
        Ok(out) => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        Err(_) => {
            eprintln!("SKIP the nghttp part: nghttp (Debian's nghttp2-client) is not installed");
            None
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn too_many_connections_say_so_in_the_goaway() {
    let server = start_server(TripleConfig::default()).await;
    server.set_accepts(1);
    let addr = server.local_addr();
    // The one connection allowed stays open (waiting for its preface).
    let _held = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    let err = h2_refusal(addr).await;
    eprintln!("h2 client: {err}");
    assert_eq!(err.reason(), Some(h2::Reason::REFUSED_STREAM), "{err}");
    assert!(err.is_go_away() && err.is_remote(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("this server has reached its limit of 1 open connections (accepts=1)"),
        "{text}"
    );

    if let Some(out) = tokio::task::block_in_place(|| nghttp(addr)) {
        eprintln!("{out}");
        assert!(out.contains("recv GOAWAY frame"), "{out}");
        assert!(out.contains("error_code=REFUSED_STREAM(0x07)"), "{out}");
        assert!(out.contains("(accepts=1)"), "{out}");
    }
    assert!(server.refused_connections() >= 1);
    server.shutdown(Duration::ZERO).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plaintext_on_a_tls_port_is_told_tls_is_required() {
    let dir = std::env::temp_dir().join(format!("dubbo-goaway-tls-{}", std::process::id()));
    let pki = TestPki::create(&dir).unwrap();
    let settings = ServerTlsSettings::new(&pki.server_cert, &pki.server_key);
    let config = TripleConfig {
        server_tls: Some(ServerTls::new(&settings, dubbo_protocol_triple::SERVER_ALPN).unwrap()),
        ..TripleConfig::default()
    };
    let server: TripleServer = start_server(config).await;
    let addr = server.local_addr();

    let err = h2_refusal(addr).await;
    eprintln!("h2 client: {err}");
    assert_eq!(err.reason(), Some(h2::Reason::INADEQUATE_SECURITY), "{err}");
    assert!(err.to_string().contains("this port requires TLS"), "{err}");

    if let Some(out) = tokio::task::block_in_place(|| nghttp(addr)) {
        eprintln!("{out}");
        assert!(
            out.contains("error_code=INADEQUATE_SECURITY(0x0c)"),
            "{out}"
        );
        assert!(out.contains("this port requires TLS"), "{out}");
    }
    server.shutdown(Duration::ZERO).await;
}
