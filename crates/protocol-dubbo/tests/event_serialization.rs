//! Heartbeats and events are written in the connection's first serialization, as Java 3.2/3.3
//! write them (`CodecSupport.getSerialization(channel URL)`): a client's heartbeats in its
//! reference's `prefer.serialization` (then `serialization`, else Hessian 2), a server's
//! readonly event in its port's. Seen on the wire by a raw socket at the other end.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_core::ExportTable;
use dubbo_protocol_dubbo::body::{decode_event, EventData};
use dubbo_protocol_dubbo::{ClientConfig, DubboClient, DubboServer, ServerConfig};
use dubbo_url::Url;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};

/// The next frame on `socket`: its flag byte and its body.
async fn next_frame(socket: &mut TcpStream) -> (u8, Vec<u8>) {
    let mut header = [0u8; 16];
    tokio::time::timeout(Duration::from_secs(5), socket.read_exact(&mut header))
        .await
        .expect("a frame within 5 s")
        .unwrap();
    assert_eq!(&header[..2], &[0xda, 0xbb]);
    let len = u32::from_be_bytes([header[12], header[13], header[14], header[15]]) as usize;
    let mut body = vec![0u8; len];
    socket.read_exact(&mut body).await.unwrap();
    (header[2], body)
}

fn url(query: &str) -> Url {
    Url::parse(&format!(
        "dubbo://127.0.0.1:20880/org.example.Greeter?{query}"
    ))
    .unwrap()
}

/// The flag byte and body of the first heartbeat a client of a reference with `query` sends.
async fn client_heartbeat(query: &str) -> (u8, Vec<u8>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let config = ClientConfig::from_url(&url(&format!("heartbeat=100&{query}")));
    let client = DubboClient::connect(&addr, config).await.unwrap();
    let (mut socket, _) = listener.accept().await.unwrap();
    let frame = next_frame(&mut socket).await;
    client.close();
    frame
}

/// The flag byte and body of the readonly event a server exported with `query` sends.
async fn server_readonly(query: &str) -> (u8, Vec<u8>) {
    let config = ServerConfig::from_url(&url(query));
    let server = DubboServer::bind("127.0.0.1:0", config, ExportTable::new())
        .await
        .unwrap();
    let mut socket = TcpStream::connect(server.local_addr()).await.unwrap();
    // The server has the connection once it answers; until then the event may miss it.
    let mut frame = None;
    for _ in 0..100 {
        server.send_readonly();
        if let Ok(f) =
            tokio::time::timeout(Duration::from_millis(50), next_frame(&mut socket)).await
        {
            frame = Some(f);
            break;
        }
    }
    server.close().await;
    frame.expect("a readonly event")
}

#[tokio::test]
async fn client_heartbeats_follow_the_references_first_serialization() {
    // Two-way event request (0x80 | 0x40 | 0x20) in fastjson2 (23): Java 3.2's default
    // preference, fastjson2 first.
    let (flag, body) = client_heartbeat("prefer.serialization=fastjson2,hessian2").await;
    assert_eq!(flag, 0xe0 | 23);
    assert_eq!(decode_event(23, &body).unwrap(), EventData::Heartbeat);
    let (flag, _) = client_heartbeat("serialization=fastjson2").await;
    assert_eq!(flag, 0xe0 | 23);
    // Hessian 2 first, or nothing said: Hessian 2.
    let (flag, body) = client_heartbeat("prefer.serialization=hessian2,fastjson2").await;
    assert_eq!((flag, body), (0xe2, vec![0x4e]));
    let (flag, _) = client_heartbeat("").await;
    assert_eq!(flag, 0xe2);
}

#[tokio::test]
async fn server_readonly_events_follow_the_ports_first_serialization() {
    // One-way event request (0x80 | 0x20) in fastjson2 (23).
    let (flag, body) = server_readonly("prefer.serialization=fastjson2,hessian2").await;
    assert_eq!(flag, 0xa0 | 23);
    assert_eq!(decode_event(23, &body).unwrap(), EventData::ReadOnly);
    let (flag, body) = server_readonly("prefer.serialization=hessian2,fastjson2").await;
    assert_eq!((flag, body), (0xa2, vec![0x01, 0x52]));
}
