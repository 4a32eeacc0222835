//! Tracing end to end on 127.0.0.1: a consumer and a provider application with
//! `dubbo.tracing.enabled`, calling over dubbo:// and tri://, export their spans to an OTLP/HTTP
//! receiver started here; the server span continues the client span's trace, and a call made
//! while serving a call continues that trace too.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use dubbo_rs::config::DubboConfig;
use dubbo_rs::prelude::*;
use dubbo_rs::trace::otlp::{
    any_value, ExportTraceServiceRequest, KeyValue, Span, SPAN_KIND_CLIENT, SPAN_KIND_SERVER,
    STATUS_CODE_ERROR,
};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use prost::Message;

#[dubbo_rs::service(interface = "org.example.Clock")]
pub trait Clock {
    async fn echo(&self, text: String) -> Result<String, RpcError>;
    async fn fail(&self) -> Result<String, RpcError>;
}

struct ClockImpl;

impl Clock for ClockImpl {
    async fn echo(&self, text: String) -> Result<String, RpcError> {
        Ok(text)
    }

    async fn fail(&self) -> Result<String, RpcError> {
        Err(RpcError::business("java.lang.IllegalStateException", "no"))
    }
}

#[dubbo_rs::service(interface = "org.example.Relay")]
pub trait Relay {
    async fn relay(&self, text: String) -> Result<String, RpcError>;
}

/// Serves `relay` by calling the clock: a consumer call inside a provider call.
struct RelayImpl {
    clock: Arc<OnceLock<ClockClient>>,
}

impl Relay for RelayImpl {
    async fn relay(&self, text: String) -> Result<String, RpcError> {
        self.clock.get().expect("clock referred").echo(text).await
    }
}

/// A span as received, with the `service.name` of the resource that sent it.
#[derive(Debug, Clone)]
struct Received {
    service: String,
    span: Span,
}

/// An OTLP/HTTP receiver on a free 127.0.0.1 port; it stops with the test's runtime.
async fn otlp_receiver() -> (String, Arc<Mutex<Vec<Received>>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let spans: Arc<Mutex<Vec<Received>>> = Arc::default();
    let store = spans.clone();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let store = store.clone();
            let service =
                hyper::service::service_fn(move |req: http::Request<hyper::body::Incoming>| {
                    let store = store.clone();
                    async move {
                        // Origin form, as a collector (not a proxy) expects it.
                        assert_eq!(req.uri().to_string(), "/v1/traces");
                        let body = req.into_body().collect().await.unwrap().to_bytes();
                        let export = ExportTraceServiceRequest::decode(body).unwrap();
                        for rs in export.resource_spans {
                            let resource = rs.resource.map(|r| r.attributes).unwrap_or_default();
                            let service = text_of(&resource, "service.name")
                                .unwrap_or_default()
                                .to_owned();
                            for ss in rs.scope_spans {
                                for span in ss.spans {
                                    store.lock().unwrap().push(Received {
                                        service: service.clone(),
                                        span,
                                    });
                                }
                            }
                        }
                        Ok::<_, Infallible>(http::Response::new(Full::new(Bytes::new())))
                    }
                });
            tokio::spawn(
                hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service),
            );
        }
    });
    (format!("http://{addr}"), spans)
}

fn traced_yaml(name: &str, endpoint: &str) -> String {
    format!(
        "
dubbo:
  application:
    name: {name}
    shutdown-wait: 2000
  protocols:
    dubbo:
      port: 0
      host: 127.0.0.1
    tri:
      port: 0
      host: 127.0.0.1
  tracing:
    enabled: true
    sampling:
      probability: 1.0
    tracing-exporter:
      otlp-config:
        endpoint: {endpoint}
"
    )
}

/// Waits until `count` spans named `name` have arrived, and returns them.
async fn spans_named(spans: &Mutex<Vec<Received>>, name: &str, count: usize) -> Vec<Received> {
    for _ in 0..100 {
        let found: Vec<Received> = spans
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.span.name == name)
            .cloned()
            .collect();
        if found.len() >= count {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "{count} spans {name} never arrived: {:?}",
        spans.lock().unwrap()
    );
}

fn text_of<'s>(attributes: &'s [KeyValue], key: &str) -> Option<&'s str> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| match &kv.value.as_ref()?.value {
            Some(any_value::Value::StringValue(s)) => Some(s.as_str()),
            _ => None,
        })
}

fn text_attribute<'s>(span: &'s Span, key: &str) -> Option<&'s str> {
    text_of(&span.attributes, key)
}

