//! Core abstractions of dubbo-rs.
//!
//! A call is an [`Invocation`]: a [`ServiceKey`], a Java [`MethodSignature`], arguments as
//! [`Payload`]s (a caller's typed values, bytes off the wire, or dynamic [`Value`]s),
//! [`Attachments`] and a local [`CallContext`]. Every stage of the call path
//! (cluster strategies, filters, protocol clients, the service implementation) is an
//! [`Invoker`], and ends in an [`RpcResult`]: a [`RpcResponse`], or an [`RpcError`] that keeps
//! the provider's own exception ([`RpcError::Business`]) apart from the framework's failures,
//! which carry a stable [`ErrorCode`].
//!
//! ```
//! use std::sync::Arc;
//! use dubbo_core::{invoker_fn, Invocation, Invoker, MethodSignature, RpcResponse, ServiceKey, Value};
//! use dubbo_url::Url;
//!
//! # tokio_test_block(async {
//! let url = Url::parse("dubbo://127.0.0.1:20880/org.example.Greeter").unwrap();
//! let greeter = invoker_fn(url, |inv: Invocation| async move {
//!     let args = inv.arg_values()?;
//!     let name = args.first().and_then(Value::as_str).unwrap_or("?").to_owned();
//!     Ok(RpcResponse::new(Value::String(format!("Hello {name}"))))
//! });
//! let method = Arc::new(MethodSignature::new("sayHello", &["java.lang.String"], "java.lang.String"));
//! let call = Invocation::new(ServiceKey::interface_only("org.example.Greeter"), method, vec!["world".into()]);
//! let reply = greeter.invoke(call).await.unwrap();
//! assert_eq!(reply.value, Value::String("Hello world".into()));
//! # });
//! # fn tokio_test_block<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! ```

#![warn(missing_docs)]

pub mod attachments;
pub mod available;
pub mod connection_addrs;
pub mod context;
pub mod declared_type;
pub mod definition;
pub mod directory;
pub mod error;
pub mod extension;
pub mod filter;
pub mod filters;
pub mod invocation;
pub mod invoker;
pub mod json_arg;
pub mod measured;
pub mod method;
pub mod payload;
pub mod protocol;
pub mod report;
pub mod request_context;
pub mod rest;
pub mod rest_schema;
pub mod sent_once;
pub mod service;
pub mod service_key;
pub mod stats;
mod text_de;
pub mod thread_pool;

pub use attachments::Attachments;
pub use available::AvailableView;
pub use connection_addrs::ConnectionAddrs;
pub use context::CallContext;
pub use declared_type::DeclaredReturnType;
pub use definition::{MethodDefinition, ServiceDefinition};
pub use directory::{Directory, InvokerList, LoadBalance, ResultObserver, Router, StaticDirectory};
pub use dubbo_hessian2::Value;
pub use error::{BusinessError, ErrorCode, RpcError};
pub use extension::Extensions;
pub use filter::{select_filters, Filter, FilterChain, FilterSpec, Next, Side, Stage};
pub use invocation::{Invocation, InvocationParts, RpcResponse};
pub use invoker::{invoker_fn, BoxFuture, BoxInvoker, FnInvoker, Invoker, RpcResult};
pub use json_arg::JsonArg;
pub use measured::MeasuredInvoker;
pub use method::MethodSignature;
pub use payload::Payload;
pub use protocol::{exported_service_key, ExportTable, Exporter, Protocol};
pub use report::{Attempt, CallReport, Outcome};
pub use request_context::RequestContext;
pub use sent_once::SentOnce;
pub use service::{arg_values, method_not_found, ServiceHandler, ServiceInvoker};
pub use service_key::ServiceKey;
pub use stats::{CallStats, ProviderStats, StatsStore};
pub use thread_pool::ThreadPoolStats;
