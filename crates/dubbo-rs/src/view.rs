//! The application-wide view of what is served and what is called: one list that the
//! metadata service, registries and QoS read.

use dubbo_core::ServiceKey;
use dubbo_url::Url;

/// One service served by a module over one protocol.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportedService {
    /// The module that exported it.
    pub module: String,
    /// Interface, group and version.
    pub key: ServiceKey,
    /// The URL it is served at: protocol, advertised host, bound port and every parameter.
    pub url: Url,
}

/// One remote service a module refers to.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferredService {
    /// The module that refers to it.
    pub module: String,
    /// Interface, group and version.
    pub key: ServiceKey,
    /// The consumer URL of the reference.
    pub url: Url,
}
