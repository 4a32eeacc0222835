//! The clients `dubbo-bench` drives servers with, one per [`TargetKind`].
//!
//! Each target holds one client per connection; call `i` of a worker goes over connection
//! `worker % connections`. A call returns the number of messages it received (1 for unary
//! calls, the stream length for `stream`), after checking the reply's size.

use std::future::Future;
use std::time::Duration;

use dubbo_protocol_triple::{TripleChannel, TripleClient, TripleConfig};
use dubbo_rs::{Application, ReferenceOptions};
use serde_bytes::ByteBuf;

use crate::args::{Scenario, TargetKind};
use crate::service::EchoServiceClient;
use crate::{tonic_pb, triple_pb, LIST_USERS, STREAM_COUNT, STREAM_SIZE};

/// One kind of client, ready to call.
pub trait Target: Send + Sync + 'static {
    /// One call over connection `conn` (taken modulo the number of connections).
    fn call(&self, conn: usize) -> impl Future<Output = Result<u64, String>> + Send;

    /// Closes the connections.
    fn close(&self) -> impl Future<Output = ()> + Send {
        async {}
    }
}

/// The Java interface of the interface-mode service.
pub const ECHO_INTERFACE: &str = "org.apache.dubbo.bench.EchoService";

fn payload(scenario: Scenario) -> Vec<u8> {
    (0..scenario.payload_size().unwrap_or(0))
        .map(|i| (i % 251) as u8)
        .collect()
}

fn check_len(what: &str, got: usize, want: usize) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, expected {want}"))
    }
}

/// dubbo-rs interface mode through the facade (`Application::refer` and the client the
/// `#[dubbo_rs::service]` macro generates), over dubbo:// or tri://. Each connection is its own
/// application, so each has its own TCP connection.
pub struct FacadeTarget {
    apps: Vec<Application>,
    clients: Vec<EchoServiceClient>,
    scenario: Scenario,
    payload: ByteBuf,
}

impl FacadeTarget {
    /// Refers to `EchoService` at `scheme://addr` `connections` times.
    pub async fn connect(
        kind: TargetKind,
        addr: &str,
        scenario: Scenario,
        connections: usize,
        timeout: Duration,
    ) -> Result<Self, String> {
        let scheme = match kind {
            TargetKind::Dubbo => "dubbo",
            TargetKind::TriIface => "tri",
            _ => return Err(format!("{} is not an interface-mode target", kind.name())),
        };
        let mut apps = Vec::new();
        let mut clients = Vec::new();
        for i in 0..connections {
            let mut builder = Application::builder(format!("dubbo-bench-{i}"));
            // DUBBO_BENCH_TLS_CA: CA certificates (PEM) the server's certificate must chain
            // to; set, every connection uses TLS (`dubbo.ssl.client-trust-cert-collection-path`).
            if let Ok(ca) = std::env::var("DUBBO_BENCH_TLS_CA") {
                builder = builder.ssl(dubbo_rs::config::SslConfig {
                    client_trust_cert_collection_path: Some(ca),
                    ..Default::default()
                });
            }
            let app = builder.build().map_err(|e| e.to_string())?;
            let mut options = ReferenceOptions::new(ECHO_INTERFACE)
                .url(format!("{scheme}://{addr}"))
                .timeout(timeout);
            // DUBBO_BENCH_FILTER: the reference's `filter` list (e.g. `-metrics`), to measure
            // the call path with a filter left out.
            if let Ok(filter) = std::env::var("DUBBO_BENCH_FILTER") {
                options = options.parameter("filter", filter);
            }
            let reference = app
                .default_module()
                .refer(options)
                .await
                .map_err(|e| format!("refer {scheme}://{addr}: {e}"))?;
            clients.push(EchoServiceClient::new(reference.invoker()));
            apps.push(app);
        }
        Ok(FacadeTarget {
            apps,
            clients,
            scenario,
            payload: ByteBuf::from(payload(scenario)),
        })
    }
}

impl Target for FacadeTarget {
    async fn call(&self, conn: usize) -> Result<u64, String> {
        let c = &self.clients[conn % self.clients.len()];
        match self.scenario {
            Scenario::Empty => c.ping().await.map_err(|e| e.to_string())?,
            Scenario::Echo128 | Scenario::Echo1k => {
                let r = c
                    .echo(self.payload.clone())
                    .await
                    .map_err(|e| e.to_string())?;
                check_len("echo", r.len(), self.payload.len())?;
            }
            Scenario::List100 => {
                let r = c.list_users(LIST_USERS).await.map_err(|e| e.to_string())?;
                check_len("listUsers", r.len(), LIST_USERS as usize)?;
            }
            Scenario::Stream => return Err("no stream in interface mode".into()),
        }
        Ok(1)
    }

    async fn close(&self) {
        for a in &self.apps {
            a.shutdown().await;
        }
    }
}

