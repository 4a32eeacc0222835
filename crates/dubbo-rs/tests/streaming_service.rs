//! A `#[dubbo_rs::service]` trait that mixes unary and streaming methods, exported by an
//! application on dubbo:// and tri:// and called through references with the client the trait
//! generates: every stream kind, an error mid-stream, a cancel the provider sees, the unary
//! method of the same interface, the provider's filters on stream calls, and what a dubbo://
//! reference answers for a stream.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dubbo_rs::config::DubboConfig;
use dubbo_rs::core::{BoxFuture, Filter, FilterSpec, Invocation, Next, RpcResult, Stage};
use dubbo_rs::prelude::*;
use dubbo_rs::protocol_triple::{Code, Status};
use dubbo_rs::Framework;
use futures::StreamExt;

#[dubbo_rs::service(interface = "org.example.Ticker")]
pub trait Ticker: Send + Sync + 'static {
    /// Unary, on the same interface as the streams.
    async fn name(&self) -> Result<String, RpcError>;
    /// `"n"`: `0..n`; `"n:fail"`: the n values, then an error; `"forever"`: every 10 ms.
    async fn count(&self, spec: String) -> Result<ResponseStream<i64>, Status>;
    /// The sum of the requests; a negative request is refused.
    async fn sum(&self, values: Streaming<i64>) -> Result<i64, RpcError>;
    /// `echo:m` for each request m.
    #[dubbo(name = "biEcho")]
    async fn echo(&self, requests: Streaming<String>) -> Result<ResponseStream<String>, Status>;
}

/// Counts a stream dropped before it ended.
struct Dropped(Arc<AtomicUsize>, bool);

