//! [`DefinitionListing`]: the entries of one service and side in the metadata report, by
//! application (Java keeps one per application: `metadata/{interface}/{version}/{group}/
//! {side}/{application}`), for tools that show who provides or consumes a service.

use std::sync::Arc;

use dubbo_core::BoxFuture;
use dubbo_url::Url;

use crate::definition_id::DefinitionId;
use crate::error::RegistryError;

/// One metadata-report entry: the application that wrote it and what it holds (a provider's
/// `FullServiceDefinition` JSON, a consumer's URL parameters as a JSON object).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DefinitionEntry {
    /// The application, the entry's last path segment.
    pub application: String,
    /// The stored text.
    pub content: String,
}

/// Lists a metadata report's entries of one service and side.
pub trait DefinitionListing: Send + Sync + 'static {
    /// Every entry stored under `service`'s interface, version, group and side, whatever
    /// application wrote it (`service.application` is not read), sorted by application.
    fn definition_entries(
        &self,
        service: &DefinitionId,
    ) -> BoxFuture<'_, Result<Vec<DefinitionEntry>, RegistryError>>;
}

/// Opens a [`DefinitionListing`] on a metadata report, registered in the framework's extension
/// table under the report's URL scheme.
pub trait DefinitionListingFactory: Send + Sync + 'static {
    /// Connects to the metadata centre at `url`.
    fn create_listing(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DefinitionListing>, RegistryError>>;
}
