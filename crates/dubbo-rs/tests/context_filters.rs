//! The built-in `context`, `consumercontext` and `exception` filters, end to end over
//! dubbo:// and tri:// on 127.0.0.1.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_rs::core::{ErrorCode, Invocation, MethodSignature, ServiceKey, Value};
use dubbo_rs::prelude::*;

#[dubbo_rs::service(interface = "org.example.ctx.Probe")]
pub trait Probe {
    /// The attachment keys the service sees, sorted.
    async fn keys(&self, ctx: &mut RequestContext) -> Result<Vec<String>, RpcError>;
    /// Fails with a business exception of class `class`.
    async fn throw(&self, class: String) -> Result<String, RpcError>;
}

struct ProbeImpl(Arc<AtomicUsize>);

impl Probe for ProbeImpl {
    async fn keys(&self, ctx: &mut RequestContext) -> Result<Vec<String>, RpcError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        let mut keys: Vec<String> = ctx.attachments.iter().map(|(k, _)| k.to_owned()).collect();
        keys.sort();
        Ok(keys)
    }

    async fn throw(&self, class: String) -> Result<String, RpcError> {
        Err(RpcError::business(class, "boom"))
    }
}

const PROBE: &str = "org.example.ctx.Probe";

/// A provider of Probe with a token and the given `filter` setting; the application, its
/// dubbo:// and tri:// ports, and the count of `keys` calls served.
async fn provider(filter: Option<&str>) -> (Application, u16, u16, Arc<AtomicUsize>) {
    let app = Application::builder("probe-provider")
        .protocol("dubbo", 0)
        .protocol("tri", 0)
        .host("127.0.0.1")
        .build()
        .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let mut options = ServiceOptions::new().parameter("token", "secret");
    if let Some(f) = filter {
        options = options.parameter("filter", f);
    }
    let urls = app
        .default_module()
        .export(ProbeServer::new(ProbeImpl(calls.clone())), options)
        .await
        .unwrap();
    let port = |scheme: &str| {
        urls.iter()
            .find(|u| u.protocol() == Some(scheme))
            .map(|u| u.port())
            .unwrap()
    };
    let (dubbo, tri) = (port("dubbo"), port("tri"));
    (app, dubbo, tri, calls)
}

async fn reference(app: &Application, url: String) -> Arc<dyn dubbo_rs::core::Invoker> {
    app.default_module()
        .refer(
            ReferenceOptions::new(PROBE)
                .url(url)
                .parameter("token", "secret")
                .timeout(Duration::from_secs(5)),
        )
        .await
        .unwrap()
        .invoker()
}

fn keys_call() -> Invocation {
    Invocation::new(
        ServiceKey::interface_only(PROBE),
        Arc::new(MethodSignature::new(
            "keys",
            &[] as &[&str],
            "java.util.List",
        )),
        vec![],
    )
    .with_attachment("k1", "v1")
}

fn throw_call(class: &str) -> Invocation {
    Invocation::new(
        ServiceKey::interface_only(PROBE),
        Arc::new(MethodSignature::new(
            "throw",
            &["java.lang.String"],
            "java.lang.String",
        )),
        vec![Value::String(class.to_owned())],
    )
}

fn strings(v: &dubbo_rs::core::Payload) -> Vec<String> {
    v.clone().decode().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_sees_the_callers_attachments_without_the_frameworks() {
    let (app, dubbo, tri, _) = provider(None).await;
    let consumer = Application::builder("probe-consumer").build().unwrap();
    for url in [
        format!("dubbo://127.0.0.1:{dubbo}"),
        format!("tri://127.0.0.1:{tri}"),
    ] {
        let invoker = reference(&consumer, url.clone()).await;
        let r = invoker.invoke(keys_call()).await.unwrap();
        let keys = strings(&r.value);
        assert!(keys.contains(&"k1".to_owned()), "{url}: {keys:?}");
        for hidden in [
            "path",
            "interface",
            "version",
            "group",
            "token",
            "timeout",
            "dubbo",
        ] {
            assert!(
                !keys.iter().any(|k| k == hidden),
                "{url}: {hidden} in {keys:?}"
            );
        }
    }
    consumer.shutdown().await;
    app.shutdown().await;

    // Without the filter the service sees every attachment, the token included.
    let (app, dubbo, _, _) = provider(Some("-context")).await;
    let consumer = Application::builder("probe-consumer").build().unwrap();
    let invoker = reference(&consumer, format!("dubbo://127.0.0.1:{dubbo}")).await;
    let keys = strings(&invoker.invoke(keys_call()).await.unwrap().value);
    assert!(keys.contains(&"token".to_owned()), "{keys:?}");
    consumer.shutdown().await;
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_deadline_has_passed_is_not_sent() {
    let (app, dubbo, _, calls) = provider(None).await;
    let consumer = Application::builder("probe-consumer").build().unwrap();
    let invoker = reference(&consumer, format!("dubbo://127.0.0.1:{dubbo}")).await;
    invoker.invoke(keys_call()).await.unwrap();
    let mut late = keys_call();
    late.context_mut().set_deadline(
        Instant::now()
            .checked_sub(Duration::from_millis(5))
            .unwrap(),
    );
    let e = invoker.invoke(late).await.unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::Timeout), "{e}");
    assert!(e.message().contains("no time left"), "{e}");
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "the late call was not sent"
    );
    consumer.shutdown().await;
    app.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exceptions_a_consumer_may_not_have_are_wrapped() {
    let (app, dubbo, tri, _) = provider(None).await;
    let consumer = Application::builder("probe-consumer").build().unwrap();
    for url in [
        format!("dubbo://127.0.0.1:{dubbo}"),
        format!("tri://127.0.0.1:{tri}"),
    ] {
        let invoker = reference(&consumer, url.clone()).await;
        let class = |class: &str| {
            let invoker = invoker.clone();
            let call = throw_call(class);
            async move {
                let e = invoker.invoke(call).await.unwrap_err();
                let b = e.as_business().expect("a business exception").clone();
                (b.class_name, b.message.unwrap_or_default())
            }
        };
        // JDK classes and the interface's own package pass unchanged.
        for own in [
            "java.lang.IllegalStateException",
            "org.example.ctx.ProbeException",
        ] {
            assert_eq!(
                class(own).await,
                (own.to_owned(), "boom".to_owned()),
                "{url}"
            );
        }
        // Another package's class becomes a RuntimeException carrying its toString().
        assert_eq!(
            class("com.other.SecretException").await,
            (
                "java.lang.RuntimeException".to_owned(),
                "com.other.SecretException: boom".to_owned()
            ),
            "{url}"
        );
    }
    consumer.shutdown().await;
    app.shutdown().await;

    // `-exception` passes every exception as thrown.
    let (app, dubbo, _, _) = provider(Some("-exception")).await;
    let consumer = Application::builder("probe-consumer").build().unwrap();
    let invoker = reference(&consumer, format!("dubbo://127.0.0.1:{dubbo}")).await;
    let e = invoker
        .invoke(throw_call("com.other.SecretException"))
        .await
        .unwrap_err();
    assert_eq!(
        e.as_business().map(|b| b.class_name.as_str()),
        Some("com.other.SecretException")
    );
    consumer.shutdown().await;
    app.shutdown().await;
}
