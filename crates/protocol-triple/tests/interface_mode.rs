//! Interface (wrapper) mode: core invokers exported with TripleProtocol and called through the
//! wrapper-mode invoker; business exceptions, attachments, $echo and $invoke.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::filters::builtin_filters;
use dubbo_core::{
    ErrorCode, FilterChain, Invocation, Invoker, MethodSignature, Protocol, ServiceKey, Stage,
    Value,
};
mod common;
use common::interop_invoker;
use dubbo_protocol_triple::wrapper::{decode_hessian, TripleRequestWrapper, TripleResponseWrapper};
use dubbo_protocol_triple::{TripleChannel, TripleClient, TripleConfig, TripleProtocol};
use dubbo_url::Url;

const IFACE: &str = "org.apache.dubbo.interop.InteropService";

async fn setup() -> (TripleProtocol, Arc<dyn Invoker>, String) {
    let protocol = TripleProtocol::default();
    let url = Url::parse(&format!(
        "tri://127.0.0.1/{IFACE}?version=1.0.0&bind.port=0"
    ))
    .unwrap();
    let served = FilterChain::build(
        &builtin_filters(),
        Stage::Provider,
        &url,
        interop_invoker(url.clone()),
    );
    let exporter = protocol
        .export(url.clone(), Arc::new(served))
        .await
        .unwrap();
    assert_eq!(exporter.key(), &ServiceKey::new(IFACE, None, Some("1.0.0")));
    let server = protocol.server_for(&url).await.unwrap();
    let addr = server.local_addr();
    let consumer_url = Url::parse(&format!(
        "tri://{addr}/{IFACE}?version=1.0.0&application=test-consumer&timeout=3000"
    ))
    .unwrap();
    let invoker = protocol.refer(consumer_url).await.unwrap();
    (protocol, invoker, addr.to_string())
}

fn call(method: &str, types: &[&str], args: Vec<Value>) -> Invocation {
    Invocation::new(
        ServiceKey::new(IFACE, None, Some("1.0.0")),
        Arc::new(MethodSignature::new(method, types, "java.lang.Object")),
        args,
    )
}

