//! Registries and application-level service discovery for dubbo-rs.
//!
//! Three contracts, each chosen by the URL scheme from the framework's extension table so that
//! users can add their own:
//!
//! - [`Registry`] (interface level): providers register their service URLs, consumers
//!   subscribe to a service's providers, configurators and routers.
//! - [`ServiceDiscovery`] (application level): one [`ServiceInstance`] per running
//!   application instance; consumers read service details from [`MetadataInfo`], fetched
//!   once per revision.
//! - [`MetadataReport`]: the metadata centre, holding metadata by revision and the
//!   interface → application mapping.
//!
//! Implementations and helpers any registry can use:
//!
//! - [`FileRegistry`], [`FileServiceDiscovery`], [`FileMetadataReport`],
//!   [`FileDynamicConfiguration`] (scheme `file`, [`register_file`]): the embedded registry
//!   and config centre in a local directory, shared across processes.
//! - [`FailbackRegistry`]: retries failed registrations and subscriptions in the background.
//! - [`RegistryCacheFile`] and [`CachingRegistry`]: the last-known providers on disk, in Java's
//!   cache-file format, served when the registry is down.
//! - [`CoalescingNotifyListener`], [`CoalescingInstancesListener`]: one push per window of the
//!   newest list (Java's delay notification).
//! - [`ParsedUrlCache`]: parsed URLs by encoded node name, so unchanged providers are not parsed
//!   again.
//!
//! ```
//! use dubbo_registry::{MetadataInfo, ServiceInfo};
//! use dubbo_url::Url;
//!
//! let url = Url::parse("dubbo://127.0.0.1:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider").unwrap();
//! let mut meta = MetadataInfo::new("greeter-app");
//! meta.add_service(ServiceInfo::from_url(&url));
//! assert_eq!(meta.revision.len(), 32); // Java's MD5 revision
//! ```

mod atomic_file;
mod cache_file;
mod caching;
mod child_listing;
mod coalesce;
mod definition_id;
mod definition_listing;
mod discovery;
mod error;
mod failback;
#[cfg(unix)]
mod file;
mod instance;
mod instance_urls;
mod metadata_info;
mod properties;
mod registry;
mod report;
mod url_cache;
mod url_match;

pub use cache_file::{RegistryCacheFile, DEFAULT_SAVE_DELAY, FILE_CACHE_KEY, FILE_KEY};
pub use caching::CachingRegistry;
pub use child_listing::{ChildChange, ChildListing, ListingChange};
pub use coalesce::{
    CoalesceConfig, CoalescingInstancesListener, CoalescingNotifyListener,
    DEFAULT_DELAY_NOTIFICATION, DELAY_NOTIFICATION_KEY,
};
pub use definition_id::DefinitionId;
pub use definition_listing::{DefinitionEntry, DefinitionListing, DefinitionListingFactory};
pub use discovery::{InstancesListener, ServiceDiscovery, ServiceDiscoveryFactory};
pub use error::RegistryError;
pub use failback::{
    FailbackConfig, FailbackRegistry, DEFAULT_RETRY_MAX_PERIOD, DEFAULT_RETRY_PERIOD,
    RETRY_MAX_PERIOD_KEY, RETRY_PERIOD_KEY,
};
#[cfg(unix)]
pub use file::{
    default_root, register_file, FileDynamicConfiguration, FileDynamicConfigurationFactory,
    FileMetadataReport, FileMetadataReportFactory, FileRegistry, FileRegistryFactory,
    FileServiceDiscovery, FileServiceDiscoveryFactory, DEFAULT_POLL_PERIOD, FILE_SCHEME,
    POLL_PERIOD_KEY,
};
pub use instance::{
    Endpoint, InstanceMetadata, InstanceReader, ServiceInstance, ENDPOINTS_KEY,
    METADATA_SERVICE_PARAMS_KEY, METADATA_VERSION_KEY, REVISION_KEY, STORAGE_TYPE_KEY,
    TIMESTAMP_KEY,
};
pub use instance_urls::{instance_urls, InstanceUrls};
pub use metadata_info::{MetadataInfo, ServiceInfo, EMPTY_REVISION};
pub use registry::{Category, Notification, NotifyListener, Registry, RegistryFactory};
pub use report::{MappingListener, MetadataReport, MetadataReportFactory};
pub use url_cache::ParsedUrlCache;
pub use url_match::is_match;
