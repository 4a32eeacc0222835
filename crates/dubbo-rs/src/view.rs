//! The application-wide view of what is served and what is called: one list that the
//! metadata service, registries and QoS read.

use std::sync::Arc;

use dubbo_core::{Invoker, MethodSignature, ServiceKey};
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

/// A served service as the QoS `invoke` command calls it in-process.
pub(crate) struct LocalService {
    pub(crate) service: ExportedService,
    /// The provider filters around the implementation.
    pub(crate) chain: Arc<dyn Invoker>,
    /// Its methods' Java signatures; empty when unknown (IDL services).
    pub(crate) methods: Arc<[Arc<MethodSignature>]>,
}
