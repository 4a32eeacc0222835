//! Streaming methods of a `#[dubbo_rs::service]` trait that take `ctx: &RequestContext`, as
//! unary methods do: exported by an application on tri:// and called through a reference,
//! each stream kind sees the consumer's attachments (as the provider's context filter leaves
//! them), its address, the service key it called and its deadline.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;
use dubbo_rs::protocol_triple::Status;
use futures::StreamExt;

#[dubbo_rs::service(interface = "org.example.Who")]
pub trait Who: Send + Sync + 'static {
    /// What the context says, one item each.
    async fn describe(
        &self,
        ctx: &RequestContext,
        prefix: String,
    ) -> Result<ResponseStream<String>, Status>;
    /// The `who` attachment, then the requests.
    async fn join(&self, ctx: &RequestContext, parts: Streaming<String>) -> Result<String, Status>;
    /// `who:m` for each request m.
    async fn echo(
        &self,
        ctx: &RequestContext,
        requests: Streaming<String>,
    ) -> Result<ResponseStream<String>, Status>;
}

struct Impl;

fn who(ctx: &RequestContext) -> String {
    ctx.attachment("who").unwrap_or("nobody").to_owned()
}

impl Who for Impl {
    async fn describe(
        &self,
        ctx: &RequestContext,
        prefix: String,
    ) -> Result<ResponseStream<String>, Status> {
        let items = vec![
            format!("{prefix}who={}", who(ctx)),
            format!(
                "{prefix}ip={}",
                ctx.remote_addr
                    .map(|a| a.ip().to_string())
                    .unwrap_or_default()
            ),
            format!(
                "{prefix}service={}",
                ctx.service
                    .as_ref()
                    .map(|k| k.to_string())
                    .unwrap_or_default()
            ),
            format!("{prefix}deadline={}", ctx.deadline.is_some()),
            // A framework key the context filter keeps from the service.
            format!("{prefix}path={}", ctx.attachment("path").is_some()),
        ];
        Ok(Box::pin(futures::stream::iter(items.into_iter().map(Ok))))
    }

    async fn join(&self, ctx: &RequestContext, parts: Streaming<String>) -> Result<String, Status> {
        let mut all = vec![who(ctx)];
        all.extend(
            parts
                .map(|p| p.unwrap_or_default())
                .collect::<Vec<_>>()
                .await,
        );
        Ok(all.join(","))
    }

    async fn echo(
        &self,
        ctx: &RequestContext,
        requests: Streaming<String>,
    ) -> Result<ResponseStream<String>, Status> {
        let who = who(ctx);
        Ok(Box::pin(
            requests.map(move |r| r.map(|m| format!("{who}:{m}"))),
        ))
    }
}

const PROVIDER_YAML: &str = "
dubbo:
  application:
    name: who-provider
  protocols:
    tri:
      port: 0
      host: 127.0.0.1
";

#[tokio::test]
async fn each_stream_kind_gets_the_request_context() {
    let app = Application::builder("who-provider")
        .config(DubboConfig::from_yaml(PROVIDER_YAML).unwrap())
        .build()
        .unwrap();
    let urls = app
        .default_module()
        .export(WhoServer::new(Impl), ServiceOptions::new().version("2.0.0"))
        .await
        .unwrap();
    let tri = urls
        .iter()
        .find(|u| u.protocol() == Some("tri"))
        .map(|u| u.port())
        .unwrap();
    let consumer = Application::builder("who-consumer").build().unwrap();
    let reference = consumer
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Who")
                .version("2.0.0")
                .url(format!("tri://127.0.0.1:{tri}")),
        )
        .await
        .unwrap();
    let client = WhoClient::new(reference.invoker())
        .with_attachment("who", "alice")
        .with_timeout(Duration::from_secs(10));

    let items: Vec<String> = client
        .describe("> ".into())
        .await
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
        .await;
    assert_eq!(
        items,
        [
            "> who=alice",
            "> ip=127.0.0.1",
            "> service=org.example.Who:2.0.0",
            "> deadline=true",
            "> path=false",
        ]
    );

    let joined = client
        .join(futures::stream::iter(["a".to_owned(), "b".to_owned()]))
        .await
        .unwrap();
    assert_eq!(joined, "alice,a,b");

    let echoed: Vec<String> = client
        .echo(futures::stream::iter(["x".to_owned()]))
        .await
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
        .await;
    assert_eq!(echoed, ["alice:x"]);

    // Without the attachment the service sees none.
    let plain = WhoClient::new(reference.invoker());
    let joined = plain
        .join(futures::stream::iter(Vec::<String>::new()))
        .await;
    assert_eq!(joined.unwrap(), "nobody");

    app.shutdown().await;
    consumer.shutdown().await;
}
