//! Helpers shared by the integration tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use dubbo_rs::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// `GET path` on `app`'s QoS port: the status code and the body.
pub async fn qos_get(app: &Application, path: &str) -> (u16, String) {
    qos_request(app, "GET", path, "").await
}

/// `method path` with a form `body` on `app`'s QoS port: the status code and the body.
pub async fn qos_request(app: &Application, method: &str, path: &str, body: &str) -> (u16, String) {
    let addr = app.qos_address().expect("QoS is on");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).await.unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).await.unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap();
    (status, body)
}
