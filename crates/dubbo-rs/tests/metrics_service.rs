//! The built-in MetricsService over dubbo:// on 127.0.0.1: the provider's own call metrics,
//! asked for by category, as a generic caller sees them. A Java Dubbo 3.3 consumer calls the
//! same service in the test command's metrics steps.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;
use dubbo_rs::GenericClient;

#[dubbo_rs::service(interface = "org.example.Echo")]
pub trait Echo {
    async fn echo(&self, text: String) -> Result<String, RpcError>;
}

struct EchoImpl;

impl Echo for EchoImpl {
    async fn echo(&self, text: String) -> Result<String, RpcError> {
        Ok(text)
    }
}

mod support;

fn app(extra: &str) -> Result<Application, DubboError> {
    let yaml = format!(
        "dubbo:\n  application:\n    name: ms-app\n  protocols:\n    dubbo:\n      port: 0\n      host: 127.0.0.1\n  metrics:\n{extra}"
    );
    Application::builder("ms-app")
        .config(DubboConfig::from_yaml(&yaml).unwrap())
        .build()
}

#[tokio::test]
async fn the_metrics_service_answers_by_category_service_and_method() {
    let app = app("    export-metrics-service: true\n").unwrap();
    let urls = support::export(&app, EchoServer::new(EchoImpl)).await;
    let port = urls[0].port();
    app.ready().await;
    let echo = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.example.Echo")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let client = EchoClient::new(echo.invoker());
    for _ in 0..3 {
        client.echo("x".into()).await.unwrap();
    }
    let reference = app
        .default_module()
        .refer(
            ReferenceOptions::new("org.apache.dubbo.metrics.service.MetricsService")
                .group("ms-app")
                .version("1.0.0")
                .url(format!("dubbo://127.0.0.1:{port}"))
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let service = GenericClient::new(reference.invoker(), reference.service_key().clone());
    let categories = Value::list(vec![Value::String("REQUESTS".into())]);
    let all = service
        .invoke(
            "getMetricsByCategories",
            &["java.util.List"],
            vec![categories.clone()],
        )
        .await
        .unwrap();
    let text = format!("{all:?}");
    assert!(text.contains("dubbo.provider.requests.total"), "{text}");
    assert!(text.contains("application.name"), "{text}");
    assert!(
        !text.contains("rt.milliseconds"),
        "only REQUESTS asked for: {text}"
    );
    let provider_total = |v: &Value| -> Option<i64> {
        let Value::Map(m) = v else { return None };
        m.entries.iter().find_map(|(_, list)| {
            list.as_list()?.items.iter().find_map(|e| {
                let is_total =
                    e.get("name").and_then(Value::as_str) == Some("dubbo.provider.requests.total");
                let tags = format!("{:?}", e.get("tags"));
                (is_total && tags.contains("org.example.Echo") && tags.contains("echo"))
                    .then(|| e.get("value").and_then(Value::as_i64))
                    .flatten()
            })
        })
    };
    assert_eq!(provider_total(&all), Some(3), "{text}");
    let other = service
        .invoke(
            "getMetricsByCategories",
            &["java.lang.String", "java.util.List"],
            vec![Value::String("org.example.Nope".into()), categories],
        )
        .await
        .unwrap();
    assert_eq!(provider_total(&other), None, "{other:?}");
    app.shutdown().await;
}

#[test]
fn a_protocol_that_does_not_exist_is_refused() {
    let err = app("    export-metrics-service: true\n    export-service-protocol: tri\n")
        .expect_err("accepted")
        .to_string();
    assert!(
        err.contains("dubbo.metrics.export-service-protocol"),
        "{err}"
    );
    let err = app("    export-service-protocol: dubbo\n")
        .expect_err("accepted")
        .to_string();
    assert!(err.contains("export-metrics-service"), "{err}");
}
