//! The embedded file registry (scheme `file`): registry, service discovery and metadata
//! report in a local directory, shared by every process of one machine that opens it. No
//! server is needed; a provider process and a consumer process started separately find each
//! other through the files.
//!
//! - Layout: ZooKeeper's tree as directories and files (see `layout.rs`).
//! - Liveness: ephemeral entries are listed in a manifest of their owner, which holds a
//!   `flock`; whoever finds such a lock free removes the entries (see `owner.rs`), so the
//!   entries of a process killed with `SIGKILL` vanish within a poll period.
//! - Changes: each object polls the directories it watches every `poll.period` ms (default
//!   300), comparing (name, inode) fingerprints (see `scan.rs`).
//! - Writes: temporary file + rename, so readers never see partial content.
//! - Config centre: values under `dubbo/config/{group}/{key}`, watched by the same polling.
//!
//! URL: `file:///abs/dir`, `file://localhost/abs/dir`, or `file://` for [`default_root`].

mod config;
mod discovery;
mod layout;
mod owner;
mod poller;
mod registry;
mod report;
mod scan;

use std::sync::Arc;

use dubbo_config_center::{ConfigCenterError, DynamicConfiguration, DynamicConfigurationFactory};
use dubbo_core::{BoxFuture, Extensions};
use dubbo_url::Url;

pub use config::FileDynamicConfiguration;
pub use discovery::FileServiceDiscovery;
pub use layout::{default_root, DEFAULT_POLL_PERIOD, POLL_PERIOD_KEY};
pub use registry::FileRegistry;
pub use report::FileMetadataReport;

use crate::definition_listing::{DefinitionListing, DefinitionListingFactory};
use crate::discovery::{ServiceDiscovery, ServiceDiscoveryFactory};
use crate::error::RegistryError;
use crate::registry::{Registry, RegistryFactory};
use crate::report::{MetadataReport, MetadataReportFactory};

/// The URL scheme of the file registry.
pub const FILE_SCHEME: &str = "file";

/// Creates [`FileRegistry`] values.
#[derive(Debug, Default, Clone, Copy)]
pub struct FileRegistryFactory;

impl RegistryFactory for FileRegistryFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn Registry>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move { Ok(Arc::new(FileRegistry::open(&url)?) as Arc<dyn Registry>) })
    }
}

/// Creates [`FileServiceDiscovery`] values.
#[derive(Debug, Default, Clone, Copy)]
pub struct FileServiceDiscoveryFactory;

impl ServiceDiscoveryFactory for FileServiceDiscoveryFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn ServiceDiscovery>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            Ok(Arc::new(FileServiceDiscovery::open(&url)?) as Arc<dyn ServiceDiscovery>)
        })
    }
}

/// Creates [`FileMetadataReport`] values.
#[derive(Debug, Default, Clone, Copy)]
pub struct FileMetadataReportFactory;

impl MetadataReportFactory for FileMetadataReportFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn MetadataReport>, RegistryError>> {
        let url = url.clone();
        Box::pin(
            async move { Ok(Arc::new(FileMetadataReport::open(&url)?) as Arc<dyn MetadataReport>) },
        )
    }
}

impl DefinitionListingFactory for FileMetadataReportFactory {
    fn create_listing(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DefinitionListing>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            Ok(Arc::new(FileMetadataReport::open(&url)?) as Arc<dyn DefinitionListing>)
        })
    }
}

/// Creates [`FileDynamicConfiguration`] values.
#[derive(Debug, Default, Clone, Copy)]
pub struct FileDynamicConfigurationFactory;

impl DynamicConfigurationFactory for FileDynamicConfigurationFactory {
    fn create(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DynamicConfiguration>, ConfigCenterError>> {
        let url = url.clone();
        Box::pin(async move {
            Ok(Arc::new(FileDynamicConfiguration::open(&url)?) as Arc<dyn DynamicConfiguration>)
        })
    }
}

/// Registers the file registry's factories (registry, service discovery, metadata report and
/// config centre) under the scheme `file` in `ext`.
pub fn register_file(ext: &Extensions) {
    ext.register::<dyn RegistryFactory>(FILE_SCHEME, Arc::new(FileRegistryFactory));
    ext.register::<dyn ServiceDiscoveryFactory>(FILE_SCHEME, Arc::new(FileServiceDiscoveryFactory));
    ext.register::<dyn MetadataReportFactory>(FILE_SCHEME, Arc::new(FileMetadataReportFactory));
    ext.register::<dyn DefinitionListingFactory>(FILE_SCHEME, Arc::new(FileMetadataReportFactory));
    ext.register::<dyn DynamicConfigurationFactory>(
        FILE_SCHEME,
        Arc::new(FileDynamicConfigurationFactory),
    );
}
