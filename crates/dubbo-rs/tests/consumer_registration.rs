//! A reference registers its consumer URL in the registry's `consumers` category, as Java's
//! does, and releasing it removes that entry again (the application keeps running).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use dubbo_rs::prelude::*;

#[dubbo_rs::service(interface = "org.example.Counter")]
pub trait Counter {
    async fn next(&self) -> Result<i32, RpcError>;
}

struct CounterImpl;

impl Counter for CounterImpl {
    async fn next(&self) -> Result<i32, RpcError> {
        Ok(1)
    }
}

/// The registry entries under a `consumers` directory.
fn consumer_entries(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .parent()
                .and_then(|p| p.file_name())
                .is_some_and(|n| n == "consumers")
            {
                found.push(path);
            }
        }
    }
    found
}

async fn until(what: &str, mut check: impl FnMut() -> bool) {
    for _ in 0..100 {
        if check() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what}: not within 5 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_released_reference_unregisters_its_consumer_url() {
    let dir = support::TempDir::new("consumer-registration");
    let registry = dir.url();
    let provider = Application::builder("counter-provider")
        .registry(&registry)
        .protocol("dubbo", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    provider
        .default_module()
        .export(CounterServer::new(CounterImpl), ServiceOptions::new())
        .await
        .unwrap();
    provider.ready().await;

    let consumer = Application::builder("counter-consumer")
        .registry(&registry)
        .migration_step("FORCE_INTERFACE")
        .build()
        .unwrap();
    let module = consumer.module("callers");
    let reference = module
        .refer(ReferenceOptions::new("org.example.Counter").timeout(Duration::from_secs(5)))
        .await
        .unwrap();
    assert_eq!(
        CounterClient::new(reference.invoker())
            .next()
            .await
            .unwrap(),
        1
    );
    until("the consumer URL registered in `consumers`", || {
        consumer_entries(&dir.0).len() == 1
    })
    .await;

    module.release();
    until("the consumer URL unregistered after release", || {
        consumer_entries(&dir.0).is_empty()
    })
    .await;
    consumer.shutdown().await;
    provider.shutdown().await;
}
