//! The dubbo-rs provider of the benchmark: `EchoService` (interface mode) over dubbo:// and
//! tri://, and the IDL `BenchService` over tri://, on 127.0.0.1. Prints READY once serving;
//! exits on SIGTERM or SIGINT.
//!
//! `bench-server [--dubbo-port 20880] [--tri-port 50051]`
//!
//! `DUBBO_BENCH_FILTER` sets the services' `filter` list (e.g. `-metrics`), as it does the
//! references of `dubbo-bench`, to measure the provider with a filter left out.

// mimalloc: decoding allocates every string, list and map of a call, and it is faster at
// that than glibc's malloc (docs/performance-hessian.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use dubbo_bench::service::{EchoProvider, EchoServiceServer, TripleBench};
use dubbo_bench::triple_pb::BenchServiceServer;
use dubbo_rs::prelude::*;
use std::process::ExitCode;

const USAGE: &str = "usage: bench-server [--dubbo-port 20880] [--tri-port 50051]";

fn port(args: &[String], name: &str, default: u16) -> Result<u16, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("bad {name}\n{USAGE}")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(bad) = args
        .iter()
        .step_by(2)
        .find(|a| !matches!(a.as_str(), "--dubbo-port" | "--tri-port"))
    {
        eprintln!("bench-server: unknown argument {bad}\n{USAGE}");
        return ExitCode::from(2);
    }
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &[String]) -> Result<(), String> {
    let dubbo_port = port(args, "--dubbo-port", 20880)?;
    let tri_port = port(args, "--tri-port", 50051)?;
    let app = Application::builder("bench-provider")
        .protocol("dubbo", dubbo_port)
        .protocol("tri", tri_port)
        .host("127.0.0.1")
        .build()
        .map_err(|e| e.to_string())?;
    let module = app.default_module();
    let options = || match std::env::var("DUBBO_BENCH_FILTER") {
        Ok(filter) => ServiceOptions::new().parameter("filter", filter),
        Err(_) => ServiceOptions::new(),
    };
    module
        .export(EchoServiceServer::new(EchoProvider), options())
        .await
        .map_err(|e| e.to_string())?;
    module
        .export_idl(BenchServiceServer::new(TripleBench), options())
        .await
        .map_err(|e| e.to_string())?;
    println!("READY");
    dubbo_rs::wait_for_signal().await;
    app.shutdown().await;
    Ok(())
}
