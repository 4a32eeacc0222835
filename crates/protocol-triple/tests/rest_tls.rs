//! The `rest://` client over TLS against a Triple port serving TLS (certificates made by the
//! test): `https` by default once the protocol has client TLS, over HTTP/1.1 and HTTP/2 (ALPN);
//! `ssl-enabled=false` dials plaintext (refused by the TLS port); a server certificate of a
//! CA the client does not trust is refused; `ssl-enabled=true` without client TLS is refused
//! at refer.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::*;
use dubbo_core::{
    ErrorCode, Invocation, Invoker, MethodSignature, Payload, Protocol, ServiceKey, Value,
};
use dubbo_protocol_triple::{RestProtocol, TripleConfig};
use dubbo_tls::testing::TestPki;
use dubbo_tls::{ClientTls, ClientTlsSettings, ServerTls, ServerTlsSettings};
use dubbo_url::Url;

fn pki(tag: &str) -> TestPki {
    let dir = std::env::temp_dir().join(format!("dubbo-rest-tls-{tag}-{}", std::process::id()));
    TestPki::create(&dir).unwrap()
}

fn say_hello() -> Invocation {
    let key = ServiceKey::new(IFACE, None, Some("1.0.0"));
    let sig = Arc::new(MethodSignature::new(
        "sayHello",
        &["java.lang.String"],
        "java.lang.String",
    ));
    Invocation::new(key, sig, vec![Value::String("tls".into())])
}

async fn call(protocol: &RestProtocol, url: &str) -> Result<Payload, dubbo_core::RpcError> {
    let invoker = protocol.refer(Url::parse(url).unwrap()).await?;
    invoker.invoke(say_hello()).await.map(|r| r.value)
}

#[tokio::test]
async fn https_with_the_clients_tls() {
    let p = pki("ok");
    let other = pki("other");
    let settings = ServerTlsSettings::new(&p.server_cert, &p.server_key);
    let server = start_server(TripleConfig {
        server_tls: Some(ServerTls::new(&settings, dubbo_protocol_triple::SERVER_ALPN).unwrap()),
        ..TripleConfig::default()
    })
    .await;
    let url = Url::parse(&format!("tri://127.0.0.1/{IFACE}?version=1.0.0")).unwrap();
    server.export_invoker(
        ServiceKey::new(IFACE, None, Some("1.0.0")),
        interop_invoker(url),
    );
    let port = server.local_addr().port();
    let base = format!("rest://127.0.0.1:{port}/{IFACE}?version=1.0.0");

    let tls = ClientTls::new(&ClientTlsSettings::new(&p.ca), &[]).unwrap();
    let protocol = RestProtocol::with_tls(Some(tls));
    let hello = Value::String("Hello tls".into());
    assert_eq!(call(&protocol, &base).await.unwrap(), hello);
    assert_eq!(
        call(&protocol, &format!("{base}&client=h2c"))
            .await
            .unwrap(),
        hello
    );
    // Plaintext on demand, which the TLS port refuses.
    let e = call(&protocol, &format!("{base}&ssl-enabled=false"))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Network), "{e}");

    // A client trusting another CA refuses the server's certificate (the test CAs share a
    // name, so rustls finds the issuer and reports its signature as wrong).
    let wrong = ClientTls::new(&ClientTlsSettings::new(&other.ca), &[]).unwrap();
    let e = call(&RestProtocol::with_tls(Some(wrong)), &base)
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Network), "{e}");
    assert!(e.message().contains("invalid peer certificate"), "{e}");

    // No client TLS: plaintext, refused; asking for TLS fails at refer.
    let plain = RestProtocol::new();
    assert!(call(&plain, &base).await.is_err());
    let Err(e) = plain
        .refer(Url::parse(&format!("{base}&ssl-enabled=true")).unwrap())
        .await
    else {
        panic!("ssl-enabled=true without client TLS was referred")
    };
    assert_eq!(e.code(), Some(ErrorCode::Config), "{e}");
    assert!(
        e.message()
            .contains("dubbo.ssl.client-trust-cert-collection-path"),
        "{e}"
    );
}
