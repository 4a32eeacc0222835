//! Per-service and per-reference options for code that does not use a config file.

use std::collections::BTreeMap;
use std::time::Duration;

/// How to export one service.
#[derive(Debug, Clone, Default)]
pub struct ServiceOptions {
    pub(crate) interface: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) group: Option<String>,
    pub(crate) protocols: Vec<String>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) parameters: BTreeMap<String, String>,
}

impl ServiceOptions {
    /// Defaults: the handler's interface, no version or group, every protocol of the application.
    pub fn new() -> Self {
        Self::default()
    }

    /// Exports under another Java interface name than the handler's.
    pub fn interface(mut self, interface: impl Into<String>) -> Self {
        self.interface = Some(interface.into());
        self
    }

    /// The service version (`1.0.0`).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// The service group.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// Exports only on this protocol id (call again to add more).
    pub fn protocol(mut self, id: impl Into<String>) -> Self {
        self.protocols.push(id.into());
        self
    }

    /// The timeout advertised to consumers.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Any other URL parameter (`weight`, `token`, `executes`, `<method>.timeout`, ...).
    pub fn parameter(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.parameters.insert(key.into(), value.into());
        self
    }
}

/// How to refer to one remote service.
#[derive(Debug, Clone, Default)]
pub struct ReferenceOptions {
    pub(crate) interface: String,
    pub(crate) url: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) group: Option<String>,
    pub(crate) protocol: Option<String>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) parameters: BTreeMap<String, String>,
}

impl ReferenceOptions {
    /// A reference to the Java interface `interface`.
    pub fn new(interface: impl Into<String>) -> Self {
        Self {
            interface: interface.into(),
            ..Self::default()
        }
    }

    /// Connects directly to `url` (`dubbo://host:port` or `tri://host:port`; `host:port` speaks
    /// [`protocol`](Self::protocol), else `dubbo`), with no registry.
    pub fn url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }

    /// The service version to call.
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// The service group to call.
    pub fn group(mut self, group: impl Into<String>) -> Self {
        self.group = Some(group.into());
        self
    }

    /// The protocol (`dubbo` or `tri`) of the providers to use: the protocol of a direct
    /// address given without a scheme (`127.0.0.1:20880`). It never rewrites a direct URL's
    /// scheme; naming another protocol than the URL's is an error at
    /// [`refer`](crate::Module::refer).
    pub fn protocol(mut self, protocol: impl Into<String>) -> Self {
        self.protocol = Some(protocol.into());
        self
    }

    /// The call timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Any other URL parameter (`connections`, `lazy`, `heartbeat`, `<method>.timeout`, ...).
    pub fn parameter(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.parameters.insert(key.into(), value.into());
        self
    }
}