#[tokio::test]
async fn wrapper_calls_exceptions_attachments() {
    let (protocol, invoker, _) = setup().await;

    let r = invoker
        .invoke(call(
            "sayHello",
            &["java.lang.String"],
            vec!["world".into()],
        ))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello world".into()));

    let r = invoker
        .invoke(call(
            "addInt",
            &["int", "int"],
            vec![Value::Int(i32::MAX), Value::Int(1)],
        ))
        .await
        .unwrap();
    assert_eq!(r.value, Value::Int(i32::MIN));

    // A business exception comes back typed, with class and message.
    let err = invoker
        .invoke(call("fail", &["java.lang.String"], vec!["boom".into()]))
        .await
        .unwrap_err();
    let b = err.as_business().expect("business exception");
    assert_eq!(b.class_name, "java.lang.IllegalStateException");
    assert_eq!(b.message.as_deref(), Some("boom"));

    // Attachments go as headers (case restored through tri-header-convert) and come back.
    let inv = call(
        "getAttachment",
        &["java.lang.String"],
        vec!["traceId".into()],
    )
    .with_attachment("traceId", "t-42");
    let r = invoker.invoke(inv).await.unwrap();
    assert_eq!(r.value, Value::String("t-42".into()));
    assert_eq!(r.attachments.get_str("served-by"), Some("rust"));

    // A version nobody exports reaches the interface's only export, as Java's Triple server
    // falls back (`TriplePathResolver`): the key is read, and no export is missed for it.
    let mut other = call("sayHello", &["java.lang.String"], vec!["x".into()]);
    other.set_service(ServiceKey::new(IFACE, None, Some("2.0.0")));
    let r = invoker.invoke(other).await.unwrap();
    assert_eq!(r.value, Value::String("Hello x".into()));
    // An interface nobody exports is not found.
    let mut missing = call("sayHello", &["java.lang.String"], vec!["x".into()]);
    missing.set_service(ServiceKey::new("org.example.Nobody", None, Some("1.0.0")));
    let err = invoker.invoke(missing).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::ServiceNotFound), "{err}");

    // Timeout from the URL/context.
    let mut slow = call("sleep", &["int"], vec![Value::Int(2000)]);
    slow.context_mut().set_timeout(Duration::from_millis(100));
    let err = invoker.invoke(slow).await.unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::Timeout), "{err}");
    protocol.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn echo_and_generic_invoke() {
    let (protocol, invoker, _) = setup().await;
    let r = invoker
        .invoke(Invocation::new(
            ServiceKey::new(IFACE, None, Some("1.0.0")),
            Arc::new(MethodSignature::echo()),
            vec![Value::String("ping".into())],
        ))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("ping".into()));

    let r = invoker
        .invoke(Invocation::new(
            ServiceKey::new(IFACE, None, Some("1.0.0")),
            Arc::new(MethodSignature::generic_invoke()),
            vec![
                Value::String("sayHello".into()),
                Value::typed_list("[string", vec![Value::String("java.lang.String".into())]),
                Value::typed_list("[object", vec![Value::String("generic".into())]),
            ],
        ))
        .await
        .unwrap();
    assert_eq!(r.value, Value::String("Hello generic".into()));
    protocol.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn business_exception_wire_format_matches_java() {
    let (protocol, _invoker, addr) = setup().await;
    let client = TripleClient::new(
        TripleChannel::connect(addr, TripleConfig::default())
            .await
            .unwrap(),
    )
    .with_version("1.0.0");
    let req =
        TripleRequestWrapper::hessian(&[Value::String("bad".into()).into()], &["java.lang.String"])
            .unwrap();
    let raw = client
        .unary_raw(
            &format!("/{IFACE}/fail"),
            &http::HeaderMap::new(),
            req.encode(),
            Some(Duration::from_secs(3)),
        )
        .await
        .unwrap();
    // tri-exception-code in the headers, grpc-status 0 in the trailers, the exception in the body.
    assert_eq!(raw.headers.get("tri-exception-code").unwrap(), "3");
    assert_eq!(raw.headers.get("content-type").unwrap(), "application/grpc");
    assert_eq!(raw.trailers.get("grpc-status").unwrap(), "0");
    let resp = TripleResponseWrapper::decode(raw.payload).unwrap();
    assert_eq!(resp.serialize_type, "hessian4");
    assert_eq!(resp.type_name, "java.lang.IllegalStateException");
    let ex = decode_hessian(&resp.data).unwrap();
    let obj = ex.as_object().unwrap();
    assert_eq!(obj.class, "java.lang.IllegalStateException");
    assert_eq!(obj.get("detailMessage"), Some(&Value::String("bad".into())));

    // A wrapper with an unknown field is INTERNAL; the connection stays usable.
    let mut bad = req.encode().to_vec();
    bad.extend_from_slice(b"\x22\x00");
    let err = client
        .unary_raw(
            &format!("/{IFACE}/fail"),
            &http::HeaderMap::new(),
            bad.into(),
            Some(Duration::from_secs(3)),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), dubbo_protocol_triple::Code::Internal);
    let ok =
        TripleRequestWrapper::hessian(&[Value::String("w".into()).into()], &["java.lang.String"])
            .unwrap();
    let raw = client
        .unary_raw(
            &format!("/{IFACE}/sayHello"),
            &http::HeaderMap::new(),
            ok.encode(),
            Some(Duration::from_secs(3)),
        )
        .await
        .unwrap();
    let resp = TripleResponseWrapper::decode(raw.payload).unwrap();
    assert_eq!(
        decode_hessian(&resp.data).unwrap(),
        Value::String("Hello w".into())
    );
    assert_eq!(resp.type_name, "java.lang.String");
    protocol.shutdown(Duration::from_secs(1)).await;
}
