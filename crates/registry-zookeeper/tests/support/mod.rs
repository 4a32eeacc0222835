//! A real ZooKeeper server for the tests: Debian's `zookeeper` package started on a free
//! loopback port with its own data directory, stopped and started again on demand, and
//! killed on drop.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use dubbo_url::Url;

const JARS: &str = "/usr/share/java";
const NEEDED: &[&str] = &[
    "zookeeper.jar",
    "zookeeper-jute.jar",
    "slf4j-api.jar",
    "slf4j-nop.jar",
    "netty-handler.jar",
    "netty-common.jar",
    "netty-buffer.jar",
    "netty-transport.jar",
    "netty-codec.jar",
    "netty-resolver.jar",
    "netty-transport-native-epoll.jar",
    "netty-transport-native-unix-common.jar",
    "metrics-core.jar",
    "commons-cli.jar",
    "commons-io.jar",
];

/// One ZooKeeper server process.
pub struct ZkServer {
    port: u16,
    dir: PathBuf,
    classpath: String,
    child: Option<Child>,
}

impl ZkServer {
    /// Starts a server, or returns `None` (after a note) when ZooKeeper or Java is missing,
    /// unless `DUBBO_RS_REQUIRE_PEERS=1`, which turns that into a failure.
    pub fn start() -> Option<ZkServer> {
        let missing: Vec<&str> = NEEDED
            .iter()
            .copied()
            .filter(|j| !Path::new(JARS).join(j).exists())
            .collect();
        let java = Command::new("java")
            .arg("-version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !missing.is_empty() || !java {
            let note = format!(
                "ZooKeeper is not installed (missing jars {missing:?}, java found: {java}); test skipped"
            );
            if std::env::var("DUBBO_RS_REQUIRE_PEERS").as_deref() == Ok("1") {
                panic!("{note}");
            }
            eprintln!("note: {note}");
            return None;
        }
        let classpath = NEEDED
            .iter()
            .map(|j| format!("{JARS}/{j}"))
            .collect::<Vec<_>>()
            .join(":");
        let port = free_port();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("dubbo-rs-zk-{}-{port}-{nanos}", std::process::id()));
        std::fs::create_dir_all(dir.join("data")).unwrap();
        let cfg = format!(
            "tickTime=500\ndataDir={}\nclientPort={port}\nclientPortAddress=127.0.0.1\n\
             admin.enableServer=false\nminSessionTimeout=1000\nmaxSessionTimeout=60000\n\
             4lw.commands.whitelist=ruok\n",
            dir.join("data").display()
        );
        std::fs::write(dir.join("zoo.cfg"), cfg).unwrap();
        let mut server = ZkServer {
            port,
            dir,
            classpath,
            child: None,
        };
        server.restart();
        Some(server)
    }

    /// `host:port` of the server.
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `zookeeper://127.0.0.1:port?{query}`.
    pub fn url(&self, query: &str) -> Url {
        let mut s = format!("zookeeper://{}", self.address());
        if !query.is_empty() {
            s.push('?');
            s.push_str(query);
        }
        Url::parse(&s).unwrap()
    }

    /// Kills the server (its data directory stays).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server (again) on the same port and data directory and waits until it
    /// answers.
    pub fn restart(&mut self) {
        self.stop();
        let log = std::fs::File::create(self.dir.join("server.log")).unwrap();
        let child = Command::new("java")
            .args([
                "-Xmx96m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Dzookeeper.admin.enableServer=false",
                "-cp",
                &self.classpath,
                "org.apache.zookeeper.server.quorum.QuorumPeerMain",
            ])
            .arg(self.dir.join("zoo.cfg"))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap();
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if ruok(self.port) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let log = std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default();
        panic!("ZooKeeper did not start on port {}:\n{log}", self.port);
    }
}

impl Drop for ZkServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn ruok(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
    if s.write_all(b"ruok").is_err() {
        return false;
    }
    let mut buf = String::new();
    let _ = s.read_to_string(&mut buf);
    buf == "imok"
}

/// A plain ZooKeeper client, for reading what the code under test wrote.
pub async fn raw(server: &ZkServer) -> zookeeper_client::Client {
    zookeeper_client::Client::connector()
        .with_session_timeout(Duration::from_secs(10))
        .connect(&server.address())
        .await
        .unwrap()
}

/// Collects pushes in order.
pub struct Collector<T> {
    items: Arc<Mutex<Vec<T>>>,
}

impl<T> Clone for Collector<T> {
    fn clone(&self) -> Self {
        Self {
            items: self.items.clone(),
        }
    }
}

impl<T: Clone + std::fmt::Debug> Collector<T> {
    pub fn new() -> Self {
        Self {
            items: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub fn push(&self, item: T) {
        self.items.lock().unwrap().push(item);
    }

    pub fn all(&self) -> Vec<T> {
        self.items.lock().unwrap().clone()
    }

    /// Waits until the latest item satisfying `filter` also satisfies `done`; returns it.
    pub async fn wait_latest(
        &self,
        what: &str,
        filter: impl Fn(&T) -> bool,
        done: impl Fn(&T) -> bool,
    ) -> T {
        // Generous: on a loaded two-core machine a reconnect after a restart can take a while.
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let latest = self.all().into_iter().rev().find(|i| filter(i));
            if let Some(latest) = latest {
                if done(&latest) {
                    return latest;
                }
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; got {:#?}", self.all());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Polls `f` until it returns true or 60 s pass.
pub async fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    // Generous: on a loaded two-core machine a reconnect after a restart can take a while.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !f() {
        if Instant::now() > deadline {
            panic!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
