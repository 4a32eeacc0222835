//! The response wrapper names the called method's declared return type, as Java's provider
//! does (`void` for a `void` method, `java.lang.Object` for a method declared `Object` whatever
//! it returns, `int` for a primitive), not the runtime class of the value.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::service::{ServiceHandler, ServiceInvoker};
use dubbo_core::{BoxFuture, MethodSignature, Payload, Protocol, RequestContext, RpcError, Value};
use dubbo_protocol_triple::wrapper::{TripleRequestWrapper, TripleResponseWrapper};
use dubbo_protocol_triple::{TripleChannel, TripleClient, TripleConfig, TripleProtocol};
use dubbo_url::Url;

const IFACE: &str = "org.example.Declared";

struct Declared {
    methods: Vec<Arc<MethodSignature>>,
}

impl ServiceHandler for Declared {
    fn interface(&self) -> &str {
        IFACE
    }

    fn methods(&self) -> &[Arc<MethodSignature>] {
        &self.methods
    }

    fn call<'a>(
        &'a self,
        method: &'a MethodSignature,
        _args: Vec<Payload>,
        _ctx: &'a mut RequestContext,
    ) -> BoxFuture<'a, Result<Payload, RpcError>> {
        Box::pin(async move {
            Ok(match method.name() {
                "ping" => Payload::null(),
                "anything" => Payload::from(Value::String("a string".into())),
                // Overloads: count() is int, count(String) is long.
                "count" if method.parameter_types().is_empty() => Payload::from(Value::Int(3)),
                _ => Payload::from(Value::Long(4)),
            })
        })
    }
}

#[tokio::test]
async fn wrapper_response_names_the_declared_return_type() {
    let handler = Declared {
        methods: vec![
            Arc::new(MethodSignature::new::<&str>("ping", &[], "void")),
            Arc::new(MethodSignature::new::<&str>(
                "anything",
                &[],
                "java.lang.Object",
            )),
            Arc::new(MethodSignature::new::<&str>("count", &[], "int")),
            Arc::new(MethodSignature::new("count", &["java.lang.String"], "long")),
        ],
    };
    let protocol = TripleProtocol::default();
    let url = Url::parse(&format!("tri://127.0.0.1/{IFACE}?bind.port=0")).unwrap();
    let invoker = ServiceInvoker::new(Arc::new(handler), url.clone());
    let _exporter = protocol
        .export(url.clone(), Arc::new(invoker))
        .await
        .unwrap();
    let addr = protocol.server_for(&url).await.unwrap().local_addr();
    let client = TripleClient::new(
        TripleChannel::connect(addr.to_string(), TripleConfig::default())
            .await
            .unwrap(),
    );
    let cases: [(&str, Vec<Payload>, &[&str], &str); 4] = [
        ("ping", vec![], &[], "void"),
        ("anything", vec![], &[], "java.lang.Object"),
        ("count", vec![], &[], "int"),
        (
            "count",
            vec![Payload::from(Value::String("x".into()))],
            &["java.lang.String"],
            "long",
        ),
    ];
    for (method, args, types, want) in cases {
        let req = TripleRequestWrapper::hessian(&args, types).unwrap();
        let raw = client
            .unary_raw(
                &format!("/{IFACE}/{method}"),
                &http::HeaderMap::new(),
                req.encode(),
                Some(Duration::from_secs(3)),
            )
            .await
            .unwrap();
        let resp = TripleResponseWrapper::decode(raw.payload).unwrap();
        assert_eq!(resp.type_name, want, "{method}{types:?}");
    }
    protocol.shutdown(Duration::from_secs(1)).await;
}
