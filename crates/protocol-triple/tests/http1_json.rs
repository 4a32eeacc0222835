//! The HTTP/1.1 JSON form on the Triple port, with a raw TCP client; gRPC on the same port.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use dubbo_core::ServiceKey;
use dubbo_protocol_triple::{Request, Response, TripleConfig};
use dubbo_url::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn http(addr: std::net::SocketAddr, req: &str) -> (u16, String) {
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let status: u16 = text[9..12].parse().unwrap();
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
    (status, body)
}

fn post(path: &str, body: &str, extra: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[tokio::test]
async fn json_calls_and_errors_on_the_grpc_port() {
    let server = start_server(TripleConfig::default()).await;
    let url = Url::parse(&format!("tri://127.0.0.1/{IFACE}?version=1.0.0")).unwrap();
    server.export_invoker(
        ServiceKey::new(IFACE, None, Some("1.0.0")),
        interop_invoker(url),
    );
    let addr = server.local_addr();

    let (st, body) = http(
        addr,
        &post(&format!("/{IFACE}/sayHello"), r#"["world"]"#, ""),
    )
    .await;
    assert_eq!((st, body.as_str()), (200, r#""Hello world""#));

    let (st, body) = http(
        addr,
        &post(&format!("/{IFACE}/addInt"), "[2147483647, 1]", ""),
    )
    .await;
    assert_eq!((st, body.as_str()), (200, "-2147483648"));

    // Version selected by header; a version nobody exports is 404.
    let (st, _) = http(
        addr,
        &post(
            &format!("/{IFACE}/sayHello"),
            r#"["v"]"#,
            "tri-service-version: 1.0.0\r\n",
        ),
    )
    .await;
    assert_eq!(st, 200);
    let (st, body) = http(
        addr,
        &post(
            &format!("/{IFACE}/sayHello"),
            r#"["v"]"#,
            "tri-service-version: 9.9.9\r\n",
        ),
    )
    .await;
    assert_eq!(st, 404, "{body}");

    // Business exception: 500 with the message and class.
    let (st, body) = http(addr, &post(&format!("/{IFACE}/fail"), r#"["boom"]"#, "")).await;
    assert_eq!(st, 500);
    let j: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(j["message"], "boom");
    assert_eq!(j["exception"], "java.lang.IllegalStateException");
    assert_eq!(j["status"], "500");

    // Unknown method, bad JSON, wrong content type.
    let (st, _) = http(addr, &post(&format!("/{IFACE}/nope"), "[]", "")).await;
    assert_eq!(st, 404);
    let (st, _) = http(addr, &post(&format!("/{IFACE}/sayHello"), "[oops", "")).await;
    assert_eq!(st, 400);
    let req = format!(
        "POST /{IFACE}/sayHello HTTP/1.1\r\nHost: t\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"
    );
    let (st, _) = http(addr, &req).await;
    assert_eq!(st, 415);

    // The same port still speaks gRPC.
    let client = client_for(&server).await;
    let r: Response<GreeterReply> = client
        .unary(
            &path("Greet"),
            Request::new(GreeterRequest { name: "h2".into() }),
        )
        .await
        .unwrap();
    assert_eq!(r.get_ref().message, "Hello h2");
    server.shutdown(Duration::from_secs(1)).await;
}
