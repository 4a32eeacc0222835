//! A hand-written IDL service (the contract's Greeter, without codegen) for the tests.
#![allow(dead_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dubbo_core::{invoker_fn, ErrorCode, Invocation, RpcError, RpcResponse, Value};
use dubbo_protocol_triple::codegen;
use dubbo_protocol_triple::{
    IdlService, MethodKind, Request, Response, ServerCall, ServerReply, Status, Streaming,
    TripleChannel, TripleClient, TripleConfig, TripleServer,
};
use dubbo_url::Url;
use futures::StreamExt;

#[derive(Clone, PartialEq, prost::Message)]
pub struct GreeterRequest {
    #[prost(string, tag = "1")]
    pub name: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GreeterReply {
    #[prost(string, tag = "1")]
    pub message: String,
}

pub const SERVICE: &str = "org.apache.dubbo.interop.tri.Greeter";

pub fn path(m: &str) -> String {
    format!("/{SERVICE}/{m}")
}

/// Greeter by hand; `Slow` sleeps `name` milliseconds (a number) before answering;
/// `Consumed` counts client-stream messages read.
#[derive(Default, Clone)]
pub struct HandGreeter {
    pub consumed: Arc<AtomicUsize>,
    pub read_delay: Option<Duration>,
}

impl IdlService for HandGreeter {
    fn service_name(&self) -> &str {
        SERVICE
    }
    fn method_kind(&self, method: &str) -> Option<MethodKind> {
        match method {
            "Greet" | "Slow" | "Stall" => Some(MethodKind::Unary),
            "GreetServerStream" => Some(MethodKind::ServerStreaming),
            "GreetClientStream" | "SlowSink" => Some(MethodKind::ClientStreaming),
            "GreetBiStream" => Some(MethodKind::BidiStreaming),
            _ => None,
        }
    }
    fn call(
        &self,
        method: &str,
        call: ServerCall,
    ) -> codegen::BoxFuture<Result<ServerReply, Status>> {
        let this = self.clone();
        match method {
            "Greet" => codegen::unary(call, |req: Request<GreeterRequest>| async move {
                Ok(Response::new(GreeterReply {
                    message: format!("Hello {}", req.into_inner().name),
                }))
            }),
            // Never reads its request: the client's window stays closed.
            "Stall" => Box::pin(async move {
                tokio::time::sleep(Duration::from_secs(10)).await;
                drop(call);
                Err(Status::cancelled("stalled"))
            }),
            "Slow" => codegen::unary(call, |req: Request<GreeterRequest>| async move {
                let ms: u64 = req.get_ref().name.parse().unwrap_or(0);
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(Response::new(GreeterReply {
                    message: format!("slept {ms}"),
                }))
            }),
            "GreetServerStream" => {
                codegen::server_streaming(call, |req: Request<GreeterRequest>| async move {
                    let name = req.into_inner().name;
                    let s = futures::stream::iter((0..10).map(move |i| {
                        Ok(GreeterReply {
                            message: format!("Hello {name} #{i}"),
                        })
                    }));
                    Ok(Response::new(s))
                })
            }
            "GreetClientStream" => codegen::client_streaming(
                call,
                |req: Request<Streaming<GreeterRequest>>| async move {
                    let mut s = req.into_inner();
                    let mut names = Vec::new();
                    while let Some(m) = s.message().await? {
                        names.push(m.name);
                    }
                    Ok(Response::new(GreeterReply {
                        message: format!("Hello {}", names.join(",")),
                    }))
                },
            ),
            "SlowSink" => codegen::client_streaming(
                call,
                move |req: Request<Streaming<GreeterRequest>>| async move {
                    let mut s = req.into_inner();
                    if let Some(d) = this.read_delay {
                        tokio::time::sleep(d).await;
                    }
                    let mut n = 0usize;
                    while let Some(_m) = s.message().await? {
                        n += 1;
                        this.consumed.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(Response::new(GreeterReply {
                        message: format!("{n}"),
                    }))
                },
            ),
            _ => codegen::bidi_streaming(
                call,
                |req: Request<Streaming<GreeterRequest>>| async move {
                    let s = req.into_inner().map(|r| {
                        r.map(|m| GreeterReply {
                            message: format!("Hello {}", m.name),
                        })
                    });
                    Ok(Response::new(s))
                },
            ),
        }
    }
}

pub async fn start_server(config: TripleConfig) -> TripleServer {
    let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), config)
        .await
        .unwrap();
    server.add_idl_service(HandGreeter::default());
    server
}

pub async fn client_for(server: &TripleServer) -> TripleClient {
    let ch = TripleChannel::connect(server.local_addr().to_string(), TripleConfig::default())
        .await
        .unwrap();
    TripleClient::new(ch)
}

pub const IFACE: &str = "org.apache.dubbo.interop.InteropService";

/// A small InteropService over dynamic values.
pub fn interop_invoker(url: Url) -> Arc<dyn dubbo_core::Invoker> {
    Arc::new(invoker_fn(url, |inv: Invocation| async move {
        let args = inv.arg_values().unwrap_or_default();
        let arg0 = args.first().cloned().unwrap_or(Value::Null);
        match inv.method_name() {
            "sayHello" => Ok(RpcResponse::new(Value::String(format!(
                "Hello {}",
                arg0.as_str().unwrap_or("")
            )))),
            "addInt" => {
                let a = args[0].as_i64().unwrap_or(0) as i32;
                let b = args[1].as_i64().unwrap_or(0) as i32;
                Ok(RpcResponse::new(Value::Int(a.wrapping_add(b))))
            }
            "fail" => Err(RpcError::business(
                "java.lang.IllegalStateException",
                arg0.as_str().unwrap_or(""),
            )),
            "getAttachment" => {
                let key = arg0.as_str().unwrap_or("");
                let v = inv
                    .attachments()
                    .get_str(key)
                    .map(|s| Value::String(s.to_owned()));
                let mut r = RpcResponse::new(v.unwrap_or(Value::Null));
                r.attachments.insert("served-by", "rust");
                Ok(r)
            }
            "sleep" => {
                let ms = arg0.as_i64().unwrap_or(0) as u64;
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok(RpcResponse::new(Value::String(format!("slept {ms}"))))
            }
            other => Err(RpcError::framework(
                ErrorCode::MethodNotFound,
                format!("no method {other}"),
            )),
        }
    }))
}

/// Whether the command-line tool `name` runs here. Without it a test says so and passes,
/// unless `DUBBO_RS_REQUIRE_PEERS=1` (scripts/test.sh sets it), which makes it fail.
pub fn have_tool(name: &str) -> bool {
    let found = std::process::Command::new(name)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    if !found {
        let reason = format!("`{name}` is not installed");
        if std::env::var_os("DUBBO_RS_REQUIRE_PEERS").is_some_and(|v| v == "1") {
            panic!("{reason}, and DUBBO_RS_REQUIRE_PEERS=1 requires it");
        }
        eprintln!("SKIP: {reason}");
    }
    found
}
