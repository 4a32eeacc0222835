//! How a dubbo:// server over TLS logs the end of a connection, with `openssl s_client` as the
//! consumer: an ordinary close (s_client stopped, so its socket ends without a TLS
//! `close_notify`, or s_client ending cleanly) is a debug line, not a warning; bytes that are not
//! dubbo:// still are a warning.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::ExportTable;
use dubbo_protocol_dubbo::{DubboServer, ServerConfig};
use dubbo_tls::testing::TestPki;
use dubbo_tls::{ServerTls, ServerTlsSettings};
use tokio::io::AsyncWriteExt;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

type Lines = Arc<Mutex<Vec<(Level, String)>>>;

/// Keeps every event of this thread as its level and its fields.
struct Capture(Lines);

struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, "{}={:?} ", field.name(), value);
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0
            .lock()
            .unwrap()
            .push((*event.metadata().level(), fields.0));
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn s_client_command(addr: &str, ca: &std::path::Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new("openssl");
    command
        .args(["s_client", "-connect", addr, "-CAfile"])
        .arg(ca)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    command
}

const NEED_OPENSSL: &str = "openssl s_client (the openssl command) is needed by this test";

/// `openssl s_client` connected to `addr`, sending `input` after the handshake, then ending at
/// the end of its input (with a TLS `close_notify`).
async fn s_client(addr: &str, ca: &std::path::Path, input: &[u8]) {
    let mut child = s_client_command(addr, ca).spawn().expect(NEED_OPENSSL);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input).await.unwrap();
    drop(stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("s_client ends")
        .unwrap();
    assert!(status.success(), "s_client: {status}");
}

/// `openssl s_client` connected to `addr` and stopped (as with Ctrl-C) once the handshake is
/// done: its socket closes with no TLS `close_notify`.
async fn s_client_stopped(addr: &str, ca: &std::path::Path, lines: &Lines) {
    let mut child = s_client_command(addr, ca).spawn().expect(NEED_OPENSSL);
    let handshakes = |lines: &Lines| {
        lines
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, l)| l.contains("TLS handshake done"))
            .count()
    };
    let before = handshakes(lines);
    for _ in 0..250 {
        if handshakes(lines) > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(handshakes(lines) > before, "no handshake: {lines:#?}");
    child.kill().await.unwrap();
}

/// Waits until `lines` holds `n` "connection closed" lines.
async fn closes(lines: &Lines, n: usize) {
    for _ in 0..250 {
        let seen = lines
            .lock()
            .unwrap()
            .iter()
            // The server's last word on a connection, however it ended.
            .filter(|(_, l)| l.contains("message=connection closed ") && !l.contains("closed by"))
            .count();
        if seen >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server did not log {n} closed connections: {lines:#?}");
}

fn warnings(lines: &Lines) -> Vec<String> {
    lines
        .lock()
        .unwrap()
        .iter()
        .filter(|(level, _)| *level <= Level::WARN)
        .map(|(_, l)| l.clone())
        .collect()
}

// One thread: the server's tasks run where the subscriber is set.
#[tokio::test(flavor = "current_thread")]
async fn an_ordinary_tls_close_is_not_a_warning_and_bad_data_still_is() {
    let lines: Lines = Arc::default();
    let _guard = tracing::subscriber::set_default(Capture(lines.clone()));
    let dir = std::env::temp_dir().join(format!("dubbo-tls-closes-{}", std::process::id()));
    let p = TestPki::create(&dir).unwrap();
    let settings = ServerTlsSettings::new(&p.server_cert, &p.server_key);
    let config = ServerConfig {
        tls: Some(ServerTls::new(&settings, &[]).unwrap()),
        ..ServerConfig::default()
    };
    let server = DubboServer::bind("127.0.0.1:0", config, ExportTable::new())
        .await
        .unwrap();
    let addr = server.local_addr().to_string();

    // Handshake, nothing sent, stopped: the socket closes without a `close_notify`.
    s_client_stopped(&addr, &p.ca, &lines).await;
    closes(&lines, 1).await;
    // Handshake, nothing sent, the end of input: s_client closes the connection cleanly.
    s_client(&addr, &p.ca, b"").await;
    closes(&lines, 2).await;
    assert_eq!(warnings(&lines), Vec::<String>::new());
    assert!(
        lines
            .lock()
            .unwrap()
            .iter()
            .any(|(level, l)| *level == Level::DEBUG
                && l.contains("connection closed by consumer")
                && l.contains("close_notify")),
        "the stopped client's close is logged: {lines:#?}"
    );

    // Text instead of dubbo:// frames is worth a warning.
    s_client(&addr, &p.ca, b"hello, not dubbo\n").await;
    closes(&lines, 3).await;
    let warned = warnings(&lines);
    assert!(
        warned.len() == 1 && warned[0].contains("bad data from consumer"),
        "{warned:#?}"
    );
    server.close().await;
}
