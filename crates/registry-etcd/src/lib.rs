//! etcd v3 for dubbo-rs: an interface-level [`Registry`](dubbo_registry::Registry), an
//! application-level [`ServiceDiscovery`](dubbo_registry::ServiceDiscovery) and a
//! [`MetadataReport`](dubbo_registry::MetadataReport), keyed as Java Dubbo's etcd3 extensions
//! (apache/dubbo-spi-extensions) key them, so Java and Rust processes share one etcd.
//!
//! - Registry: `/dubbo/{encoded interface}/{category}/{encoded full URL}`, value the lease id.
//! - Discovery: `/services/{app}/{host}:{port}`, value the instance JSON Java writes.
//! - Report: `/dubbo/mapping/{interface}` and `/dubbo/metadata/{app}/{revision}`.
//! - Config centre ([`EtcdDynamicConfiguration`]): `/{namespace}/config/{group}/{key}`,
//!   namespace and group `dubbo` by default, as Java's etcd config centre keys it.
//!
//! Dynamic entries live on a lease (`session` milliseconds / 1000 s TTL, 30 s by default)
//! kept alive by a task the registry owns; a lost lease is re-granted and its keys re-put, and
//! watches re-read and re-push after a reconnect. docs/registries.md has the details.
//!
//! The etcd client is generated from etcd's protobuf API at build time with protox, so no
//! `protoc` is needed.
//!
//! ```no_run
//! use std::sync::Arc;
//! use dubbo_core::Extensions;
//! use dubbo_registry::{Notification, NotifyListener, Registry, RegistryFactory};
//! use dubbo_url::Url;
//!
//! # async fn run() -> Result<(), dubbo_registry::RegistryError> {
//! let ext = Extensions::new();
//! dubbo_registry_etcd::register_etcd(&ext);
//! let factory = ext.get::<dyn RegistryFactory>("etcd3").expect("registered");
//! let registry = factory.create(&Url::parse("etcd3://127.0.0.1:2379").unwrap()).await?;
//!
//! let provider = Url::parse("dubbo://10.0.0.5:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider").unwrap();
//! registry.register(&provider).await?;
//!
//! let consumer = Url::parse("consumer://10.0.0.9/org.foo.Greeter?interface=org.foo.Greeter&category=providers").unwrap();
//! let listener: Arc<dyn NotifyListener> = Arc::new(|n: Notification| println!("{:?}", n.urls));
//! registry.subscribe(&consumer, listener).await?;
//! registry.destroy().await;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod client;
mod config_center;
mod discovery;
mod factory;
mod instance_json;
mod layout;
mod matching;
mod proto;
mod registry;
mod report;
mod session;
mod watch;

pub use client::EtcdClient;
pub use config_center::EtcdDynamicConfiguration;
pub use discovery::EtcdServiceDiscovery;
pub use factory::{
    register_etcd, EtcdConnections, EtcdDynamicConfigurationFactory, EtcdMetadataReportFactory,
    EtcdRegistryFactory, EtcdServiceDiscoveryFactory, SCHEME, SCHEME_ALIAS,
};
pub use registry::EtcdRegistry;
pub use report::EtcdMetadataReport;
