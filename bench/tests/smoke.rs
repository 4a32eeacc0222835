//! End-to-end check of the benchmark programs: `bench-server` and `tonic-server` start and
//! print READY, and a short `dubbo-bench` run of every target and scenario succeeds and writes
//! its CSV row. Keeps the harness working; it times nothing.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::process::{Child, Command, Stdio};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn start(bin: &str, args: &[String]) -> Server {
    let mut child = Command::new(bin)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start server");
    let stdout = child.stdout.take().expect("stdout");
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("read READY");
    assert_eq!(line.trim(), "READY", "{bin} did not print READY");
    Server(child)
}

fn bench(target: &str, addr: &str, scenario: &str, csv: &std::path::Path, pid: u32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dubbo-bench"))
        .args([
            "--target",
            target,
            "--addr",
            addr,
            "--scenario",
            scenario,
            "--concurrency",
            "4",
            "--connections",
            "2",
            "--duration",
            "300ms",
            "--warmup",
            "100ms",
            "--quiet",
            "--server-pid",
            &pid.to_string(),
            "--csv",
            csv.to_str().expect("utf-8 path"),
        ])
        .output()
        .expect("run dubbo-bench");
    assert!(
        out.status.success(),
        "dubbo-bench {target} {scenario}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("p99"), "no table: {table}");
}

#[test]
fn every_target_and_scenario_runs() {
    let dir = std::env::temp_dir().join(format!("dubbo-bench-smoke-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let csv = dir.join("rows.csv");
    let _ = std::fs::remove_file(&csv);

    let (dubbo, tri, grpc) = (free_port(), free_port(), free_port());
    let rs = start(
        env!("CARGO_BIN_EXE_bench-server"),
        &[
            "--dubbo-port".into(),
            dubbo.to_string(),
            "--tri-port".into(),
            tri.to_string(),
        ],
    );
    let tonic = start(
        env!("CARGO_BIN_EXE_tonic-server"),
        &["--port".into(), grpc.to_string()],
    );
    let (rs_pid, tonic_pid) = (rs.0.id(), tonic.0.id());
    let unary = ["empty", "echo128", "echo1k", "list100"];
    let mut rows = 0;
    for s in unary {
        bench("dubbo", &format!("127.0.0.1:{dubbo}"), s, &csv, rs_pid);
        bench("tri-iface", &format!("127.0.0.1:{tri}"), s, &csv, rs_pid);
        rows += 2;
    }
    for s in unary.iter().chain(["stream"].iter()) {
        bench("tri-idl", &format!("127.0.0.1:{tri}"), s, &csv, rs_pid);
        // tonic's client against the dubbo-rs Triple server, and against tonic.
        bench("grpc", &format!("127.0.0.1:{tri}"), s, &csv, rs_pid);
        bench("grpc", &format!("127.0.0.1:{grpc}"), s, &csv, tonic_pid);
        rows += 3;
    }
    let text = std::fs::read_to_string(&csv).expect("csv written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), rows + 1, "header + one row per run:\n{text}");
    assert!(lines[0].starts_with("label,target,scenario"));
    // The server pid was given: CPU per call and RSS are filled in.
    let header: Vec<&str> = lines[0].split(',').collect();
    let rss = header
        .iter()
        .position(|h| *h == "server_rss_mib")
        .expect("rss column");
    for l in &lines[1..] {
        let cells: Vec<&str> = l.split(',').collect();
        assert!(!cells[rss].is_empty(), "no RSS in {l}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
