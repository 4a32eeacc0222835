//! The dubbo-rs provider of the benchmark: `EchoService` (interface mode) over dubbo:// and
//! tri://, and the IDL `BenchService` over tri://, on 127.0.0.1. Prints READY once serving;
//! exits on SIGTERM or SIGINT.
//!
//! `bench-server [--dubbo-port 20880] [--tri-port 50051] [--copies N]
//!              [--tls-cert CHAIN.pem --tls-key KEY.pem]`
//!
//! The Triple port also serves `org.apache.dubbo.bench.UserResource` as REST
//! (`GET /users/{id}`, `POST /users`; bench/src/rest.rs), through the filter chain.
//!
//! `--tls-cert` and `--tls-key` serve both ports over TLS only (`dubbo.ssl.server-key-cert-chain-path`
//! and `server-private-key-path`), for the TLS rows of scripts/bench.sh.
//!
//! `--copies N` serves N independent provider applications from this one process and runtime,
//! on consecutive ports from the ones given: as many providers for a consumer's cluster as N
//! processes, with the provider side's scheduling held equal to one process (the cluster row
//! of scripts/bench.sh compares the consumer's cost per call across such shapes).
//!
//! `DUBBO_BENCH_FILTER` sets the services' `filter` list (e.g. `-metrics`), as it does the
//! references of `dubbo-bench`, to measure the provider with a filter left out.

// mimalloc: decoding allocates every string, list and map of a call, and it is faster at
// that than glibc's malloc (docs/performance-hessian.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use dubbo_bench::rest::{RestUsers, UserResourceServer};
use dubbo_bench::service::{EchoProvider, EchoServiceServer, TripleBench};
use dubbo_bench::triple_pb::BenchServiceServer;
use dubbo_rs::config::SslConfig;
use dubbo_rs::prelude::*;
use std::process::ExitCode;

const USAGE: &str = "usage: bench-server [--dubbo-port 20880] [--tri-port 50051] [--copies N] \
                     [--tls-cert CHAIN.pem --tls-key KEY.pem]";

fn number(args: &[String], name: &str, default: u16) -> Result<u16, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("bad {name}\n{USAGE}")),
    }
}

fn text(args: &[String], name: &str) -> Result<Option<String>, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(None),
        Some(i) => args
            .get(i + 1)
            .cloned()
            .map(Some)
            .ok_or_else(|| format!("{name} needs a value\n{USAGE}")),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(bad) = args.iter().step_by(2).find(|a| {
        !matches!(
            a.as_str(),
            "--dubbo-port" | "--tri-port" | "--copies" | "--tls-cert" | "--tls-key"
        )
    }) {
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
    let dubbo_port = number(args, "--dubbo-port", 20880)?;
    let tri_port = number(args, "--tri-port", 50051)?;
    let copies = number(args, "--copies", 1)?;
    if copies == 0
        || dubbo_port.checked_add(copies - 1).is_none()
        || tri_port.checked_add(copies - 1).is_none()
    {
        return Err(format!("bad --copies {copies}\n{USAGE}"));
    }
    let tls = match (text(args, "--tls-cert")?, text(args, "--tls-key")?) {
        (None, None) => None,
        (Some(cert), Some(key)) => Some(SslConfig {
            server_key_cert_chain_path: Some(cert),
            server_private_key_path: Some(key),
            ..SslConfig::default()
        }),
        _ => return Err(format!("--tls-cert and --tls-key go together\n{USAGE}")),
    };
    let mut apps = Vec::new();
    for i in 0..copies {
        apps.push(serve(i, dubbo_port + i, tri_port + i, tls.clone()).await?);
    }
    println!("READY");
    dubbo_rs::wait_for_signal().await;
    for app in apps {
        app.shutdown().await;
    }
    Ok(())
}

async fn serve(
    copy: u16,
    dubbo_port: u16,
    tri_port: u16,
    tls: Option<SslConfig>,
) -> Result<Application, String> {
    let name = if copy == 0 {
        "bench-provider".to_owned()
    } else {
        format!("bench-provider-{copy}")
    };
    let mut builder = Application::builder(&name)
        .protocol("dubbo", dubbo_port)
        .protocol("tri", tri_port)
        .host("127.0.0.1");
    if let Some(tls) = tls {
        builder = builder.ssl(tls);
    }
    let app = builder.build().map_err(|e| e.to_string())?;
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
    module
        .export(UserResourceServer::new(RestUsers), options())
        .await
        .map_err(|e| e.to_string())?;
    Ok(app)
}