fn one(spans: &[Received], kind: i32) -> &Received {
    let of_kind: Vec<&Received> = spans.iter().filter(|r| r.span.kind == kind).collect();
    assert_eq!(of_kind.len(), 1, "{spans:?}");
    of_kind[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_spans_continue_client_spans_over_dubbo_and_tri() {
    let (endpoint, spans) = otlp_receiver().await;
    let provider = Application::builder("trace-provider")
        .config(DubboConfig::from_yaml(&traced_yaml("trace-provider", &endpoint)).unwrap())
        .build()
        .unwrap();
    let urls = provider
        .default_module()
        .export(ClockServer::new(ClockImpl), ServiceOptions::new())
        .await
        .unwrap();
    let inner_clock = Arc::new(OnceLock::new());
    let relay_urls = provider
        .default_module()
        .export(
            RelayServer::new(RelayImpl {
                clock: inner_clock.clone(),
            }),
            ServiceOptions::new(),
        )
        .await
        .unwrap();
    let consumer = Application::builder("trace-consumer")
        .config(DubboConfig::from_yaml(&traced_yaml("trace-consumer", &endpoint)).unwrap())
        .build()
        .unwrap();
    let refer = |app: &Application, interface: &'static str, url: String| {
        let module = app.default_module();
        async move {
            module
                .refer(
                    ReferenceOptions::new(interface)
                        .url(url)
                        .timeout(Duration::from_secs(5)),
                )
                .await
                .unwrap()
                .invoker()
        }
    };

    for scheme in ["dubbo", "tri"] {
        let url = urls
            .iter()
            .find(|u| u.protocol() == Some(scheme))
            .unwrap()
            .to_string();
        let clock = ClockClient::new(refer(&consumer, "org.example.Clock", url).await);
        spans.lock().unwrap().clear();
        assert_eq!(clock.echo("hi".into()).await.unwrap(), "hi");
        let echo = spans_named(&spans, "org.example.Clock/echo", 2).await;
        let client = one(&echo, SPAN_KIND_CLIENT);
        let server = one(&echo, SPAN_KIND_SERVER);
        assert_eq!(client.service, "trace-consumer");
        assert_eq!(server.service, "trace-provider");
        assert_eq!(server.span.trace_id, client.span.trace_id, "{scheme}");
        assert_eq!(server.span.parent_span_id, client.span.span_id, "{scheme}");
        assert!(client.span.parent_span_id.is_empty());
        for s in [&client.span, &server.span] {
            assert_eq!(text_attribute(s, "rpc.system"), Some("apache_dubbo"));
            assert_eq!(text_attribute(s, "rpc.service"), Some("org.example.Clock"));
            assert_eq!(text_attribute(s, "rpc.method"), Some("echo"));
            assert!(s.status.is_none());
        }
        assert_eq!(
            text_attribute(&client.span, "net.peer.name"),
            Some("127.0.0.1")
        );
        assert_eq!(
            text_attribute(&server.span, "net.peer.name"),
            Some("127.0.0.1")
        );

        assert!(clock.fail().await.is_err());
        let fail = spans_named(&spans, "org.example.Clock/fail", 2).await;
        for kind in [SPAN_KIND_CLIENT, SPAN_KIND_SERVER] {
            let status = one(&fail, kind).span.status.clone().unwrap();
            assert_eq!(status.code, STATUS_CODE_ERROR, "{scheme}");
        }
    }

    // The provider's own call, made while serving `relay`, continues the consumer's trace.
    let dubbo_url = |list: &[dubbo_rs::url::Url]| {
        list.iter()
            .find(|u| u.protocol() == Some("dubbo"))
            .unwrap()
            .to_string()
    };
    let inner = refer(&provider, "org.example.Clock", dubbo_url(&urls)).await;
    let _ = inner_clock.set(ClockClient::new(inner));
    let relay =
        RelayClient::new(refer(&consumer, "org.example.Relay", dubbo_url(&relay_urls)).await);
    spans.lock().unwrap().clear();
    assert_eq!(relay.relay("deep".into()).await.unwrap(), "deep");
    let outer = spans_named(&spans, "org.example.Relay/relay", 2).await;
    let nested = spans_named(&spans, "org.example.Clock/echo", 2).await;
    let (outer_client, outer_server) =
        (one(&outer, SPAN_KIND_CLIENT), one(&outer, SPAN_KIND_SERVER));
    let (inner_client, inner_server) = (
        one(&nested, SPAN_KIND_CLIENT),
        one(&nested, SPAN_KIND_SERVER),
    );
    let trace = &outer_client.span.trace_id;
    for s in [outer_server, inner_client, inner_server] {
        assert_eq!(&s.span.trace_id, trace);
    }
    assert_eq!(outer_server.span.parent_span_id, outer_client.span.span_id);
    assert_eq!(inner_client.span.parent_span_id, outer_server.span.span_id);
    assert_eq!(inner_server.span.parent_span_id, inner_client.span.span_id);
    assert_eq!(inner_client.service, "trace-provider");

    consumer.shutdown().await;
    provider.shutdown().await;
}

#[tokio::test]
async fn tracing_is_off_unless_enabled() {
    let app = Application::builder("plain").build().unwrap();
    assert!(app.framework().tracers().is_empty());
    app.shutdown().await;
}
