//! The generated Greeter stub and server, all four call kinds, over real sockets.

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
