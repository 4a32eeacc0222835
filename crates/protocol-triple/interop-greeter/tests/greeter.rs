//! The generated Greeter stub and server, all four call kinds, over real sockets.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_protocol_triple::{Code, Request, TripleConfig, TripleServer};
use dubbo_triple_greeter::{
    run_client_cases, ContractGreeter, GreeterClient, GreeterRequest, GreeterServer,
};

#[tokio::test]
async fn generated_client_and_server_all_call_kinds() {
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default())
        .await
        .unwrap();
    server.add_idl_service(GreeterServer::new(ContractGreeter));
    let client = GreeterClient::connect(server.local_addr().to_string())
        .await
        .unwrap();
    assert_eq!(
        GreeterClient::SERVICE_NAME,
        "org.apache.dubbo.interop.tri.Greeter"
    );
    let (passed, failed) = run_client_cases(&client).await;
    assert_eq!((passed, failed), (4, 0));

    // Request metadata and a timeout travel through the generated stub.
    let mut req = Request::new(GreeterRequest { name: "md".into() });
    req.set_timeout(Duration::from_secs(2));
    req.metadata_mut().insert("x-trace", "1".parse().unwrap());
    assert_eq!(client.greet(req).await.unwrap().message, "Hello md");

    assert!(server.remove_idl_service("org.apache.dubbo.interop.tri.Greeter"));
    let err = client.greet(GreeterRequest::default()).await.unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    server.shutdown(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn interop_service_in_wrapper_mode() {
    use std::sync::Arc;

    use dubbo_core::{Invocation, MethodSignature, Protocol, ServiceKey, Value};

    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default())
        .await
        .unwrap();
    dubbo_triple_greeter::add_interop_service(&server);
    let protocol = dubbo_protocol_triple::TripleProtocol::default();
    let url = dubbo_url::Url::parse(&format!(
        "tri://{}/{}?version=1.0.0",
        server.local_addr(),
        dubbo_triple_greeter::INTEROP_SERVICE
    ))
    .unwrap();
    let invoker = protocol.refer(url).await.unwrap();
    let key = ServiceKey::new(dubbo_triple_greeter::INTEROP_SERVICE, None, Some("1.0.0"));
    let r = invoker
        .invoke(Invocation::new(
            key.clone(),
            Arc::new(MethodSignature::new(
                "listUsers",
                &["int"],
                "java.util.List",
            )),
            vec![Value::Int(3)],
        ))
        .await
        .unwrap();
    let users = r.value.to_value().unwrap();
    let users = users.as_list().unwrap();
    assert_eq!(users.items.len(), 3);
    assert_eq!(
        users.items[2].get("name"),
        Some(&Value::String("user-2".into()))
    );
    let r = invoker
        .invoke(Invocation::new(
            key,
            Arc::new(MethodSignature::echo()),
            vec![Value::Long(5)],
        ))
        .await
        .unwrap();
    assert_eq!(r.value, Value::Long(5));
}
