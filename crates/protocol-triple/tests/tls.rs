//! Triple over TLS on 127.0.0.1: gRPC with ALPN `h2`, the HTTP/1.1 JSON form with ALPN
//! `http/1.1`, mutual TLS, plaintext refused or allowed.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use dubbo_core::ServiceKey;
use dubbo_protocol_triple::{Request, Response, TripleChannel, TripleClient, TripleConfig};
use dubbo_tls::testing::TestPki;
use dubbo_tls::{ClientTls, ClientTlsSettings, ServerTls, ServerTlsSettings};
use dubbo_url::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn pki(tag: &str) -> TestPki {
    let dir = std::env::temp_dir().join(format!("dubbo-tls-tri-{tag}-{}", std::process::id()));
    TestPki::create(&dir).unwrap()
}

async fn tls_server(settings: ServerTlsSettings) -> dubbo_protocol_triple::TripleServer {
    let config = TripleConfig {
        server_tls: Some(ServerTls::new(&settings, dubbo_protocol_triple::SERVER_ALPN).unwrap()),
        ..TripleConfig::default()
    };
    let server = start_server(config).await;
    let url = Url::parse(&format!("tri://127.0.0.1/{IFACE}?version=1.0.0")).unwrap();
    server.export_invoker(
        ServiceKey::new(IFACE, None, Some("1.0.0")),
        interop_invoker(url),
    );
    server
}

async fn greet(addr: &str, tls: Option<ClientTlsSettings>) -> Result<String, String> {
    let config = TripleConfig {
        client_tls: tls.map(|s| ClientTls::new(&s, dubbo_protocol_triple::CLIENT_ALPN).unwrap()),
        reconnect_backoff: Duration::from_millis(1),
        reconnect_backoff_max: Duration::from_millis(1),
        ..TripleConfig::default()
    };
    let channel = TripleChannel::connect(addr, config)
        .await
        .map_err(|e| e.message().to_owned())?;
    let client = TripleClient::new(channel).with_timeout(Duration::from_secs(3));
    let reply: Response<GreeterReply> = client
        .unary(
            &path("Greet"),
            Request::new(GreeterRequest { name: "tls".into() }),
        )
        .await
        .map_err(|e| e.message().to_owned())?;
    Ok(reply.into_inner().message)
}