impl Drop for Dropped {
    fn drop(&mut self) {
        if !self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[derive(Default)]
struct Impl {
    cancelled: Arc<AtomicUsize>,
}

impl Ticker for Impl {
    async fn name(&self) -> Result<String, RpcError> {
        Ok("ticker".into())
    }

    async fn count(&self, spec: String) -> Result<ResponseStream<i64>, Status> {
        if spec == "forever" {
            let guard = Dropped(self.cancelled.clone(), false);
            return Ok(Box::pin(futures::stream::unfold(
                (0i64, guard),
                |(i, g)| async move {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    Some((Ok(i), (i + 1, g)))
                },
            )));
        }
        let (n, fail) = match spec.strip_suffix(":fail") {
            Some(n) => (n, true),
            None => (spec.as_str(), false),
        };
        let n: i64 = n
            .parse()
            .map_err(|_| Status::invalid_argument(format!("not a count: {spec}")))?;
        let end = fail.then(|| Err(Status::unknown(format!("failed after {n}"))));
        Ok(Box::pin(futures::stream::iter((0..n).map(Ok).chain(end))))
    }

    async fn sum(&self, mut values: Streaming<i64>) -> Result<i64, RpcError> {
        let mut sum = 0;
        while let Some(v) = values.next().await {
            let v = v.map_err(RpcError::from)?;
            if v < 0 {
                // Not a business exception: a failover reference would send it again, were
                // it not a stream.
                return Err(Status::unknown(format!("negative: {v}")).into());
            }
            sum += v;
        }
        Ok(sum)
    }

    async fn echo(&self, requests: Streaming<String>) -> Result<ResponseStream<String>, Status> {
        let guard = Dropped(self.cancelled.clone(), false);
        Ok(Box::pin(requests.map(move |r| {
            let _ = &guard;
            r.map(|m| format!("echo:{m}"))
        })))
    }
}

/// Counts the provider calls of one interface that reach the service.
struct Counting(Arc<AtomicUsize>);

impl Filter for Counting {
    fn invoke<'a>(&'a self, call: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        if call.service().interface() == "org.example.Ticker" {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        next.run(call)
    }
}

const PROVIDER_YAML: &str = "
dubbo:
  application:
    name: ticker-provider
  protocols:
    dubbo:
      port: 0
      host: 127.0.0.1
    tri:
      port: 0
      host: 127.0.0.1
  provider:
    filter: counting
";

struct Provider {
    app: Application,
    dubbo: u16,
    tri: u16,
    calls: Arc<AtomicUsize>,
    cancelled: Arc<AtomicUsize>,
    /// The `methods` of the tri:// URL.
    methods: String,
}

async fn provider() -> Provider {
    let framework = Framework::new();
    let calls = Arc::new(AtomicUsize::new(0));
    framework.register_filter(
        FilterSpec::new(
            "counting",
            0,
            &[Stage::Provider],
            Arc::new(Counting(calls.clone())),
        )
        .on_request(),
    );
    let app = Application::builder("ticker-provider")
        .framework(framework)
        .config(DubboConfig::from_yaml(PROVIDER_YAML).unwrap())
        .build()
        .unwrap();
    let service = Impl::default();
    let cancelled = service.cancelled.clone();
    let urls = app
        .default_module()
        .export(TickerServer::new(service), ServiceOptions::new())
        .await
        .unwrap();
    let port_of = |scheme: &str| {
        urls.iter()
            .find(|u| u.protocol() == Some(scheme))
            .map(|u| u.port())
            .unwrap()
    };
    let methods = urls
        .iter()
        .find(|u| u.protocol() == Some("tri"))
        .and_then(|u| u.parameter("methods"))
        .unwrap_or_default()
        .to_owned();
    Provider {
        methods,
        dubbo: port_of("dubbo"),
        tri: port_of("tri"),
        app,
        calls,
        cancelled,
    }
}

async fn client(consumer: &Application, url: String) -> TickerClient {
    let reference = consumer
        .default_module()
        .refer(ReferenceOptions::new("org.example.Ticker").url(url))
        .await
        .unwrap();
    TickerClient::new(reference.invoker())
}

async fn drain<T>(mut s: Streaming<T>) -> (Vec<T>, Option<Status>) {
    let mut out = Vec::new();
    while let Some(m) = s.next().await {
        match m {
            Ok(v) => out.push(v),
            Err(e) => return (out, Some(e)),
        }
    }
    (out, None)
}

async fn await_count(counter: &AtomicUsize, want: usize) {
    for _ in 0..200 {
        if counter.load(Ordering::SeqCst) >= want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "count stayed {} (wanted {want})",
        counter.load(Ordering::SeqCst)
    );
}

#[tokio::test]
async fn every_stream_kind_through_a_reference_and_the_unary_method_beside_them() {
    let p = provider().await;
    let consumer = Application::builder("ticker-consumer").build().unwrap();
    let ticker = client(&consumer, format!("tri://127.0.0.1:{}", p.tri)).await;

    // The unary method of an interface whose streams are served next to it, all listed as
    // Java lists them.
    assert_eq!(p.methods, "biEcho,count,name,sum");
    assert_eq!(ticker.name().await.unwrap(), "ticker");

    let (items, end) = drain(ticker.count("3".into()).await.unwrap()).await;
    assert_eq!((items, end.map(|s| s.code())), (vec![0, 1, 2], None));

    let (items, end) = drain(ticker.count("2:fail".into()).await.unwrap()).await;
    assert_eq!(items, vec![0, 1]);
    let end = end.expect("the error ends the stream");
    assert!(end.message().contains("failed after 2"), "{end:?}");

    // An error before the stream starts is the call's.
    let err = match ticker.count("x".into()).await {
        Ok(s) => drain(s).await.1.expect("an error"),
        Err(e) => e,
    };
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");

    let sum = ticker.sum(futures::stream::iter([1i64, 2, 3])).await;
    assert_eq!(sum.unwrap(), 6);
    let refused = ticker.sum(futures::stream::iter([1i64, -2, 3])).await;
    let refused = refused.expect_err("a negative value is refused");
    assert!(refused.to_string().contains("negative: -2"), "{refused}");

    let (items, end) = drain(
        ticker
            .echo(futures::stream::iter(["a".to_owned(), "b".to_owned()]))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(items, ["echo:a", "echo:b"]);
    assert!(end.is_none(), "{end:?}");

    // Every call, streams included, went through the provider's filters once: seven. The
    // failed streams are not sent again, though their errors are not business exceptions
    // (a client stream's requests are gone; Java never sends a stream twice either).
    assert_eq!(p.calls.load(Ordering::SeqCst), 7);
    p.app.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn dropping_a_response_stream_cancels_the_call_on_the_provider() {
    let p = provider().await;
    let consumer = Application::builder("ticker-consumer").build().unwrap();
    let ticker = client(&consumer, format!("tri://127.0.0.1:{}", p.tri)).await;

    let mut s = ticker.count("forever".into()).await.unwrap();
    for want in 0..3 {
        assert_eq!(s.next().await.unwrap().unwrap(), want);
    }
    drop(s);
    await_count(&p.cancelled, 1).await;

    let (tx, rx) = tokio::sync::mpsc::channel::<String>(4);
    let requests =
        futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|m| (m, rx)) });
    tx.send("x".into()).await.unwrap();
    let mut s = ticker.echo(requests).await.unwrap();
    assert_eq!(s.next().await.unwrap().unwrap(), "echo:x");
    // The request side is still open: dropping the responses cancels the call.
    drop(s);
    await_count(&p.cancelled, 2).await;
    drop(tx);
    p.app.shutdown().await;
    consumer.shutdown().await;
}

#[tokio::test]
async fn streams_are_served_on_tri_only_and_a_dubbo_reference_says_so() {
    let p = provider().await;
    let consumer = Application::builder("ticker-consumer").build().unwrap();
    let ticker = client(&consumer, format!("dubbo://127.0.0.1:{}", p.dubbo)).await;
    assert_eq!(ticker.name().await.unwrap(), "ticker");
    let err = ticker
        .count("3".into())
        .await
        .expect_err("dubbo:// does not stream");
    assert!(err.message().contains("tri://"), "{err:?}");
    p.app.shutdown().await;
    consumer.shutdown().await;
}
