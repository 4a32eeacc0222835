//! `grpc.health.v1.Health` on every Triple server: what load balancers, Kubernetes probes and
//! `grpc_health_probe` ask before sending traffic.
//!
//! The answer follows the server's lifecycle: `SERVING` from the start, `NOT_SERVING` from the
//! moment the application begins its graceful shutdown (before it unregisters and drains, so a
//! probe takes the instance out of rotation as early as a registry does) or the server is told
//! it is not serving. The empty service name asks about the server as a whole; a named service
//! is `SERVING` while the server is and serves it (an IDL service or an interface-mode export),
//! and unknown otherwise (`NOT_FOUND` from `Check`, `SERVICE_UNKNOWN` on `Watch`, as the
//! protocol's specification asks).

use std::sync::{Arc, Weak};

use futures::StreamExt;
use tokio::sync::watch;

use super::routing::{IdlService, MethodKind, ServerCall, ServerReply};
use super::{BoxFuture, ServerShared};
use crate::codegen;
use crate::message::{Request, Response};
use crate::status::Status;

/// The service's full name.
pub const HEALTH_SERVICE: &str = "grpc.health.v1.Health";

/// `grpc.health.v1.HealthCheckRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HealthCheckRequest {
    /// The service asked about; empty for the server as a whole.
    #[prost(string, tag = "1")]
    pub service: String,
}

/// `grpc.health.v1.HealthCheckResponse`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct HealthCheckResponse {
    /// A [`ServingStatus`].
    #[prost(enumeration = "ServingStatus", tag = "1")]
    pub status: i32,
}

/// `grpc.health.v1.HealthCheckResponse.ServingStatus`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum ServingStatus {
    /// Not known.
    Unknown = 0,
    /// Taking calls.
    Serving = 1,
    /// Not taking calls (shutting down).
    NotServing = 2,
    /// The service asked about is not served here (`Watch` only).
    ServiceUnknown = 3,
}

/// Where a server is in its life, as its health service reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Serving,
    NotServing,
    /// Shutting down: watchers are told `NOT_SERVING` and their streams end, so that they do
    /// not hold the server's drain until its grace period runs out.
    Closed,
}

/// Whether a server is serving, as its health service reports it. Cheap to clone; every clone
/// sees the same state.
#[derive(Debug, Clone)]
pub struct ServingState {
    phase: watch::Sender<Phase>,
}

impl Default for ServingState {
    fn default() -> Self {
        Self {
            phase: watch::channel(Phase::Serving).0,
        }
    }
}

impl ServingState {
    /// Says whether the server takes calls; health watchers are told of a change. Once the
    /// state is [closed](Self::close) it stays so.
    pub fn set_serving(&self, serving: bool) {
        let wanted = if serving {
            Phase::Serving
        } else {
            Phase::NotServing
        };
        self.phase.send_if_modified(|p| {
            let changed = *p != wanted && *p != Phase::Closed;
            if changed {
                *p = wanted;
            }
            changed
        });
    }

    /// The server is shutting down: not serving from now on, and every watch stream ends.
    pub fn close(&self) {
        self.phase.send_replace(Phase::Closed);
    }

    /// Whether the server takes calls.
    pub fn is_serving(&self) -> bool {
        *self.phase.borrow() == Phase::Serving
    }
}

/// The health service of one server.
pub(crate) struct HealthService {
    server: Weak<ServerShared>,
    state: ServingState,
    /// `grpc/health/v1/health.proto` as a descriptor set, for reflection clients.
    descriptor: Vec<u8>,
}

impl HealthService {
    /// The health service of `server`, reporting `state`. It holds the server weakly: the
    /// server owns it through its routing table.
    pub(crate) fn new(server: Weak<ServerShared>, state: ServingState) -> Self {
        Self {
            server,
            state,
            descriptor: super::descriptors::health(),
        }
    }
}

/// What `service` is on `server` when the server as a whole is `serving`.
fn status_of(server: &Weak<ServerShared>, service: &str, serving: bool) -> ServingStatus {
    let known = service.is_empty() || server.upgrade().is_some_and(|s| s.serves(service));
    match (known, serving) {
        (false, _) => ServingStatus::ServiceUnknown,
        (true, true) => ServingStatus::Serving,
        (true, false) => ServingStatus::NotServing,
    }
}

fn response(status: ServingStatus) -> HealthCheckResponse {
    HealthCheckResponse {
        status: status as i32,
    }
}

impl IdlService for HealthService {
    fn service_name(&self) -> &str {
        HEALTH_SERVICE
    }

    fn method_kind(&self, method: &str) -> Option<MethodKind> {
        match method {
            "Check" => Some(MethodKind::Unary),
            "Watch" => Some(MethodKind::ServerStreaming),
            _ => None,
        }
    }

    fn file_descriptor_set(&self) -> &[u8] {
        &self.descriptor
    }

    fn call(&self, method: &str, call: ServerCall) -> BoxFuture<Result<ServerReply, Status>> {
        let server = self.server.clone();
        let state = self.state.clone();
        match method {
            "Check" => codegen::unary(call, move |req: Request<HealthCheckRequest>| async move {
                let service = req.into_inner().service;
                match status_of(&server, &service, state.is_serving()) {
                    ServingStatus::ServiceUnknown => {
                        Err(Status::not_found(format!("unknown service {service}")))
                    }
                    status => Ok(Response::new(response(status))),
                }
            }),
            "Watch" => codegen::server_streaming(
                call,
                move |req: Request<HealthCheckRequest>| async move {
                    let service = req.into_inner().service;
                    let changes = phases(state.phase.subscribe());
                    // The current status first, then one message per change of it.
                    let stream = changes
                        .map(move |phase| status_of(&server, &service, phase == Phase::Serving))
                        .scan(None, |last, status| {
                            let fresh = *last != Some(status);
                            *last = Some(status);
                            futures::future::ready(Some(fresh.then_some(status)))
                        })
                        .filter_map(|s| futures::future::ready(s.map(|s| Ok(response(s)))));
                    Ok(Response::new(Box::pin(stream)
                        as futures::stream::BoxStream<
                            'static,
                            Result<HealthCheckResponse, Status>,
                        >))
                },
            ),
            other => {
                let other = other.to_owned();
                Box::pin(async move {
                    Err(Status::unimplemented(format!(
                        "method {other} not found in service {HEALTH_SERVICE}"
                    )))
                })
            }
        }
    }
}

/// The phases of `rx`: the current one, then each new one, until the state is closed (that
/// last phase included) or dropped.
fn phases(rx: watch::Receiver<Phase>) -> impl futures::Stream<Item = Phase> + Send {
    futures::stream::unfold(Some((rx, true)), |state| async move {
        let (mut rx, first) = state?;
        if !first && rx.changed().await.is_err() {
            return None;
        }
        let phase = *rx.borrow_and_update();
        let next = (phase != Phase::Closed).then_some((rx, false));
        Some((phase, next))
    })
}

/// The health service, shared, for the server to route to.
pub(crate) fn service(server: Weak<ServerShared>, state: ServingState) -> Arc<dyn IdlService> {
    Arc::new(HealthService::new(server, state))
}
