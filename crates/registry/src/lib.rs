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
//! ```
//! use dubbo_registry::{MetadataInfo, ServiceInfo};
//! use dubbo_url::Url;
//!
//! let url = Url::parse("dubbo://127.0.0.1:20880/org.foo.Greeter?interface=org.foo.Greeter&side=provider").unwrap();
//! let mut meta = MetadataInfo::new("greeter-app");
//! meta.add_service(ServiceInfo::from_url(&url));
//! assert_eq!(meta.revision.len(), 32); // Java's MD5 revision
//! ```

mod discovery;
mod error;
mod instance;
mod metadata_info;
mod registry;
mod report;

pub use discovery::{InstancesListener, ServiceDiscovery, ServiceDiscoveryFactory};
pub use error::RegistryError;
pub use instance::{
    Endpoint, ServiceInstance, ENDPOINTS_KEY, METADATA_SERVICE_PARAMS_KEY, METADATA_VERSION_KEY,
    REVISION_KEY, STORAGE_TYPE_KEY,
};
pub use metadata_info::{MetadataInfo, ServiceInfo, EMPTY_REVISION};
pub use registry::{Category, Notification, NotifyListener, Registry, RegistryFactory};
pub use report::{MappingListener, MetadataReport, MetadataReportFactory};
