//! dubbo:// over TLS on 127.0.0.1: TLS and mutual TLS, port unification, refused peers, the
//! protocol's `ssl-enabled`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{
    invoker_fn, ErrorCode, ExportTable, Invocation, MethodSignature, Protocol, RpcResponse,
    ServiceKey, Value,
};
use dubbo_protocol_dubbo::{ClientConfig, DubboClient, DubboProtocol, DubboServer, ServerConfig};
use dubbo_tls::testing::TestPki;
use dubbo_tls::{ClientTls, ClientTlsSettings, ServerTls, ServerTlsSettings};
use dubbo_url::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const GREETER: &str = "org.example.Greeter";

fn pki(tag: &str) -> TestPki {
    let dir = std::env::temp_dir().join(format!("dubbo-tls-proto-{tag}-{}", std::process::id()));
    TestPki::create(&dir).unwrap()
}

fn exports() -> ExportTable {
    let exports = ExportTable::new();
    let url = Url::parse("dubbo://127.0.0.1:0/org.example.Greeter").unwrap();
    exports.insert(
        ServiceKey::interface_only(GREETER),
        Arc::new(invoker_fn(url, |inv: Invocation| async move {
            let args = inv.arg_values()?;
            let name = args
                .first()
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_owned();
            Ok(RpcResponse::new(Value::String(format!("Hello {name}"))))
        })),
    );
    exports
}

fn hello(name: &str) -> Invocation {
    let m = Arc::new(MethodSignature::new(
        "sayHello",
        &["java.lang.String"],
        "java.lang.String",
    ));
    Invocation::new(
        ServiceKey::interface_only(GREETER),
        m,
        vec![name.to_owned().into()],
    )
}

async fn server(settings: Option<ServerTlsSettings>) -> DubboServer {
    let config = ServerConfig {
        tls: settings.map(|s| ServerTls::new(&s, &[]).unwrap()),
        ..ServerConfig::default()
    };
    DubboServer::bind("127.0.0.1:0", config, exports())
        .await
        .unwrap()
}

fn client_config(tls: Option<ClientTlsSettings>) -> ClientConfig {
    ClientConfig {
        tls: tls.map(|s| ClientTls::new(&s, &[]).unwrap()),
        reconnect_backoff: Duration::from_millis(1),
        reconnect_backoff_max: Duration::from_millis(1),
        ..ClientConfig::default()
    }
}

async fn say(addr: &str, tls: Option<ClientTlsSettings>) -> Result<Value, dubbo_core::RpcError> {
    let client = DubboClient::connect(addr, client_config(tls)).await?;
    let reply = client.invoke(hello("tls")).await?;
    client.close();
    Ok(reply.value.to_value().unwrap())
}

#[tokio::test]
async fn calls_over_tls_and_plaintext_refused() {
    let p = pki("tls");
    let s = server(Some(ServerTlsSettings::new(&p.server_cert, &p.server_key))).await;
    let addr = s.local_addr().to_string();
    let trust = ClientTlsSettings::new(&p.ca);
    assert_eq!(
        say(&addr, Some(trust.clone())).await.unwrap(),
        Value::String("Hello tls".into())
    );
    // A plaintext consumer gets its connection closed: the call fails as a network error.
    let e = say(&addr, None).await.unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Network), "{e}");
    // Garbage on the port does not disturb the server.
    let mut raw = tokio::net::TcpStream::connect(&addr).await.unwrap();
    raw.write_all(&[0xde, 0xad, 0xbe, 0xef]).await.unwrap();
    let mut out = Vec::new();
    let _ = raw.read_to_end(&mut out).await;
    assert!(out.is_empty());
    assert_eq!(
        say(&addr, Some(trust)).await.unwrap(),
        Value::String("Hello tls".into())
    );
    s.close().await;
}

#[tokio::test]
async fn port_unification_serves_both_when_allowed() {
    let p = pki("optional");
    let settings =
        ServerTlsSettings::new(&p.server_cert, &p.server_key).with_plaintext_allowed(true);
    let s = server(Some(settings)).await;
    let addr = s.local_addr().to_string();
    assert_eq!(
        say(&addr, None).await.unwrap(),
        Value::String("Hello tls".into())
    );
    assert_eq!(
        say(&addr, Some(ClientTlsSettings::new(&p.ca)))
            .await
            .unwrap(),
        Value::String("Hello tls".into())
    );
    s.close().await;
}

