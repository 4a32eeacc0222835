//! The generated Greeter client built `from_invoker`: every call, unary or streaming, goes
//! once through a filter chain and a `TripleInvoker` to a real Triple server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::{
    BoxFuture, Filter, FilterChain, Invocation, Invoker, Next, RpcResult, ServiceKey, Value,
};
use dubbo_protocol_triple::{
    Code, IdlCall, MethodKind, Request, TripleChannel, TripleClient, TripleConfig, TripleInvoker,
    TripleServer,
};
use dubbo_triple_greeter::{ContractGreeter, GreeterClient, GreeterRequest, GreeterServer};
use futures::StreamExt;

/// What the filter saw of one call.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    service: ServiceKey,
    method: String,
    parameter_types: Vec<String>,
    return_type: String,
    kind: Option<MethodKind>,
    binary_args: usize,
    trace: Option<String>,
    result_is_binary: Option<bool>,
}

#[derive(Default)]
struct Recorder {
    seen: Mutex<Vec<Seen>>,
}

impl Filter for Recorder {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        Box::pin(async move {
            let mut seen = Seen {
                service: invocation.service().clone(),
                method: invocation.method_name().to_owned(),
                parameter_types: invocation
                    .method()
                    .parameter_types()
                    .iter()
                    .map(|t| t.to_string())
                    .collect(),
                return_type: invocation.method().return_type().to_owned(),
                kind: invocation.context().get::<IdlCall>().map(IdlCall::kind),
                binary_args: invocation
                    .args()
                    .iter()
                    .filter(|a| matches!(a.as_value(), Some(Value::Binary(_))))
                    .count(),
                trace: invocation
                    .attachments()
                    .get_str("x-trace")
                    .map(str::to_owned),
                result_is_binary: None,
            };
            let result = next.run(invocation).await;
            seen.result_is_binary = result
                .as_ref()
                .ok()
                .map(|r| matches!(r.value.as_value(), Some(Value::Binary(_))));
            self.seen.lock().unwrap().push(seen);
            result
        })
    }
}

async fn setup() -> (TripleServer, GreeterClient, Arc<Recorder>) {
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default())
        .await
        .unwrap();
    server.add_idl_service(GreeterServer::new(ContractGreeter));
    let addr = server.local_addr();
    let url = dubbo_url::Url::parse(&format!(
        "tri://{addr}/{}?version=1.0.0&timeout=3000",
        GreeterClient::SERVICE_NAME
    ))
    .unwrap();
    let channel = TripleChannel::lazy(addr.to_string(), TripleConfig::default());
    let invoker: Arc<dyn Invoker> = Arc::new(TripleInvoker::new(url, TripleClient::new(channel)));
    let recorder = Arc::new(Recorder::default());
    let chain = FilterChain::new(vec![recorder.clone() as Arc<dyn Filter>], invoker);
    let client = GreeterClient::from_invoker(Arc::new(chain));
    (server, client, recorder)
}

fn req(name: &str) -> GreeterRequest {
    GreeterRequest { name: name.into() }
}

#[tokio::test]
async fn every_call_kind_passes_the_filter_chain_once() {
    let (server, client, recorder) = setup().await;
    assert!(client.inner().is_none());

    let mut request = Request::new(req("unary"));
    request
        .metadata_mut()
        .insert("x-trace", "t-1".parse().unwrap());
    request.set_timeout(Duration::from_secs(2));
    assert_eq!(client.greet(request).await.unwrap().message, "Hello unary");

    let replies: Vec<String> = client
        .greet_server_stream(req("s"))
        .await
        .unwrap()
        .map(|r| r.unwrap().message)
        .collect()
        .await;
    assert_eq!(replies.len(), 10);
    assert_eq!(replies[9], "Hello s #9");

    let names = futures::stream::iter(["a", "b", "c"].map(req));
    assert_eq!(
        client.greet_client_stream(names).await.unwrap().message,
        "Hello a,b,c"
    );

    // Interleaved: each reply arrives before the next request is sent.
    let (tx, rx) = tokio::sync::mpsc::channel::<GreeterRequest>(1);
    let mut rx = rx;
    let input = futures::stream::poll_fn(move |cx| rx.poll_recv(cx));
    let mut out = client.greet_bi_stream(input).await.unwrap();
    for i in 0..3 {
        tx.send(req(&format!("p{i}"))).await.unwrap();
        let r = out.message().await.unwrap().unwrap();
        assert_eq!(r.message, format!("Hello p{i}"));
    }
    drop(tx);
    assert!(out.message().await.unwrap().is_none());

    let seen = recorder.seen.lock().unwrap().clone();
    assert_eq!(
        seen.len(),
        4,
        "one pass through the chain per call: {seen:?}"
    );
    let kinds: Vec<_> = seen.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        vec![
            Some(MethodKind::Unary),
            Some(MethodKind::ServerStreaming),
            Some(MethodKind::ClientStreaming),
            Some(MethodKind::BidiStreaming),
        ]
    );
    let unary = &seen[0];
    assert_eq!(
        unary.service,
        ServiceKey::new(GreeterClient::SERVICE_NAME, None, Some("1.0.0"))
    );
    assert_eq!(unary.method, "Greet");
    assert_eq!(
        unary.parameter_types,
        vec!["org.apache.dubbo.interop.tri.GreeterRequest".to_owned()]
    );
    assert_eq!(
        unary.return_type,
        "org.apache.dubbo.interop.tri.GreeterReply"
    );
    assert_eq!(unary.binary_args, 1);
    assert_eq!(unary.trace.as_deref(), Some("t-1"));
    assert_eq!(unary.result_is_binary, Some(true));
    assert_eq!(seen[1].method, "GreetServerStream");
    assert_eq!(seen[1].binary_args, 1);
    assert_eq!(
        seen[2].binary_args, 0,
        "client stream travels in the context"
    );
    assert_eq!(seen[2].result_is_binary, Some(true));
    assert_eq!(seen[3].binary_args, 0);

    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn grpc_errors_come_back_as_statuses() {
    let (server, client, recorder) = setup().await;
    assert!(server.remove_idl_service(GreeterClient::SERVICE_NAME));
    let err = client.greet(req("gone")).await.unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err}");
    let err = client
        .greet_server_stream(req("gone"))
        .await
        .map(|_| ())
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented, "{err}");
    assert_eq!(recorder.seen.lock().unwrap().len(), 2);
    server.shutdown(Duration::from_secs(1)).await;
}
