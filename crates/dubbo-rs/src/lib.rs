//! dubbo-rs: Apache Dubbo for Rust.
//!
//! Providers and consumers that speak Dubbo's wire formats byte for byte — dubbo:// with
//! Hessian 2 and Triple (gRPC-compatible HTTP/2) — so Rust services sit next to Java Dubbo 3.3
//! services with no gateway between them.
//!
//! A service is a Rust trait marked with [`service`]; the macro maps it to a Java interface and
//! generates a typed client and the provider-side dispatch.
//!
//! ```no_run
//! use dubbo_rs::prelude::*;
//!
//! #[dubbo_rs::service(interface = "org.example.Greeter")]
//! pub trait Greeter {
//!     async fn say_hello(&self, name: String) -> Result<String, RpcError>;
//! }
//!
//! struct MyGreeter;
//! impl Greeter for MyGreeter {
//!     async fn say_hello(&self, name: String) -> Result<String, RpcError> {
//!         Ok(format!("Hello {name}"))
//!     }
//! }
//!
//! # async fn run() -> Result<(), DubboError> {
//! let provider = Application::builder("greeter-provider")
//!     .protocol("dubbo", 20880)
//!     .host("127.0.0.1")
//!     .build()?;
//! provider
//!     .default_module()
//!     .export(GreeterServer::new(MyGreeter), ServiceOptions::new().version("1.0.0"))
//!     .await?;
//!
//! let consumer = Application::builder("greeter-consumer").build()?;
//! let reference = consumer
//!     .default_module()
//!     .refer(ReferenceOptions::new("org.example.Greeter").url("dubbo://127.0.0.1:20880").version("1.0.0"))
//!     .await?;
//! let greeter = GreeterClient::new(reference.invoker());
//! assert_eq!(greeter.say_hello("world".into()).await?, "Hello world");
//! provider.shutdown().await;
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

mod address;
mod app_tls;
mod application;
mod builder;
mod error;
mod framework;
mod generic;
mod governance;
mod lifecycle;
mod listeners;
mod metrics_service;
mod metrics_text;
mod module;
mod options;
mod protocol_factory;
mod pushgateway;
mod qos;
pub mod registry;
mod rest_cors;
mod rest_swagger_ui;
mod sync;
mod tasks;
mod tls_metrics;
mod tracing_setup;
mod view;

pub use application::{wait_for_signal, Application, DEFAULT_SHUTDOWN_WAIT};
pub use builder::ApplicationBuilder;
pub use error::DubboError;
pub use framework::Framework;
pub use generic::GenericClient;
pub use governance::validate_migration_rule;
pub use lifecycle::ShutdownPhase;
pub use listeners::ServiceListener;
pub use module::{Module, Reference};
pub use options::{ReferenceOptions, ServiceOptions};
pub use protocol_factory::{ProtocolFactory, ProtocolTls};
pub use qos::DEFAULT_QOS_PORT;
pub use tasks::BackgroundTasks;
pub use view::{ExportedService, ReferredService};

/// The service macro: see the crate documentation.
pub use dubbo_macros::service;
/// `#[derive(JavaTypeDefinition)]`: a class's fields in service definitions.
pub use dubbo_macros::JavaTypeDefinition;
/// `#[derive(RestSchema)]`: a type's fields in the REST (OpenAPI) document.
pub use dubbo_macros::RestSchema;

/// Configuration: Dubbo's YAML keys, environment-variable overrides, external configuration
/// and validation that names the offending key (`dubbo-config`).
pub use dubbo_config as config;
/// The core abstractions (`dubbo-core`).
pub use dubbo_core as core;
/// The Hessian 2 codec (`dubbo-hessian2`).
pub use dubbo_hessian2 as hessian2;
/// The dubbo:// protocol.
#[cfg(feature = "dubbo")]
pub use dubbo_protocol_dubbo as protocol_dubbo;
/// The Triple protocol.
#[cfg(feature = "triple")]
pub use dubbo_protocol_triple as protocol_triple;
/// Registries and application-level discovery (`dubbo-registry`).
pub use dubbo_registry as registries;
/// TLS (rustls): settings, certificate loading and reloading, port unification.
pub use dubbo_tls as tls;
/// Tracing: spans, W3C trace context, OTLP export.
pub use dubbo_tracing as trace;
/// Dubbo's URL model.
pub use dubbo_url as url;

/// The release this crate reports to peers in the `release` URL parameter.
pub const RELEASE: &str = env!("CARGO_PKG_VERSION");

/// The names most programs need.
pub mod prelude {
    pub use crate::{
        Application, DubboError, GenericClient, Module, Reference, ReferenceOptions, ServiceOptions,
    };
    pub use dubbo_core::{Attachments, ErrorCode, RequestContext, RpcError, Value};
    /// The streams of streaming service methods.
    #[cfg(feature = "triple")]
    pub use dubbo_protocol_triple::{ResponseStream, Streaming};
}
