//! A quick throughput check: one client connection, `CONCURRENCY` callers, a provider that
//! answers `sayHello` on the same runtime.
//!
//! ```sh
//! cargo run --release -p dubbo-protocol-dubbo --example bench_echo -- [calls] [concurrency]
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_core::{
    invoker_fn, ExportTable, Invocation, MethodSignature, RpcResponse, ServiceKey, Value,
};
use dubbo_protocol_dubbo::{ClientConfig, DubboClient, DubboServer, ServerConfig};
use dubbo_url::Url;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let calls: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let concurrency: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(64);

    let exports = ExportTable::new();
    let url = Url::parse("dubbo://127.0.0.1:0/org.example.Greeter").expect("url");
    exports.insert(
        ServiceKey::interface_only("org.example.Greeter"),
        Arc::new(invoker_fn(url, |inv: Invocation| async move {
            let name = inv
                .args()
                .first()
                .and_then(|v| v.to_value().ok())
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_else(|| "?".to_owned());
            Ok(RpcResponse::new(Value::String(format!("Hello {name}"))))
        })),
    );
    let server = DubboServer::bind("127.0.0.1:0", ServerConfig::default(), exports)
        .await
        .expect("bind");
    let client = DubboClient::connect(server.local_addr().to_string(), ClientConfig::default())
        .await
        .expect("connect");
    let method = Arc::new(MethodSignature::new(
        "sayHello",
        &["java.lang.String"],
        "java.lang.String",
    ));

    let started = Instant::now();
    let per_task = calls / concurrency;
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let client = client.clone();
        let method = method.clone();
        tasks.push(tokio::spawn(async move {
            let mut worst = Duration::ZERO;
            for _ in 0..per_task {
                let t = Instant::now();
                let inv = Invocation::new(
                    ServiceKey::interface_only("org.example.Greeter"),
                    method.clone(),
                    vec!["world".into()],
                );
                client.invoke(inv).await.expect("call");
                worst = worst.max(t.elapsed());
            }
            worst
        }));
    }
    let mut worst = Duration::ZERO;
    for t in tasks {
        worst = worst.max(t.await.expect("task"));
    }
    let elapsed = started.elapsed();
    let done = per_task * concurrency;
    println!(
        "{done} calls, {concurrency} concurrent, one connection: {:.0} calls/s, slowest {} µs",
        done as f64 / elapsed.as_secs_f64(),
        worst.as_micros()
    );
    server.shutdown(Duration::from_secs(1)).await;
}
