//! [`MetadataReport`]: the metadata centre, which also holds the service-name mapping (Java's
//! `MetadataReport`).

use std::sync::Arc;

use dubbo_core::BoxFuture;
use dubbo_url::Url;

use crate::definition_id::DefinitionId;
use crate::error::RegistryError;
use crate::metadata_info::MetadataInfo;

/// Receives the applications mapped to a watched interface.
pub trait MappingListener: Send + Sync + 'static {
    /// The applications that provide `interface` now.
    fn on_mapping(&self, interface: &str, apps: Vec<String>);
}

impl<F> MappingListener for F
where
    F: Fn(&str, Vec<String>) + Send + Sync + 'static,
{
    fn on_mapping(&self, interface: &str, apps: Vec<String>) {
        self(interface, apps)
    }
}

/// The metadata centre: application metadata by revision (when `storage-type` is `remote`)
/// and the interface → application mapping consumers use to find providers by application.
pub trait MetadataReport: Send + Sync + 'static {
    /// The report's own URL.
    fn url(&self) -> &Url;

    /// Stores `info` under its application and revision.
    fn publish_app_metadata(&self, info: &MetadataInfo)
        -> BoxFuture<'_, Result<(), RegistryError>>;

    /// The metadata stored for `app` at `revision`, if any.
    fn app_metadata(
        &self,
        app: &str,
        revision: &str,
    ) -> BoxFuture<'_, Result<Option<MetadataInfo>, RegistryError>>;

    /// The applications mapped to `interface` (empty when none is).
    fn mapping(&self, interface: &str) -> BoxFuture<'_, Result<Vec<String>, RegistryError>>;

    /// Adds `app` to the applications mapped to `interface`, if it is not there yet. Concurrent
    /// writers do not lose each other's entries (compare-and-set, retried).
    fn register_mapping(
        &self,
        interface: &str,
        app: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Pushes `interface`'s applications to `listener` on every change.
    fn watch_mapping(
        &self,
        interface: &str,
        listener: Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Ends a mapping watch made with the same interface and listener.
    fn unwatch_mapping(
        &self,
        interface: &str,
        listener: &Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Stores a service definition (Java's `FullServiceDefinition` JSON) under `id`, as Java's
    /// `storeProviderMetadata` does. A report that keeps no definitions ignores it (the
    /// default).
    fn store_definition(
        &self,
        id: &DefinitionId,
        json: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let _ = (id, json);
        Box::pin(async { Ok(()) })
    }

    /// The service definition JSON stored under `id`, if any (the default keeps none).
    fn definition(
        &self,
        id: &DefinitionId,
    ) -> BoxFuture<'_, Result<Option<String>, RegistryError>> {
        let _ = id;
        Box::pin(async { Ok(None) })
    }
}

/// Creates metadata reports for one URL scheme, registered in the framework's extension table
/// under the scheme.
pub trait MetadataReportFactory: Send + Sync + 'static {
    /// Connects to the metadata centre at `url`.
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn MetadataReport>, RegistryError>>;
}
