//! A real etcd server on 127.0.0.1 for the tests, killed on drop, plus raw access to it
//! through etcd's JSON gateway (to plant garbage, read exact keys, revoke leases).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use dubbo_registry::{Notification, NotifyListener};
use dubbo_url::Url;

const ETCD: &str = "/usr/bin/etcd";

/// One etcd member on free loopback ports with its own data directory.
pub struct Etcd {
    pub port: u16,
    peer_port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

/// Starts etcd, or returns None (after saying why) when it is not installed, unless
/// DUBBO_RS_REQUIRE_PEERS=1 makes that a failure.
pub fn etcd() -> Option<Etcd> {
    if !std::path::Path::new(ETCD).exists() {
        if std::env::var("DUBBO_RS_REQUIRE_PEERS").as_deref() == Ok("1") {
            panic!("{ETCD} is missing and DUBBO_RS_REQUIRE_PEERS=1 (install Debian's etcd-server)");
        }
        eprintln!("SKIP: {ETCD} is missing (Debian package etcd-server); etcd tests not run");
        return None;
    }
    let dir = std::env::temp_dir().join(format!(
        "dubbo-rs-etcd-{}-{}",
        std::process::id(),
        free_port()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut etcd = Etcd {
        port: free_port(),
        peer_port: free_port(),
        dir,
        child: None,
    };
    etcd.start();
    Some(etcd)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Etcd {
    /// Starts the server (again, on the same ports and data) and waits until it serves.
    pub fn start(&mut self) {
        assert!(self.child.is_none());
        let client = format!("http://127.0.0.1:{}", self.port);
        let peer = format!("http://127.0.0.1:{}", self.peer_port);
        let child = Command::new(ETCD)
            .args(["--name", "default"])
            .args(["--listen-client-urls", &client])
            .args(["--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer])
            .args(["--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &format!("default={peer}")])
            .arg("--data-dir")
            .arg(self.dir.join("data"))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(self.dir.join("etcd.log")).unwrap())
            .spawn()
            .unwrap();
        self.child = Some(child);
        // Generous: on a loaded two-core machine etcd can take a while to elect itself.
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if self
                .try_gateway("/v3/kv/range", r#"{"key":"AA=="}"#)
                .is_ok()
            {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let log = std::fs::read_to_string(self.dir.join("etcd.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        panic!(
            "etcd did not start; the end of its log:\n{}",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }

    /// Kills the server (SIGKILL: no goodbye to clients).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// The registry URL of this server with extra parameters.
    pub fn url(&self, scheme: &str, query: &str) -> Url {
        let q = if query.is_empty() {
            String::new()
        } else {
            format!("?{query}")
        };
        Url::parse(&format!("{scheme}://127.0.0.1:{}{q}", self.port)).unwrap()
    }

    fn try_gateway(&self, path: &str, body: &str) -> std::io::Result<serde_json::Value> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port))?;
        s.set_read_timeout(Some(Duration::from_secs(5)))?;
        write!(
            s,
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )?;
        let mut response = String::new();
        s.read_to_string(&mut response)?;
        let (head, body) = response
            .split_once("\r\n\r\n")
            .ok_or_else(|| std::io::Error::other("no HTTP body"))?;
        if !head.starts_with("HTTP/1.1 200") {
            return Err(std::io::Error::other(head.to_owned()));
        }
        serde_json::from_str(body).map_err(std::io::Error::other)
    }

    fn gateway(&self, path: &str, body: serde_json::Value) -> serde_json::Value {
        self.try_gateway(path, &body.to_string()).unwrap()
    }

    /// Writes `key` = `value` directly (no lease).
    pub fn put(&self, key: &str, value: &str) {
        self.gateway(
            "/v3/kv/put",
            serde_json::json!({"key": b64(key), "value": b64(value)}),
        );
    }

    /// Every key (and value) starting with `prefix`.
    pub fn keys(&self, prefix: &str) -> Vec<(String, String)> {
        let mut end = prefix.as_bytes().to_vec();
        *end.last_mut().unwrap() += 1;
        let r = self.gateway(
            "/v3/kv/range",
            serde_json::json!({"key": b64(prefix), "range_end": base64::engine::general_purpose::STANDARD.encode(end)}),
        );
        r["kvs"]
            .as_array()
            .map(|kvs| {
                kvs.iter()
                    .map(|kv| {
                        (
                            unb64(kv["key"].as_str().unwrap()),
                            unb64(kv["value"].as_str().unwrap_or("")),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The ids of every live lease.
    pub fn leases(&self) -> Vec<String> {
        let r = self.gateway("/v3/lease/leases", serde_json::json!({}));
        r["leases"]
            .as_array()
            .map(|l| {
                l.iter()
                    .map(|x| x["ID"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Revokes a lease from outside, as an operator or a lost server would.
    pub fn revoke(&self, id: &str) {
        self.gateway("/v3/lease/revoke", serde_json::json!({"ID": id}));
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn unb64(s: &str) -> String {
    String::from_utf8(base64::engine::general_purpose::STANDARD.decode(s).unwrap()).unwrap()
}

/// Waits up to `secs` for `check`.
pub async fn eventually(secs: u64, what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out after {secs} s waiting for: {what}");
}

/// Records every notification.
#[derive(Default, Clone)]
pub struct Recorder {
    pub seen: Arc<Mutex<Vec<Notification>>>,
}

impl Recorder {
    pub fn listener(&self) -> Arc<dyn NotifyListener> {
        let seen = Arc::clone(&self.seen);
        Arc::new(move |n: Notification| seen.lock().unwrap().push(n))
    }

    /// The URLs (as full strings) of the last push.
    pub fn last(&self) -> Option<Vec<String>> {
        self.seen
            .lock()
            .unwrap()
            .last()
            .map(|n| n.urls.iter().map(|u| u.to_full_string()).collect())
    }

    pub fn count(&self) -> usize {
        self.seen.lock().unwrap().len()
    }

    /// Whether the last push is exactly `empty://` for its category.
    pub fn last_is_empty(&self) -> bool {
        self.seen
            .lock()
            .unwrap()
            .last()
            .is_some_and(|n| n.urls.len() == 1 && n.urls[0].protocol() == Some("empty"))
    }
}
