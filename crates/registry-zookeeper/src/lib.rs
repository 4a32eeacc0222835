//! ZooKeeper for dubbo-rs: the interface-level registry, application-level service discovery,
//! the metadata report and the config centre, in exactly the node layout Apache Dubbo (Java) uses, so Rust and
//! Java applications register with and find each other through one ZooKeeper.
//!
//! | What | Node |
//! |---|---|
//! | [`ZookeeperRegistry`] | `/dubbo/{URL-encoded interface}/{providers,consumers,configurators,routers}/{URL-encoded URL}`, ephemeral unless `dynamic=false` |
//! | [`ZookeeperServiceDiscovery`] | `/services/{app}/{host}:{port}`, ephemeral, Curator's JSON |
//! | [`ZookeeperMetadataReport`] | `/dubbo/mapping/{interface}` (apps, comma-separated) and `/dubbo/metadata/{app}/{revision}` |
//! | [`ZookeeperDynamicConfiguration`] | `/{namespace}/config/{group}/{key}` (UTF-8 text, persistent), namespace and group `dubbo` by default |
//!
//! Each address gets one [`ZookeeperClient`] (a session with a background task). When the
//! connection drops, calls fail with [`RegistryError::Unreachable`](dubbo_registry::RegistryError)
//! until it is back; when the session expires, a new one is opened, this process's ephemeral
//! nodes are created again and every subscription reads and pushes its lists again.
//!
//! ```no_run
//! use std::sync::Arc;
//! use dubbo_core::Extensions;
//! use dubbo_registry::{Notification, NotifyListener, RegistryFactory};
//! use dubbo_url::Url;
//!
//! # async fn demo() -> Result<(), dubbo_registry::RegistryError> {
//! let ext = Extensions::new();
//! dubbo_registry_zookeeper::register_zookeeper(&ext);
//! let factory = ext.get::<dyn RegistryFactory>("zookeeper").expect("registered above");
//! let registry = factory.create(&Url::parse("zookeeper://127.0.0.1:2181").expect("valid")).await?;
//!
//! let provider = Url::parse("dubbo://127.0.0.1:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider").expect("valid");
//! registry.register(&provider).await?;
//!
//! let consumer = Url::parse("consumer://127.0.0.1/org.foo.Greeter?interface=org.foo.Greeter&category=providers").expect("valid");
//! let listener: Arc<dyn NotifyListener> = Arc::new(|n: Notification| println!("{}: {:?}", n.category, n.urls));
//! registry.subscribe(&consumer, listener).await?;
//! # Ok(())
//! # }
//! ```

mod child_feed;
mod client;
mod config_center;
mod config_watch;
mod discovery;
mod factory;
mod matching;
mod paths;
mod registry;
mod report;
mod watch;

pub use client::{
    ZookeeperClient, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_PORT, DEFAULT_SESSION_TIMEOUT_MS,
};
pub use config_center::ZookeeperDynamicConfiguration;
pub use discovery::ZookeeperServiceDiscovery;
pub use factory::{
    register_zookeeper, ZookeeperClients, ZookeeperDynamicConfigurationFactory,
    ZookeeperMetadataReportFactory, ZookeeperRegistryFactory, ZookeeperServiceDiscoveryFactory,
    SCHEME,
};
pub use matching::{empty_url, is_match};
pub use paths::{DEFAULT_ROOT, DEFAULT_SERVICES_ROOT};
pub use registry::ZookeeperRegistry;
pub use report::ZookeeperMetadataReport;
