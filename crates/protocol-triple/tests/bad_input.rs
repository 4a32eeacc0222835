//! Malformed input gets the right grpc-status, never a panic, and the connection and every
//! other stream on it stay healthy. Uses a raw h2 client to send what a correct client never
//! would, all on one connection next to a long-lived bidi stream.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use common::*;
use dubbo_protocol_triple::TripleConfig;
use h2::client::SendRequest;
use http::HeaderMap;
use prost::Message;

async fn raw_connection(addr: std::net::SocketAddr) -> SendRequest<Bytes> {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (send, conn) = h2::client::handshake(tcp).await.unwrap();
    tokio::spawn(async move {
        let _ = conn.await;
    });
    send
}

fn request(addr: std::net::SocketAddr, path: &str, extra: &[(&str, &str)]) -> http::Request<()> {
    let mut b = http::Request::builder()
        .method("POST")
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/grpc+proto")
        .header("te", "trailers");
    for (k, v) in extra {
        b = b.header(*k, *v);
    }
    b.body(()).unwrap()
}

/// Sends `body` as the whole request and returns (grpc-status, grpc-message, data received).
async fn raw_call(
    send: &SendRequest<Bytes>,
    req: http::Request<()>,
    body: Bytes,
) -> (String, String, usize) {
    let mut send = send.clone().ready().await.unwrap();
    let (resp, mut stream) = send.send_request(req, false).unwrap();
    stream.reserve_capacity(body.len());
    stream.send_data(body, true).unwrap();
    let resp = tokio::time::timeout(Duration::from_secs(5), resp)
        .await
        .unwrap()
        .unwrap();
    let (parts, mut body) = resp.into_parts();
    let mut data = 0;
    let mut trailers = HeaderMap::new();
    if !body.is_end_stream() {
        while let Some(chunk) = body.data().await {
            let chunk = chunk.unwrap();
            data += chunk.len();
            let _ = body.flow_control().release_capacity(chunk.len());
        }
        trailers = body.trailers().await.unwrap().unwrap_or_default();
    }
    let status_from = |h: &HeaderMap| h.get("grpc-status").map(|v| v.to_str().unwrap().to_owned());
    let status = status_from(&parts.headers)
        .or_else(|| status_from(&trailers))
        .unwrap_or_default();
    let message = parts
        .headers
        .get("grpc-message")
        .or_else(|| trailers.get("grpc-message"))
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, message, data)
}

fn frame(flags: u8, declared_len: u32, payload: &[u8]) -> Bytes {
    let mut b = BytesMut::new();
    b.put_u8(flags);
    b.put_u32(declared_len);
    b.put_slice(payload);
    b.freeze()
}

