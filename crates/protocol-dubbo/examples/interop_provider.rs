//! A Rust provider of `org.apache.dubbo.interop.InteropService` (versions 1.0.0 and 2.0.0) over
//! dubbo://, for the Java interop Consumer (`interop/java`).
//!
//! ```sh
//! cargo run -p dubbo-protocol-dubbo --example interop_provider -- 20880
//! java -cp "$INTEROP_JAVA_DUBBO_JAR" org.apache.dubbo.interop.Consumer --url dubbo://127.0.0.1:20880
//! ```
//!
//! Prints `READY <port>` once serving; stops gracefully on Ctrl-C.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::filters::builtin_filters;
use dubbo_core::{invoker_fn, FilterChain, Invocation, Protocol, Stage};
use dubbo_protocol_dubbo::DubboProtocol;
use dubbo_url::Url;

#[path = "../tests/support/interop_service.rs"]
mod interop_service;

use interop_service::{serve, SERVICE};

#[tokio::main]
async fn main() {
    let port: u16 = std::env::args()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(20880);
    let protocol = DubboProtocol::new();
    let mut bound = None;
    for (version, v2) in [("1.0.0", false), ("2.0.0", true)] {
        let url = Url::parse(&format!(
            "dubbo://127.0.0.1:{port}/{SERVICE}?version={version}&bind.port={port}&prefer.serialization=hessian2"
        ))
        .expect("valid url");
        let invoker = Arc::new(invoker_fn(url.clone(), move |inv: Invocation| {
            serve(inv, v2)
        }));
        let served = FilterChain::build(&builtin_filters(), Stage::Provider, &url, invoker);
        if let Err(e) = protocol.export(url.clone(), Arc::new(served)).await {
            eprintln!("export failed: {e}");
            std::process::exit(1);
        }
        bound = protocol.server_addr(&url);
    }
    println!("READY {}", bound.map(|a| a.port()).unwrap_or(port));
    let _ = tokio::signal::ctrl_c().await;
    protocol.shutdown(Duration::from_secs(2)).await;
}
