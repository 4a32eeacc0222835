//! The services the servers implement: `org.apache.dubbo.bench.EchoService` (interface mode,
//! Hessian 2) and `org.apache.dubbo.bench.BenchService` (IDL, protobuf), the same work in both.

use std::collections::HashMap;
use std::pin::Pin;

use dubbo_protocol_triple::{Request, Response, Status};
use dubbo_rs::core::RpcError;
use futures::Stream;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

use crate::{tonic_pb, triple_pb};

/// `org.apache.dubbo.interop.User` (interop/java/interop-api), field for field in Java
/// declaration order: the POJO of dubbo-benchmark's list case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.User")]
pub struct User {
    /// `long id`
    pub id: i64,
    /// `String name`
    pub name: Option<String>,
    /// `int age`
    pub age: i32,
    /// `java.util.List<String> tags`
    pub tags: Option<Vec<String>>,
    /// `java.util.Map<String,String> attrs`
    pub attrs: Option<HashMap<String, String>>,
}

dubbo_rs::hessian2::java_type!(User => "org.apache.dubbo.interop.User");

impl User {
    /// User `i`: id i, name "user-i", age 20 + i % 50, tags ["ti"], attrs {"k": "vi"}.
    pub fn numbered(i: i32) -> Self {
        User {
            id: i64::from(i),
            name: Some(format!("user-{i}")),
            age: 20 + i % 50,
            tags: Some(vec![format!("t{i}")]),
            attrs: Some(HashMap::from([("k".to_owned(), format!("v{i}"))])),
        }
    }
}

/// The interface-mode bench service (Java: `org.apache.dubbo.bench.EchoService`).
#[dubbo_rs::service(interface = "org.apache.dubbo.bench.EchoService")]
pub trait EchoService {
    /// `void ping()`
    async fn ping(&self) -> Result<(), RpcError>;
    /// `byte[] echo(byte[] data)`: the same bytes back.
    async fn echo(&self, data: ByteBuf) -> Result<ByteBuf, RpcError>;
    /// `List<User> listUsers(int n)`: users 0..n-1.
    async fn list_users(&self, n: i32) -> Result<Vec<User>, RpcError>;
}

/// The provider of [`EchoService`].
#[derive(Debug, Default, Clone)]
pub struct EchoProvider;

impl EchoService for EchoProvider {
    async fn ping(&self) -> Result<(), RpcError> {
        Ok(())
    }

    async fn echo(&self, data: ByteBuf) -> Result<ByteBuf, RpcError> {
        Ok(data)
    }

    async fn list_users(&self, n: i32) -> Result<Vec<User>, RpcError> {
        Ok((0..n.max(0)).map(User::numbered).collect())
    }
}

/// Users 0..n-1 as the dubbo-build messages.
pub fn triple_users(n: i32) -> triple_pb::UserList {
    triple_pb::UserList {
        users: (0..n.max(0))
            .map(|i| triple_pb::User {
                id: i64::from(i),
                name: format!("user-{i}"),
                age: 20 + i % 50,
                tags: vec![format!("t{i}")],
                attrs: HashMap::from([("k".to_owned(), format!("v{i}"))]),
            })
            .collect(),
    }
}

/// Users 0..n-1 as the tonic messages.
pub fn tonic_users(n: i32) -> tonic_pb::UserList {
    tonic_pb::UserList {
        users: (0..n.max(0))
            .map(|i| tonic_pb::User {
                id: i64::from(i),
                name: format!("user-{i}"),
                age: 20 + i % 50,
                tags: vec![format!("t{i}")],
                attrs: HashMap::from([("k".to_owned(), format!("v{i}"))]),
            })
            .collect(),
    }
}

/// A stream of Triple payload messages.
pub type TriplePayloadStream =
    Pin<Box<dyn Stream<Item = Result<triple_pb::Payload, Status>> + Send + 'static>>;

/// The dubbo-rs IDL implementation of BenchService.
#[derive(Debug, Default, Clone)]
pub struct TripleBench;

impl triple_pb::BenchService for TripleBench {
    async fn ping(
        &self,
        _request: Request<triple_pb::Empty>,
    ) -> Result<Response<triple_pb::Empty>, Status> {
        Ok(Response::new(triple_pb::Empty {}))
    }

    async fn echo(
        &self,
        request: Request<triple_pb::Payload>,
    ) -> Result<Response<triple_pb::Payload>, Status> {
        Ok(Response::new(request.into_inner()))
    }

    async fn list_users(
        &self,
        request: Request<triple_pb::ListRequest>,
    ) -> Result<Response<triple_pb::UserList>, Status> {
        Ok(Response::new(triple_users(request.into_inner().n)))
    }

    type StreamEchoStream = TriplePayloadStream;

    async fn stream_echo(
        &self,
        request: Request<triple_pb::StreamRequest>,
    ) -> Result<Response<Self::StreamEchoStream>, Status> {
        let r = request.into_inner();
        let size = r.size.max(0) as usize;
        let items = (0..r.count.max(0)).map(move |_| {
            Ok(triple_pb::Payload {
                data: vec![0x5a; size],
            })
        });
        Ok(Response::new(Box::pin(futures::stream::iter(items))))
    }
}

/// A stream of tonic payload messages.
pub type TonicPayloadStream =
    Pin<Box<dyn Stream<Item = Result<tonic_pb::Payload, tonic::Status>> + Send + 'static>>;

/// The tonic implementation of BenchService (same work as [`TripleBench`]).
#[derive(Debug, Default, Clone)]
pub struct TonicBench;

#[tonic::async_trait]
impl tonic_pb::bench_service_server::BenchService for TonicBench {
    async fn ping(
        &self,
        _request: tonic::Request<tonic_pb::Empty>,
    ) -> Result<tonic::Response<tonic_pb::Empty>, tonic::Status> {
        Ok(tonic::Response::new(tonic_pb::Empty {}))
    }

    async fn echo(
        &self,
        request: tonic::Request<tonic_pb::Payload>,
    ) -> Result<tonic::Response<tonic_pb::Payload>, tonic::Status> {
        Ok(tonic::Response::new(request.into_inner()))
    }

    async fn list_users(
        &self,
        request: tonic::Request<tonic_pb::ListRequest>,
    ) -> Result<tonic::Response<tonic_pb::UserList>, tonic::Status> {
        Ok(tonic::Response::new(tonic_users(request.into_inner().n)))
    }

    type StreamEchoStream = TonicPayloadStream;

    async fn stream_echo(
        &self,
        request: tonic::Request<tonic_pb::StreamRequest>,
    ) -> Result<tonic::Response<Self::StreamEchoStream>, tonic::Status> {
        let r = request.into_inner();
        let size = r.size.max(0) as usize;
        let items = (0..r.count.max(0)).map(move |_| {
            Ok(tonic_pb::Payload {
                data: vec![0x5a; size],
            })
        });
        Ok(tonic::Response::new(Box::pin(futures::stream::iter(items))))
    }
}