/// The dubbo-rs Triple IDL client (generated by dubbo-build), one channel per connection.
pub struct TriIdlTarget {
    clients: Vec<triple_pb::BenchServiceClient>,
    scenario: Scenario,
    payload: Vec<u8>,
}

impl TriIdlTarget {
    /// Opens `connections` channels to `addr`.
    pub async fn connect(
        addr: &str,
        scenario: Scenario,
        connections: usize,
        timeout: Duration,
    ) -> Result<Self, String> {
        let mut clients = Vec::new();
        for _ in 0..connections {
            let channel = TripleChannel::connect(addr.to_owned(), TripleConfig::default())
                .await
                .map_err(|e| format!("connect tri://{addr}: {e}"))?;
            clients.push(triple_pb::BenchServiceClient::from_client(
                TripleClient::new(channel).with_timeout(timeout),
            ));
        }
        Ok(TriIdlTarget {
            clients,
            scenario,
            payload: payload(scenario),
        })
    }
}

impl Target for TriIdlTarget {
    async fn call(&self, conn: usize) -> Result<u64, String> {
        let c = &self.clients[conn % self.clients.len()];
        let err = |e: dubbo_protocol_triple::Status| e.to_string();
        match self.scenario {
            Scenario::Empty => {
                c.ping(triple_pb::Empty {}).await.map_err(err)?;
            }
            Scenario::Echo128 | Scenario::Echo1k => {
                let r = c
                    .echo(triple_pb::Payload {
                        data: self.payload.clone(),
                    })
                    .await
                    .map_err(err)?;
                check_len("echo", r.data.len(), self.payload.len())?;
            }
            Scenario::List100 => {
                let r = c
                    .list_users(triple_pb::ListRequest { n: LIST_USERS })
                    .await
                    .map_err(err)?;
                check_len("ListUsers", r.users.len(), LIST_USERS as usize)?;
            }
            Scenario::Stream => {
                let mut s = c
                    .stream_echo(triple_pb::StreamRequest {
                        count: STREAM_COUNT,
                        size: STREAM_SIZE,
                    })
                    .await
                    .map_err(err)?;
                let mut n = 0u64;
                while let Some(m) = s.message().await.map_err(err)? {
                    check_len("StreamEcho message", m.data.len(), STREAM_SIZE as usize)?;
                    n += 1;
                }
                check_len("StreamEcho messages", n as usize, STREAM_COUNT as usize)?;
                return Ok(n);
            }
        }
        Ok(1)
    }
}

/// A tonic client, one HTTP/2 connection per `connections`.
pub struct GrpcTarget {
    clients: Vec<tonic_pb::bench_service_client::BenchServiceClient<tonic::transport::Channel>>,
    scenario: Scenario,
    payload: Vec<u8>,
}

impl GrpcTarget {
    /// Opens `connections` channels to `addr`.
    pub async fn connect(
        addr: &str,
        scenario: Scenario,
        connections: usize,
        timeout: Duration,
    ) -> Result<Self, String> {
        let mut clients = Vec::new();
        for _ in 0..connections {
            let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
                .map_err(|e| e.to_string())?
                .tcp_nodelay(true)
                .timeout(timeout);
            let channel = endpoint
                .connect()
                .await
                .map_err(|e| format!("connect http://{addr}: {e}"))?;
            clients.push(tonic_pb::bench_service_client::BenchServiceClient::new(
                channel,
            ));
        }
        Ok(GrpcTarget {
            clients,
            scenario,
            payload: payload(scenario),
        })
    }
}

impl Target for GrpcTarget {
    async fn call(&self, conn: usize) -> Result<u64, String> {
        let mut c = self.clients[conn % self.clients.len()].clone();
        let err = |e: tonic::Status| format!("{}: {}", e.code(), e.message());
        match self.scenario {
            Scenario::Empty => {
                c.ping(tonic_pb::Empty {}).await.map_err(err)?;
            }
            Scenario::Echo128 | Scenario::Echo1k => {
                let r = c
                    .echo(tonic_pb::Payload {
                        data: self.payload.clone(),
                    })
                    .await
                    .map_err(err)?
                    .into_inner();
                check_len("echo", r.data.len(), self.payload.len())?;
            }
            Scenario::List100 => {
                let r = c
                    .list_users(tonic_pb::ListRequest { n: LIST_USERS })
                    .await
                    .map_err(err)?
                    .into_inner();
                check_len("ListUsers", r.users.len(), LIST_USERS as usize)?;
            }
            Scenario::Stream => {
                let mut s = c
                    .stream_echo(tonic_pb::StreamRequest {
                        count: STREAM_COUNT,
                        size: STREAM_SIZE,
                    })
                    .await
                    .map_err(err)?
                    .into_inner();
                let mut n = 0u64;
                while let Some(m) = s.message().await.map_err(err)? {
                    check_len("StreamEcho message", m.data.len(), STREAM_SIZE as usize)?;
                    n += 1;
                }
                check_len("StreamEcho messages", n as usize, STREAM_COUNT as usize)?;
                return Ok(n);
            }
        }
        Ok(1)
    }
}
