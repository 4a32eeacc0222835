//! A reference to several groups, end to end: three providers of one interface in groups
//! a, b and c over dubbo://, found through the embedded file registry; `merger` merges what
//! one provider of each group answers.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::prelude::*;

mod support;

#[dubbo_rs::service(interface = "org.example.merge.Catalog")]
pub trait Catalog {
    async fn items(&self) -> Result<Vec<String>, RpcError>;
    async fn owner(&self) -> Result<String, RpcError>;
}

struct CatalogImpl(&'static str);

impl Catalog for CatalogImpl {
    async fn items(&self) -> Result<Vec<String>, RpcError> {
        Ok(vec![format!("{}1", self.0), format!("{}2", self.0)])
    }

    async fn owner(&self) -> Result<String, RpcError> {
        Ok(self.0.to_owned())
    }
}

const CATALOG: &str = "org.example.merge.Catalog";

async fn provider(registry: &str, group: &'static str) -> Application {
    let text = format!(
        "dubbo:\n  application:\n    name: catalog-{group}\n    register-mode: interface\n  registry:\n    address: {registry}\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n"
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&text).unwrap();
    let app = Application::builder("catalog")
        .config(config)
        .build()
        .unwrap();
    app.default_module()
        .export(
            CatalogServer::new(CatalogImpl(group)),
            ServiceOptions::new().group(group),
        )
        .await
        .unwrap();
    app.ready().await;
    app
}

fn consumer(registry: &str, references: &str) -> Application {
    let text = format!(
        "dubbo:\n  application:\n    name: catalog-consumer\n  registry:\n    address: {registry}\n{references}"
    );
    let config = dubbo_rs::config::DubboConfig::from_yaml(&text).unwrap();
    Application::builder("catalog-consumer")
        .config(config)
        .migration_step("FORCE_INTERFACE")
        .build()
        .unwrap()
}

async fn client(app: &Application, options: ReferenceOptions) -> CatalogClient {
    let reference = app
        .default_module()
        .refer(options.timeout(Duration::from_secs(5)))
        .await
        .unwrap();
    CatalogClient::new(reference.invoker())
}

/// Retries `f` until it gives `want` (registry notifications arrive asynchronously).
async fn eventually<F, Fut, T>(want: T, mut f: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = T>,
    T: PartialEq + std::fmt::Debug,
{
    let mut last = None;
    for _ in 0..100 {
        let got = f().await;
        if got == want {
            return;
        }
        last = Some(got);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("wanted {want:?}, last got {last:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_group_answers_and_the_lists_are_merged() {
    let dir = support::TempDir::new("merging-test");
    let registry = dir.url();
    let providers = [
        provider(&registry, "a").await,
        provider(&registry, "b").await,
        provider(&registry, "c").await,
    ];

    // In code: every group; `items` merged by its return type (`List`).
    let app = consumer(&registry, "");
    let all = client(
        &app,
        ReferenceOptions::new(CATALOG)
            .group("*")
            .parameter("items.merger", "true"),
    )
    .await;
    let merged: Vec<String> = ["a1", "a2", "b1", "b2", "c1", "c2"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    eventually(Some(merged.clone()), || async { all.items().await.ok() }).await;

    // A method without a merger asks one group only.
    let owner = all.owner().await.unwrap();
    assert!(["a", "b", "c"].contains(&owner.as_str()), "{owner}");
    app.shutdown().await;

    // By configuration: two of the groups, the `list` merger named.
    let app = consumer(
        &registry,
        &format!(
            "  references:\n    catalog:\n      interface: {CATALOG}\n      group: a,c\n      merger: list\n"
        ),
    );
    let two = client(&app, ReferenceOptions::new(CATALOG)).await;
    let want: Vec<String> = ["a1", "a2", "c1", "c2"]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    eventually(Some(want), || async { two.items().await.ok() }).await;
    // The reference's merger applies to every method, and `list` cannot merge strings, as in
    // Java: the call fails naming the merger.
    let e = two.owner().await.unwrap_err();
    assert!(e.to_string().contains("merger list"), "{e}");
    app.shutdown().await;

    // An unknown merger is refused when the reference is made.
    let app = consumer(&registry, "");
    let refused = app
        .default_module()
        .refer(
            ReferenceOptions::new(CATALOG)
                .group("*")
                .parameter("merger", "nope"),
        )
        .await;
    let Err(e) = refused else {
        panic!("an unknown merger was accepted");
    };
    assert!(e.to_string().contains("merger=nope"), "{e}");
    app.shutdown().await;

    for p in providers {
        p.shutdown().await;
    }
}