/// POSTs the JSON form over TLS with ALPN `http/1.1` (or none); returns status and body.
async fn json_over_tls(addr: &str, ca: &std::path::Path, alpn: &[&[u8]]) -> (u16, String) {
    let client = ClientTls::new(&ClientTlsSettings::new(ca), alpn).unwrap();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut s = client.connect(addr, tcp).await.unwrap();
    let body = r#"["world"]"#;
    let req = format!(
        "POST /{IFACE}/sayHello HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out).into_owned();
    let status: u16 = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (
        status,
        text.split("\r\n\r\n").nth(1).unwrap_or("").to_owned(),
    )
}

#[tokio::test]
async fn grpc_and_json_over_tls() {
    let p = pki("both");
    let server = tls_server(ServerTlsSettings::new(&p.server_cert, &p.server_key)).await;
    let addr = server.local_addr().to_string();
    assert_eq!(
        greet(&addr, Some(ClientTlsSettings::new(&p.ca)))
            .await
            .unwrap(),
        "Hello tls"
    );
    let (st, body) = json_over_tls(&addr, &p.ca, &[dubbo_tls::ALPN_HTTP1]).await;
    assert_eq!((st, body.as_str()), (200, r#""Hello world""#));
    // No ALPN at all (as Java's TLS clients dial): told apart by the first bytes.
    let (st, _) = json_over_tls(&addr, &p.ca, &[]).await;
    assert_eq!(st, 200);
    // Plaintext is refused while TLS is on.
    assert!(greet(&addr, None).await.is_err());
    server.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn plaintext_allowed_beside_tls() {
    let p = pki("optional");
    let settings =
        ServerTlsSettings::new(&p.server_cert, &p.server_key).with_plaintext_allowed(true);
    let server = tls_server(settings).await;
    let addr = server.local_addr().to_string();
    assert_eq!(greet(&addr, None).await.unwrap(), "Hello tls");
    assert_eq!(
        greet(&addr, Some(ClientTlsSettings::new(&p.ca)))
            .await
            .unwrap(),
        "Hello tls"
    );
    server.shutdown(Duration::ZERO).await;
}

#[tokio::test]
async fn mutual_tls_on_the_triple_port() {
    let p = pki("mtls");
    let settings = ServerTlsSettings::new(&p.server_cert, &p.server_key).with_client_auth(&p.ca);
    let server = tls_server(settings).await;
    let addr = server.local_addr().to_string();
    let with_cert = ClientTlsSettings::new(&p.ca).with_identity(&p.client_cert, &p.client_key);
    assert_eq!(
        greet(&addr, Some(with_cert.clone())).await.unwrap(),
        "Hello tls"
    );
    assert!(greet(&addr, Some(ClientTlsSettings::new(&p.ca)))
        .await
        .is_err());
    assert!(greet(&addr, None).await.is_err());
    assert_eq!(greet(&addr, Some(with_cert)).await.unwrap(), "Hello tls");
    server.shutdown(Duration::ZERO).await;
}

/// A TCP relay to `target` on 127.0.0.1 that counts the connections it accepts.
async fn counting_relay(target: String) -> (String, std::sync::Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let target = target.clone();
            tokio::spawn(async move {
                if let Ok(mut outbound) = tokio::net::TcpStream::connect(&target).await {
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                }
            });
        }
    });
    (addr, count)
}

#[tokio::test]
async fn a_client_refused_by_mutual_tls_backs_off_between_connections() {
    let p = pki("mtls-loop");
    let settings = ServerTlsSettings::new(&p.server_cert, &p.server_key).with_client_auth(&p.ca);
    let server = tls_server(settings).await;
    let (relay, connections) = counting_relay(server.local_addr().to_string()).await;
    // The default backoff: 100 ms, doubling, at most 3 s.
    let config = TripleConfig {
        client_tls: Some(
            ClientTls::new(
                &ClientTlsSettings::new(&p.ca),
                dubbo_protocol_triple::CLIENT_ALPN,
            )
            .unwrap(),
        ),
        ..TripleConfig::default()
    };
    assert_eq!(config.reconnect_backoff, Duration::from_millis(100));
    // TLS 1.3 and HTTP/2 let the client finish its handshakes before the server refuses it:
    // connecting succeeds, each call fails.
    let channel = TripleChannel::connect(relay, config).await.unwrap();
    let client = TripleClient::new(channel).with_timeout(Duration::from_secs(3));
    let started = std::time::Instant::now();
    let mut calls = 0;
    while started.elapsed() < Duration::from_secs(1) {
        let reply: Result<Response<GreeterReply>, _> = client
            .unary(
                &path("Greet"),
                Request::new(GreeterRequest { name: "x".into() }),
            )
            .await;
        assert!(reply.is_err());
        calls += 1;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let opened = connections.load(Ordering::SeqCst);
    // Attempts at about 0, 100, 300 and 700 ms; without the backoff one per call.
    assert!(
        (2..=6).contains(&opened),
        "{opened} connections for {calls} calls in a second"
    );
    assert!(calls > 50, "calls fail at once while waiting: {calls}");
    server.shutdown(Duration::ZERO).await;
}

/// Over TLS an HTTP/1.1 request's scheme is https: a page of the server's own https origin
/// is not a CORS request (no CORS header, not refused), while the same host over http is.
#[tokio::test]
async fn same_origin_over_tls_is_https() {
    let p = pki("cors");
    let settings = ServerTlsSettings::new(&p.server_cert, &p.server_key);
    let config = TripleConfig {
        server_tls: Some(ServerTls::new(&settings, dubbo_protocol_triple::SERVER_ALPN).unwrap()),
        rest_cors: dubbo_protocol_triple::CorsSettings {
            allowed_origins: vec!["https://app.example".into()],
            ..Default::default()
        }
        .policy()
        .unwrap(),
        ..TripleConfig::default()
    };
    let server = start_server(config).await;
    let url = Url::parse(&format!("tri://127.0.0.1/{IFACE}?version=1.0.0")).unwrap();
    server.export_invoker(
        ServiceKey::new(IFACE, None, Some("1.0.0")),
        interop_invoker(url),
    );
    let addr = server.local_addr().to_string();
    let send = |origin: String| {
        let addr = addr.clone();
        let ca = p.ca.clone();
        async move {
            let client =
                ClientTls::new(&ClientTlsSettings::new(&ca), &[dubbo_tls::ALPN_HTTP1]).unwrap();
            let tcp = tokio::net::TcpStream::connect(&addr).await.unwrap();
            let mut s = client.connect(&addr, tcp).await.unwrap();
            let req = format!(
                "GET /{IFACE}/sayHello?name=tls HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\nConnection: close\r\n\r\n"
            );
            s.write_all(req.as_bytes()).await.unwrap();
            let mut out = Vec::new();
            let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await;
            String::from_utf8_lossy(&out).to_ascii_lowercase()
        }
    };
    let own = send(format!("https://{addr}")).await;
    assert!(own.starts_with("http/1.1 200"), "{own}");
    assert!(!own.contains("access-control-allow-origin"), "{own}");
    let other = send(format!("http://{addr}")).await;
    assert!(other.starts_with("http/1.1 403"), "{other}");
    server.shutdown(Duration::ZERO).await;
}
