//! `;`-separated direct URLs with weights, end to end on 127.0.0.1: the weights apply from the
//! first call, as in Java, where a direct URL is merged with the reference's parameters like a
//! provider's and so never takes the consumer's `timestamp` for the provider's start (which
//! would put every direct provider in warm-up, all at weight 1, for ten minutes).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;

#[dubbo_rs::service(interface = "org.example.weights.Named")]
pub trait Named {
    async fn name(&self) -> Result<String, RpcError>;
}

struct NamedImpl(&'static str);

impl Named for NamedImpl {
    async fn name(&self) -> Result<String, RpcError> {
        Ok(self.0.to_owned())
    }
}

/// A provider of Named answering `name` on a free dubbo:// port; the application and the port.
async fn provider(name: &'static str) -> (Application, u16) {
    let text = "dubbo:\n  application:\n    name: named-provider\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n";
    let app = Application::builder("named-provider")
        .config(DubboConfig::from_yaml(text).unwrap())
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(NamedServer::new(NamedImpl(name)), ServiceOptions::new())
        .await
        .unwrap();
    let port = urls.iter().map(|u| u.port()).next().unwrap();
    (app, port)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_urls_are_weighted_from_the_first_call() {
    let (heavy, heavy_port) = provider("heavy").await;
    let (light, light_port) = provider("light").await;
    let consumer = Application::builder("named-consumer").build().unwrap();
    let url = format!(
        "dubbo://127.0.0.1:{heavy_port}?weight=300;dubbo://127.0.0.1:{light_port}?weight=100"
    );
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.weights.Named")
                .url(url)
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let client = NamedClient::new(reference.invoker());
    let calls = 2000;
    let mut to_heavy = 0;
    for _ in 0..calls {
        if client.name().await.unwrap() == "heavy" {
            to_heavy += 1;
        }
    }
    // 300 : 100 is 75 %; a reference that put both in warm-up would split them evenly.
    let share = f64::from(to_heavy) / f64::from(calls);
    assert!(
        (0.70..=0.80).contains(&share),
        "the provider of weight 300 took {share:.3} of the calls, not ~0.75"
    );
    consumer.shutdown().await;
    heavy.shutdown().await;
    light.shutdown().await;
}
