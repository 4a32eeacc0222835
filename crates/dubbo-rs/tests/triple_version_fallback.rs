//! Unary Triple calls to an interface exported under several versions on one port: a request
//! naming an exported version reaches it; one naming none, or a version nobody exports, reaches
//! the export Java's Triple server falls back to (version 1.0.0), as the interface's streams
//! do; with no such export the call is refused rather than sent to a guess.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;

#[dubbo_rs::service(interface = "org.example.Versions")]
pub trait Versions {
    async fn which(&self) -> Result<String, RpcError>;
}

struct Tagged(&'static str);

impl Versions for Tagged {
    async fn which(&self) -> Result<String, RpcError> {
        Ok(self.0.to_owned())
    }
}

const PROVIDER_YAML: &str = "
dubbo:
  protocols:
    tri:
      port: 0
      host: 127.0.0.1
";

/// Starts a provider exporting `versions` and answers `which` as asked with `version`.
async fn provider(versions: &[&'static str]) -> (Application, u16) {
    let app = Application::builder("versions-provider")
        .config(DubboConfig::from_yaml(PROVIDER_YAML).unwrap())
        .build()
        .unwrap();
    let mut port = 0;
    for v in versions {
        let urls = app
            .default_module()
            .export(
                VersionsServer::new(Tagged(v)),
                ServiceOptions::new().version(*v),
            )
            .await
            .unwrap();
        port = urls
            .iter()
            .find(|u| u.protocol() == Some("tri"))
            .map(|u| u.port())
            .unwrap();
    }
    (app, port)
}

async fn which(port: u16, version: Option<&str>) -> Result<String, RpcError> {
    let consumer = Application::builder("versions-consumer").build().unwrap();
    let mut options =
        ReferenceOptions::new("org.example.Versions").url(format!("tri://127.0.0.1:{port}"));
    if let Some(v) = version {
        options = options.version(v);
    }
    let reference = consumer.default_module().refer(options).await.unwrap();
    let answer = VersionsClient::new(reference.invoker()).which().await;
    consumer.shutdown().await;
    answer
}

#[tokio::test]
async fn unary_calls_fall_back_as_javas_triple_server() {
    let (app, port) = provider(&["2.0.0", "1.0.0"]).await;
    assert_eq!(which(port, Some("2.0.0")).await.unwrap(), "2.0.0");
    assert_eq!(which(port, Some("1.0.0")).await.unwrap(), "1.0.0");
    assert_eq!(which(port, None).await.unwrap(), "1.0.0");
    assert_eq!(which(port, Some("9.9.9")).await.unwrap(), "1.0.0");
    app.shutdown().await;

    // Neither 1.0.0 nor an export without a version: no guess.
    let (app, port) = provider(&["2.0.0", "3.0.0"]).await;
    assert_eq!(which(port, Some("3.0.0")).await.unwrap(), "3.0.0");
    let refused = which(port, None).await.unwrap_err();
    assert!(refused.to_string().contains("not found"), "{refused}");
    app.shutdown().await;
}
