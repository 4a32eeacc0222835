//! gRPC server reflection and health on a Triple server, through the crate's own client over
//! real sockets (grpcurl and grpcio check the same from outside in the test command).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use dubbo_protocol_triple::server::health::{
    HealthCheckRequest, HealthCheckResponse, ServingStatus,
};
use dubbo_protocol_triple::server::reflection::{
    ReflectionAnswer, ReflectionQuery, ServerReflectionRequest, ServerReflectionResponse,
};
use dubbo_protocol_triple::{
    Code, Request, TripleChannel, TripleClient, TripleConfig, TripleServer,
};
use dubbo_triple_greeter::{ContractGreeter, GreeterServer};
use prost::Message;

const GREETER: &str = "org.apache.dubbo.interop.tri.Greeter";

async fn server() -> TripleServer {
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default())
        .await
        .unwrap();
    server.add_idl_service(GreeterServer::new(ContractGreeter));
    dubbo_triple_greeter::add_interop_service(&server);
    server
}

async fn client(server: &TripleServer) -> TripleClient {
    let channel = TripleChannel::connect(server.local_addr().to_string(), TripleConfig::default())
        .await
        .unwrap();
    TripleClient::new(channel)
}

async fn ask(
    client: &TripleClient,
    version: &str,
    queries: Vec<ReflectionQuery>,
) -> Vec<ServerReflectionResponse> {
    let requests: Vec<ServerReflectionRequest> = queries
        .into_iter()
        .map(|q| ServerReflectionRequest {
            host: String::new(),
            message_request: Some(q),
        })
        .collect();
    let path = format!("/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo");
    let mut answers = client
        .bidi_streaming::<_, _, ServerReflectionResponse>(
            &path,
            Request::new(futures::stream::iter(requests)),
        )
        .await
        .unwrap()
        .into_inner();
    let mut out = Vec::new();
    while let Some(a) = answers.message().await.unwrap() {
        out.push(a);
    }
    out
}

#[tokio::test]
async fn reflection_lists_and_describes_both_versions() {
    let server = server().await;
    let client = client(&server).await;
    for version in ["v1", "v1alpha"] {
        let answers = ask(
            &client,
            version,
            vec![
                ReflectionQuery::ListServices(String::new()),
                ReflectionQuery::FileContainingSymbol(format!("{GREETER}.Greet")),
                ReflectionQuery::FileContainingSymbol(
                    "org.apache.dubbo.interop.tri.GreeterReply".into(),
                ),
                ReflectionQuery::FileContainingSymbol("grpc.health.v1.Health".into()),
                ReflectionQuery::FileContainingSymbol("no.such.Service".into()),
                ReflectionQuery::FileByFilename("greeter.proto".into()),
            ],
        )
        .await;
        assert_eq!(answers.len(), 6, "one answer per request ({version})");
        let Some(ReflectionAnswer::ListServicesResponse(list)) = &answers[0].message_response
        else {
            panic!("{:?}", answers[0])
        };
        let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
        for expected in [
            GREETER,
            dubbo_triple_greeter::INTEROP_SERVICE,
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        ] {
            assert!(
                names.contains(&expected),
                "{expected} missing from {names:?}"
            );
        }
        for (at, file) in [
            (1, "greeter.proto"),
            (2, "greeter.proto"),
            (3, "grpc/health/v1/health.proto"),
            (5, "greeter.proto"),
        ] {
            let Some(ReflectionAnswer::FileDescriptorResponse(files)) =
                &answers[at].message_response
            else {
                panic!("answer {at}: {:?}", answers[at])
            };
            let first =
                prost_types::FileDescriptorProto::decode(files.file_descriptor_proto[0].as_slice())
                    .unwrap();
            assert_eq!(first.name(), file, "answer {at}");
        }
        let Some(ReflectionAnswer::ErrorResponse(e)) = &answers[4].message_response else {
            panic!("{:?}", answers[4])
        };
        assert_eq!(e.error_code, Code::NotFound as i32);
        assert!(
            e.error_message.contains("no.such.Service"),
            "{}",
            e.error_message
        );
    }
    server.shutdown(Duration::from_secs(1)).await;
}

async fn check(client: &TripleClient, service: &str) -> Result<ServingStatus, Code> {
    client
        .unary::<_, HealthCheckResponse>(
            "/grpc.health.v1.Health/Check",
            Request::new(HealthCheckRequest {
                service: service.into(),
            }),
        )
        .await
        .map(|r| ServingStatus::try_from(r.into_inner().status).unwrap())
        .map_err(|s| s.code())
}

#[tokio::test]
async fn health_follows_the_servers_lifecycle() {
    let server = server().await;
    let client = client(&server).await;
    assert_eq!(check(&client, "").await, Ok(ServingStatus::Serving));
    assert_eq!(check(&client, GREETER).await, Ok(ServingStatus::Serving));
    assert_eq!(
        check(&client, dubbo_triple_greeter::INTEROP_SERVICE).await,
        Ok(ServingStatus::Serving)
    );
    assert_eq!(check(&client, "no.such.Service").await, Err(Code::NotFound));

    let mut watch = client
        .server_streaming::<_, HealthCheckResponse>(
            "/grpc.health.v1.Health/Watch",
            Request::new(HealthCheckRequest {
                service: String::new(),
            }),
        )
        .await
        .unwrap()
        .into_inner();
    let first = watch.message().await.unwrap().unwrap();
    assert_eq!(first.status, ServingStatus::Serving as i32);

    // An application starting its graceful shutdown says so before anything else.
    server.set_serving(false);
    let next = tokio::time::timeout(Duration::from_secs(5), watch.message())
        .await
        .expect("the watcher is told")
        .unwrap()
        .unwrap();
    assert_eq!(next.status, ServingStatus::NotServing as i32);
    assert_eq!(check(&client, "").await, Ok(ServingStatus::NotServing));
    assert_eq!(check(&client, GREETER).await, Ok(ServingStatus::NotServing));
    server.set_serving(true);
    assert_eq!(check(&client, "").await, Ok(ServingStatus::Serving));
    let serving_again = watch.message().await.unwrap().unwrap();
    assert_eq!(serving_again.status, ServingStatus::Serving as i32);
    // Shutdown ends the watch (after telling it) instead of holding the drain for its grace.
    let started = std::time::Instant::now();
    server.shutdown(Duration::from_secs(20)).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(!server.is_serving());
    let last = watch.message().await.unwrap().unwrap();
    assert_eq!(last.status, ServingStatus::NotServing as i32);
    assert!(watch.message().await.unwrap().is_none(), "the watch ends");
}