#[tokio::test]
async fn bad_input_gets_statuses_and_the_connection_survives() {
    let config = TripleConfig::default().with_max_message_size(1024 * 1024);
    let server = start_server(config).await;
    let url = dubbo_url::Url::parse(&format!("tri://127.0.0.1/{IFACE}?version=1.0.0")).unwrap();
    server.export_invoker(
        dubbo_core::ServiceKey::new(IFACE, None, Some("1.0.0")),
        interop_invoker(url),
    );
    let addr = server.local_addr();
    let send = raw_connection(addr).await;

    // A bidi stream that stays open across every bad request below.
    let mut ready = send.clone().ready().await.unwrap();
    let (bidi_resp, mut bidi_send) = ready
        .send_request(request(addr, &path("GreetBiStream"), &[]), false)
        .unwrap();
    let ping = |n: &str| {
        let m = GreeterRequest { name: n.into() }.encode_to_vec();
        frame(0, m.len() as u32, &m)
    };
    bidi_send.send_data(ping("first"), false).unwrap();
    let mut bidi_body = bidi_resp.await.unwrap().into_body();
    let first = bidi_body.data().await.unwrap().unwrap();
    assert_eq!(
        GreeterReply::decode(&first[5..]).unwrap().message,
        "Hello first"
    );

    let good = GreeterRequest { name: "ok".into() }.encode_to_vec();
    let cases: Vec<(&str, http::Request<()>, Bytes, &str)> = vec![
        (
            "reserved flag bits",
            request(addr, &path("Greet"), &[]),
            frame(0x02, good.len() as u32, &good),
            "13",
        ),
        (
            "message over the maximum",
            request(addr, &path("Greet"), &[]),
            frame(0, 2 * 1024 * 1024, &good),
            "8",
        ),
        (
            "invalid protobuf",
            request(addr, &path("Greet"), &[]),
            frame(0, 3, &[0xff, 0xff, 0xff]),
            "13",
        ),
        (
            "truncated frame",
            request(addr, &path("Greet"), &[]),
            frame(0, 100, b"short"),
            "13",
        ),
        (
            "compressed flag without grpc-encoding",
            request(addr, &path("Greet"), &[]),
            frame(1, good.len() as u32, &good),
            "13",
        ),
        (
            "gzip flag with garbage",
            request(addr, &path("Greet"), &[("grpc-encoding", "gzip")]),
            frame(1, 4, b"nope"),
            "13",
        ),
        (
            "unsupported grpc-encoding",
            request(addr, &path("Greet"), &[("grpc-encoding", "snappy")]),
            frame(0, good.len() as u32, &good),
            "12",
        ),
        (
            "unknown method",
            request(addr, &path("NoSuchMethod"), &[]),
            frame(0, good.len() as u32, &good),
            "12",
        ),
        (
            "unknown service",
            request(addr, "/no.such.Service/Greet", &[]),
            frame(0, good.len() as u32, &good),
            "12",
        ),
        (
            "bad path",
            request(addr, "/nomethod", &[]),
            frame(0, good.len() as u32, &good),
            "12",
        ),
        (
            "empty unary request",
            request(addr, &path("Greet"), &[]),
            Bytes::new(),
            "13",
        ),
        (
            "wrapper with unknown field on an interface path",
            request(
                addr,
                "/org.apache.dubbo.interop.InteropService/sayHello",
                &[],
            ),
            frame(0, 2, b"\x22\x00"),
            "13",
        ),
    ];
    for (name, req, body, want) in cases {
        let (status, message, _) = raw_call(&send, req, body).await;
        assert_eq!(status, want, "{name}: got grpc-status {status} ({message})");
    }

    // A well-formed call on the same connection still works...
    let (status, _, data) = raw_call(
        &send,
        request(addr, &path("Greet"), &[]),
        frame(0, good.len() as u32, &good),
    )
    .await;
    assert_eq!((status.as_str(), data > 5), ("0", true));
    // ...and so does the bidi stream opened before all of it.
    bidi_send.send_data(ping("second"), true).unwrap();
    let second = bidi_body.data().await.unwrap().unwrap();
    assert_eq!(
        GreeterReply::decode(&second[5..]).unwrap().message,
        "Hello second"
    );
    let trailers = bidi_body.trailers().await.unwrap().unwrap();
    assert_eq!(trailers.get("grpc-status").unwrap(), "0");
}

#[tokio::test]
async fn non_grpc_requests_on_h2() {
    let server = start_server(TripleConfig::default()).await;
    let addr = server.local_addr();
    let send = raw_connection(addr).await;
    let mut ready = send.clone().ready().await.unwrap();
    let req = http::Request::builder()
        .method("POST")
        .uri(format!("http://{addr}{}", path("Greet")))
        .header("content-type", "text/plain")
        .body(())
        .unwrap();
    let (resp, mut s) = ready.send_request(req, false).unwrap();
    s.send_data(Bytes::from_static(b"x"), true).unwrap();
    assert_eq!(resp.await.unwrap().status(), 415);
    let req = http::Request::builder()
        .method("GET")
        .uri(format!("http://{addr}{}", path("Greet")))
        .header("content-type", "application/grpc")
        .body(())
        .unwrap();
    let mut ready = send.clone().ready().await.unwrap();
    let (resp, _s) = ready.send_request(req, true).unwrap();
    assert_eq!(resp.await.unwrap().status(), 405);
}
