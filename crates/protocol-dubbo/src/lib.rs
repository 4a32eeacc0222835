//! The `dubbo://` protocol: Apache Dubbo's binary RPC protocol, byte-compatible with Java Dubbo
//! 3.x (`ExchangeCodec`/`DubboCodec`, hessian2 bodies).
//!
//! Layers, bottom up:
//!
//! - [`header`]: the 16-byte frame header (magic `0xdabb`, flags, status, request id, length);
//!   [`status`]: the response status byte and its mapping to [`RpcError`](dubbo_core::RpcError).
//! - [`codec`]: cutting a byte stream into frames ([`FrameDecoder`]), with the payload limit.
//! - [`body`]: request, response and event bodies in hessian2.
//! - [`exchange`]: connections. [`DubboClient`] multiplexes concurrent calls by request id over
//!   long-lived connections, sends heartbeats and honours the provider's readonly event;
//!   [`DubboServer`] accepts connections, dispatches requests to a bounded worker pool (or
//!   inline), answers heartbeats, closes idle connections and shuts down gracefully.
//! - [`DubboInvoker`] and [`DubboProtocol`]: core's [`Invoker`](dubbo_core::Invoker) and
//!   [`Protocol`](dubbo_core::Protocol) on top.
//! - TLS ([`ServerConfig::tls`], [`ClientConfig::tls`], [`DubboProtocol::with_tls`], and
//!   [`tls`] for the URL's `ssl-enabled`): connections through `dubbo-tls`, the frames the same.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use dubbo_core::{invoker_fn, ExportTable, Invocation, MethodSignature, RpcResponse, ServiceKey, Value};
//! use dubbo_protocol_dubbo::{ClientConfig, DubboClient, DubboServer, ServerConfig};
//! use dubbo_url::Url;
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! // Provider: export a greeter on a free port.
//! let exports = ExportTable::new();
//! let url = Url::parse("dubbo://127.0.0.1:0/org.example.Greeter").unwrap();
//! exports.insert(
//!     ServiceKey::interface_only("org.example.Greeter"),
//!     Arc::new(invoker_fn(url, |inv: Invocation| async move {
//!         let args = inv.arg_values()?;
//!         let name = args.first().and_then(Value::as_str).unwrap_or("?").to_owned();
//!         Ok(RpcResponse::new(Value::String(format!("Hello {name}"))))
//!     })),
//! );
//! let server = DubboServer::bind("127.0.0.1:0", ServerConfig::default(), exports).await.unwrap();
//!
//! // Consumer: one multiplexed connection to it.
//! let client = DubboClient::connect(server.local_addr().to_string(), ClientConfig::default()).await.unwrap();
//! let method = Arc::new(MethodSignature::new("sayHello", &["java.lang.String"], "java.lang.String"));
//! let call = Invocation::new(ServiceKey::interface_only("org.example.Greeter"), method, vec!["world".into()]);
//! let reply = client.invoke(call).await.unwrap();
//! assert_eq!(reply.value, Value::String("Hello world".into()));
//! server.shutdown(std::time::Duration::from_secs(1)).await;
//! # });
//! ```

#![warn(missing_docs)]

pub mod body;
pub mod codec;
pub mod config;
pub mod error;
pub mod exchange;
pub mod header;
pub mod invoker;
pub mod protocol;
pub mod serialization;
pub mod status;
pub mod tls;

pub use codec::{Frame, FrameDecoder, Inbound, DEFAULT_PAYLOAD};
pub use config::{ClientConfig, Dispatcher, ServerConfig};
pub use error::{BodyError, FrameError};
pub use exchange::client::DubboClient;
pub use exchange::server::DubboServer;
pub use header::Header;
pub use invoker::DubboInvoker;
pub use protocol::{DubboProtocol, DEFAULT_PORT};
pub use serialization::Serialization;
pub use status::Status;
