//! Dubbo's token between dubbo-rs applications, over dubbo:// and tri:// on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::prelude::*;

#[dubbo_rs::service(interface = "org.example.Vault")]
pub trait Vault {
    async fn open(&self, who: String) -> Result<String, RpcError>;
}

struct VaultImpl;

impl Vault for VaultImpl {
    async fn open(&self, who: String) -> Result<String, RpcError> {
        Ok(format!("opened for {who}"))
    }
}

/// A provider of the vault over dubbo:// and tri:// on free ports with `token=setting`;
/// returns the application and the exported URLs.
async fn provider(setting: &str) -> (Application, Vec<dubbo_rs::url::Url>) {
    let app = Application::builder("vault-provider")
        .protocol("dubbo", 0)
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(
            VaultServer::new(VaultImpl),
            ServiceOptions::new().parameter("token", setting),
        )
        .await
        .unwrap();
    (app, urls)
}

async fn client(
    consumer: &Application,
    url: &dubbo_rs::url::Url,
    token: Option<&str>,
) -> VaultClient {
    let target = format!(
        "{}://127.0.0.1:{}",
        url.protocol().unwrap_or("dubbo"),
        url.port()
    );
    let mut options = ReferenceOptions::new("org.example.Vault")
        .url(target)
        .timeout(Duration::from_secs(5));
    if let Some(t) = token {
        options = options.parameter("token", t);
    }
    let reference = consumer.default_module().refer(options).await.unwrap();
    VaultClient::new(reference.invoker())
}

#[tokio::test]
async fn a_fixed_token_is_required_on_both_protocols() {
    let (app, urls) = provider("s3cret").await;
    assert_eq!(urls.len(), 2);
    let consumer = Application::builder("vault-consumer").build().unwrap();
    for url in &urls {
        assert_eq!(url.parameter("token"), Some("s3cret"), "{url}");
        let good = client(&consumer, url, Some("s3cret")).await;
        assert_eq!(good.open("me".into()).await.unwrap(), "opened for me");
        for token in [None, Some("guess")] {
            let bad = client(&consumer, url, token).await;
            let err = bad.open("me".into()).await.unwrap_err();
            assert_eq!(err.code(), Some(ErrorCode::Forbidden), "{url}: {err}");
            assert!(
                err.message().contains(&format!(
                    "Forbid invoke remote service interface org.example.Vault method open() from consumer 127.0.0.1 to provider 127.0.0.1, consumer incorrect token is {}",
                    token.unwrap_or("null")
                )),
                "{url}: {err}"
            );
        }
    }
    consumer.shutdown().await;
    app.shutdown().await;
}

#[tokio::test]
async fn token_true_generates_a_random_token() {
    let (app, urls) = provider("true").await;
    let token = urls[0].parameter("token").unwrap().to_owned();
    assert_eq!(token.len(), 36, "{token}");
    assert_ne!(token, "true");
    let consumer = Application::builder("vault-consumer").build().unwrap();
    let good = client(&consumer, &urls[0], Some(&token)).await;
    assert_eq!(good.open("x".into()).await.unwrap(), "opened for x");
    let bad = client(&consumer, &urls[0], None).await;
    assert_eq!(
        bad.open("x".into()).await.unwrap_err().code(),
        Some(ErrorCode::Forbidden)
    );
    consumer.shutdown().await;
    app.shutdown().await;
}
