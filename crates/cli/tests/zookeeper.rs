//! `dubbo-cli` against a real ZooKeeper: put, get, watch while another put happens, delete,
//! and the error of an unknown scheme.

#![allow(clippy::unwrap_used, clippy::expect_used)]

// The ZooKeeper test server of the ZooKeeper crate, shared rather than copied.
#[path = "../../registry-zookeeper/tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use support::ZkServer;

const CLI: &str = env!("CARGO_BIN_EXE_dubbo-cli");
const KEY: &str = "cli-demo.configurators";

/// Runs `dubbo-cli config {args}` with `stdin` as standard input.
fn cli(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(CLI)
        .arg("config")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn put_get_watch_delete_against_zookeeper() {
    let Some(server) = ZkServer::start() else {
        return;
    };
    let center = server.url("").to_full_string();
    let target = ["--center", center.as_str(), "--group", "ops", KEY];
    let with = |command: &str, extra: &[&str]| -> Vec<String> {
        let mut v = vec![command.to_owned()];
        v.extend(target.iter().map(|s| s.to_string()));
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let run = |args: Vec<String>, stdin: &str| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        cli(&args, stdin)
    };

    let put = run(with("put", &["-"]), "configVersion: v3.0\nenabled: true\n");
    assert!(put.status.success(), "{}", text(&put.stderr));
    let got = run(with("get", &[]), "");
    assert!(got.status.success(), "{}", text(&got.stderr));
    assert_eq!(text(&got.stdout), "configVersion: v3.0\nenabled: true\n");

    // Watch for one change while another put comes from a file.
    let mut watch = Command::new(CLI)
        .arg("config")
        .args(with("watch", &["--count", "1"]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(watch.stderr.take().unwrap());
    let mut armed = String::new();
    stderr.read_line(&mut armed).unwrap();
    assert!(
        armed.contains("watching")
            && armed.contains("current value: configVersion: v3.0 (+1 line)"),
        "{armed}"
    );
    let file = std::env::temp_dir().join(format!("dubbo-cli-test-{}.yaml", std::process::id()));
    std::fs::write(&file, "configVersion: v3.1\nenabled: false\n").unwrap();
    let put = run(with("put", &["--file", file.to_str().unwrap()]), "");
    let _ = std::fs::remove_file(&file);
    assert!(put.status.success(), "{}", text(&put.stderr));

    let mut stdout = watch.stdout.take().unwrap();
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut printed = String::new();
        stdout.read_to_string(&mut printed).unwrap();
        let _ = done_tx.send(printed);
    });
    let printed = match done_rx.recv_timeout(Duration::from_secs(30)) {
        Ok(printed) => printed,
        Err(_) => {
            let _ = watch.kill();
            panic!("watch --count 1 did not end after the change");
        }
    };
    assert!(watch.wait().unwrap().success());
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(lines.len(), 1, "{printed}");
    let (time, rest) = lines[0].split_once(' ').unwrap();
    assert!(time.ends_with('Z') && time.contains('T'), "{time}");
    assert_eq!(rest, "Modified configVersion: v3.1 (+1 line)");

    let deleted = run(with("delete", &[]), "");
    assert!(deleted.status.success(), "{}", text(&deleted.stderr));
    let missing = run(with("get", &[]), "");
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("no value"),
        "{}",
        text(&missing.stderr)
    );

    let unknown = cli(&["get", "--center", "nacos://127.0.0.1:8848", KEY], "");
    assert_eq!(unknown.status.code(), Some(1));
    assert!(
        text(&unknown.stderr).contains("[CONFIG_CENTER_UNKNOWN_SCHEME]"),
        "{}",
        text(&unknown.stderr)
    );
}