#[tokio::test]
async fn mutual_tls_refuses_clients_without_a_certificate() {
    let p = pki("mtls");
    let settings = ServerTlsSettings::new(&p.server_cert, &p.server_key)
        .with_client_auth(&p.ca)
        .with_plaintext_allowed(true);
    let s = server(Some(settings)).await;
    let addr = s.local_addr().to_string();
    let with_cert = ClientTlsSettings::new(&p.ca).with_identity(&p.client_cert, &p.client_key);
    assert_eq!(
        say(&addr, Some(with_cert.clone())).await.unwrap(),
        Value::String("Hello tls".into())
    );
    // Without a certificate: TLS 1.3 finishes the client's side of the handshake before the
    // server checks the certificate, so the refusal shows on the first call.
    assert!(say(&addr, Some(ClientTlsSettings::new(&p.ca)))
        .await
        .is_err());
    assert!(say(&addr, None).await.is_err());
    assert_eq!(
        say(&addr, Some(with_cert)).await.unwrap(),
        Value::String("Hello tls".into())
    );
    s.close().await;
}

#[tokio::test]
async fn protocol_uses_tls_unless_the_url_turns_it_off() {
    let p = pki("protocol");
    let server = ServerTls::new(&ServerTlsSettings::new(&p.server_cert, &p.server_key), &[]).ok();
    let client = ClientTls::new(&ClientTlsSettings::new(&p.ca), &[]).ok();
    let provider = DubboProtocol::with_tls(server, None);
    let url = Url::parse("dubbo://127.0.0.1:0/org.example.Greeter?bind.port=0").unwrap();
    let invoker = exports().get(&ServiceKey::interface_only(GREETER)).unwrap();
    let exporter = provider.export(url, invoker).await.unwrap();
    let port = exporter.url().port();

    let consumer = DubboProtocol::with_tls(None, client);
    let refer = |q: &str| Url::parse(&format!("dubbo://127.0.0.1:{port}/{GREETER}?{q}")).unwrap();
    let inv = consumer.refer(refer("timeout=3000")).await.unwrap();
    let reply = inv.invoke(hello("tls")).await.unwrap();
    assert_eq!(
        reply.value.to_value().unwrap(),
        Value::String("Hello tls".into())
    );
    // `ssl-enabled=false` dials plaintext, which this port refuses.
    let plain = consumer
        .refer(refer("ssl-enabled=false&check=false&timeout=3000"))
        .await;
    let refused = match plain {
        Ok(inv) => inv.invoke(hello("x")).await.is_err(),
        Err(_) => true,
    };
    assert!(refused);
    // `ssl-enabled=true` without client TLS is a configuration error.
    let e = DubboProtocol::new()
        .refer(refer("ssl-enabled=true"))
        .await
        .err()
        .unwrap();
    assert_eq!(e.code(), Some(ErrorCode::Config), "{e}");
    assert!(
        e.message().contains("client-trust-cert-collection-path"),
        "{e}"
    );
    provider.shutdown(Duration::ZERO).await;
    consumer.shutdown(Duration::ZERO).await;
}

/// A TCP relay to `target` on 127.0.0.1 that counts the connections it accepts.
async fn counting_relay(target: String) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
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
    let s = server(Some(settings)).await;
    let (relay, connections) = counting_relay(s.local_addr().to_string()).await;
    // The default backoff: 100 ms, doubling, at most 3 s.
    let config = ClientConfig {
        tls: Some(ClientTls::new(&ClientTlsSettings::new(&p.ca), &[]).unwrap()),
        ..ClientConfig::default()
    };
    assert_eq!(config.reconnect_backoff, Duration::from_millis(100));
    // TLS 1.3 lets the client finish its handshake before the server refuses it: connecting
    // succeeds, each call fails.
    let client = DubboClient::connect(&relay, config).await.unwrap();
    let started = std::time::Instant::now();
    let mut calls = 0;
    while started.elapsed() < Duration::from_secs(1) {
        assert!(client.invoke(hello("no certificate")).await.is_err());
        calls += 1;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let opened = connections.load(std::sync::atomic::Ordering::SeqCst);
    // Attempts at about 0, 100, 300 and 700 ms; without the backoff one per call.
    assert!(
        (2..=6).contains(&opened),
        "{opened} connections for {calls} calls in a second"
    );
    assert!(calls > 50, "calls fail at once while waiting: {calls}");
    client.close();
    s.close().await;
}
