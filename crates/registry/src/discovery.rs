//! [`ServiceDiscovery`]: application-level registration of instances (Java's
//! `ServiceDiscovery`).

use std::sync::Arc;

use dubbo_core::BoxFuture;
use dubbo_url::Url;

use crate::error::RegistryError;
use crate::instance::ServiceInstance;

/// Receives the instance lists of watched applications.
///
/// Called from the discovery's own task; an implementation must not block.
pub trait InstancesListener: Send + Sync + 'static {
    /// `app`'s complete current instance list (possibly empty).
    fn on_instances(&self, app: &str, instances: Vec<ServiceInstance>);
}

impl<F> InstancesListener for F
where
    F: Fn(&str, Vec<ServiceInstance>) + Send + Sync + 'static,
{
    fn on_instances(&self, app: &str, instances: Vec<ServiceInstance>) {
        self(app, instances)
    }
}

/// Application-level service discovery: one entry per running instance of an application,
/// carrying its address and metadata (revision, endpoints, MetadataService parameters).
///
/// Implementations keep the registered instance alive across reconnects (re-creating
/// ephemeral nodes or leases) and re-arm watches.
pub trait ServiceDiscovery: Send + Sync + 'static {
    /// The discovery's own URL.
    fn url(&self) -> &Url;

    /// Publishes `instance`, or replaces what was published for the same application, host
    /// and port (a new revision).
    fn register(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Withdraws `instance`.
    fn unregister(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// The instances of `app`, read once. Entries that cannot be parsed are skipped with a
    /// warning naming where they were found.
    fn instances(&self, app: &str) -> BoxFuture<'_, Result<Vec<ServiceInstance>, RegistryError>>;

    /// Pushes `app`'s instances to `listener` now and on every change.
    /// Every application with instances here (for operators' tools). The default:
    /// [`RegistryError::Unsupported`].
    fn applications(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        Box::pin(async {
            Err(RegistryError::Unsupported {
                what: "listing applications".to_owned(),
            })
        })
    }

    fn watch(
        &self,
        app: &str,
        listener: Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Ends a watch made with the same application and listener.
    fn unwatch(
        &self,
        app: &str,
        listener: &Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Withdraws what this discovery registered, ends its watches and closes it.
    fn destroy(&self) -> BoxFuture<'_, ()>;
}

/// Creates service discoveries for one URL scheme, registered in the framework's extension
/// table under the scheme.
pub trait ServiceDiscoveryFactory: Send + Sync + 'static {
    /// Connects to the discovery at `url`.
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn ServiceDiscovery>, RegistryError>>;
}
