//! Helpers shared by the integration tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use dubbo_rs::prelude::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Exports `handler` on `app`'s protocols with default options; the URLs it is served at.
pub async fn export<H: dubbo_rs::core::ServiceHandler>(
    app: &Application,
    handler: H,
) -> Vec<dubbo_rs::url::Url> {
    app.default_module()
        .export(handler, ServiceOptions::new())
        .await
        .unwrap()
}

/// A reference from `app` to `org.example.Echo` at the dubbo:// `url` of an export (direct,
/// no registry), with a 5 s timeout.
pub async fn refer_echo(app: &Application, url: &dubbo_rs::url::Url) -> Reference {
    app.default_module()
        .refer(
            ReferenceOptions::new("org.example.Echo")
                .url(format!("dubbo://127.0.0.1:{}", url.port()))
                .timeout(std::time::Duration::from_secs(5)),
        )
        .await
        .unwrap()
}

/// `GET path` on `app`'s QoS port: the status code and the body.
pub async fn qos_get(app: &Application, path: &str) -> (u16, String) {
    qos_request(app, "GET", path, "").await
}

/// `method path` with a form `body` on `app`'s QoS port: the status code and the body.
pub async fn qos_request(app: &Application, method: &str, path: &str, body: &str) -> (u16, String) {
    let addr = app.qos_address().expect("QoS is on");
    qos_request_at(addr, method, path, body).await
}

/// `method path` with a form `body` on the QoS port at `addr`: the status code and the body.
pub async fn qos_request_at(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    body: &str,
) -> (u16, String) {
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

/// A telnet session on a QoS port, read up to each `dubbo>` prompt.
pub struct QosTelnet {
    stream: tokio::net::TcpStream,
}

impl QosTelnet {
    /// Connects to `addr` and returns the session and what came before the first prompt (the
    /// banner, sent after half a second of silence).
    pub async fn connect(addr: std::net::SocketAddr) -> (Self, String) {
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut session = Self { stream };
        let banner = session.until_prompt().await;
        (session, banner)
    }

    /// Sends `line` and returns the answer, without the prompt that ends it.
    pub async fn run(&mut self, line: &str) -> String {
        self.send(line).await;
        self.until_prompt().await
    }

    /// Sends `line` and a line end.
    pub async fn send(&mut self, line: &str) {
        self.stream
            .write_all(format!("{line}\r\n").as_bytes())
            .await
            .unwrap();
    }

    /// Everything until the connection closes.
    pub async fn rest(&mut self) -> String {
        let mut bytes = Vec::new();
        tokio::time::timeout(
            std::time::Duration::from_secs(10),
            self.stream.read_to_end(&mut bytes),
        )
        .await
        .expect("the server closes the session")
        .unwrap();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    async fn until_prompt(&mut self) -> String {
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 4096];
        while !bytes.ends_with(b"dubbo>") {
            let n = tokio::time::timeout(
                std::time::Duration::from_secs(10),
                self.stream.read(&mut chunk),
            )
            .await
            .unwrap_or_else(|_| panic!("no prompt after {:?}", String::from_utf8_lossy(&bytes)))
            .unwrap();
            assert!(
                n > 0,
                "closed before a prompt: {:?}",
                String::from_utf8_lossy(&bytes)
            );
            bytes.extend_from_slice(&chunk[..n]);
        }
        bytes.truncate(bytes.len() - "dubbo>".len());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// A throw-away directory (a file registry's, a config centre's) removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    /// A new empty directory whose name says what it is for.
    pub fn new(tag: &str) -> Self {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = std::env::temp_dir().join(format!("dubbo-rs-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    /// The directory's path.
    pub fn path(&self) -> String {
        self.0.display().to_string()
    }

    /// The `file://` URL of the registry (and config centre) kept in the directory.
    pub fn url(&self) -> String {
        format!("file://{}", self.path())
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
