//! [`ServiceInstance`]: one running instance of an application, and its Curator JSON form.
//!
//! Its string metadata is an [`InstanceMetadata`] (in [`metadata`]); [`reader`] reads the
//! JSON of many instances, sharing their metadata, with the one-pass scanner of [`scan`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod metadata;
mod reader;
#[cfg(test)]
mod reference;
mod scan;
#[cfg(test)]
mod tests;

pub use metadata::{
    InstanceMetadata, ENDPOINTS_KEY, METADATA_SERVICE_PARAMS_KEY, METADATA_VERSION_KEY,
    REVISION_KEY, STORAGE_TYPE_KEY, TIMESTAMP_KEY,
};
pub use reader::InstanceReader;

/// The Java class name Curator records for the payload of a Dubbo instance.
const PAYLOAD_CLASS: &str = "org.apache.dubbo.registry.zookeeper.ZookeeperInstance";

/// One running instance of an application, as application-level discovery publishes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceInstance {
    /// The application name.
    pub app: String,
    /// The address consumers dial (an IPv6 address without brackets; the Curator JSON has them).
    pub host: String,
    /// The port of the instance's main protocol.
    pub port: u16,
    /// String metadata: revision, endpoints, MetadataService parameters, ...
    pub metadata: InstanceMetadata,
    /// When the instance registered, in milliseconds since the epoch.
    pub registration_time: u64,
}

/// One protocol the instance serves, from `dubbo.endpoints`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    /// The port.
    pub port: u16,
    /// The protocol name (`dubbo`, `tri`).
    pub protocol: String,
}

impl ServiceInstance {
    /// An instance of `app` at `host:port` with no metadata yet.
    pub fn new(app: impl Into<String>, host: impl Into<String>, port: u16) -> Self {
        Self {
            app: app.into(),
            host: host.into(),
            port,
            metadata: InstanceMetadata::new(),
            registration_time: 0,
        }
    }

    /// The instance id, `host:port` as Java builds it: no escaping, an IPv6 host in brackets
    /// (Java's URL host keeps them; a Java 3.3.6 provider registered as `::ffff:127.0.0.1` has
    /// the id `[::ffff:127.0.0.1]:20880`).
    pub fn id(&self) -> String {
        self.address()
    }

    /// The host as Java writes it in the instance JSON (Curator's `address`, the etcd
    /// discovery's `host`) and in instance keys: an IPv6 host in brackets.
    pub fn java_host(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        }
    }

    /// The address to dial: `host:port`, with an IPv6 host in brackets.
    pub fn address(&self) -> String {
        format!("{}:{}", self.java_host(), self.port)
    }

    /// The metadata revision, `"0"` when absent.
    pub fn revision(&self) -> &str {
        self.metadata
            .get(REVISION_KEY)
            .map(String::as_str)
            .unwrap_or("0")
    }

    /// Whether the metadata lives in the metadata report (`remote`) rather than behind the
    /// instance's MetadataService (`local`, the default).
    pub fn is_remote_storage(&self) -> bool {
        self.metadata.get(STORAGE_TYPE_KEY).map(String::as_str) == Some("remote")
    }

    /// The protocols and ports the instance serves (`dubbo.endpoints`); empty when absent or
    /// unreadable.
    pub fn endpoints(&self) -> Vec<Endpoint> {
        self.metadata
            .get(ENDPOINTS_KEY)
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default()
    }

    /// The port the instance serves `protocol` on: from `dubbo.endpoints`, else the instance
    /// port.
    pub fn port_for(&self, protocol: &str) -> u16 {
        self.endpoints()
            .into_iter()
            .find(|e| e.protocol == protocol)
            .map(|e| e.port)
            .unwrap_or(self.port)
    }

    /// The parameters of the instance's MetadataService URL
    /// (`dubbo.metadata-service.url-params`); empty when absent or unreadable.
    pub fn metadata_service_params(&self) -> BTreeMap<String, String> {
        self.metadata
            .get(METADATA_SERVICE_PARAMS_KEY)
            .and_then(|s| serde_json::from_str(s).ok())
            .unwrap_or_default()
    }

    /// The instance as Curator's `JsonInstanceSerializer` writes it in compatible mode (the
    /// form Java Dubbo stores under `/services/{app}/{id}`).
    pub fn to_curator_json(&self) -> String {
        let id = self.id();
        let node = CuratorInstance {
            name: self.app.clone(),
            id: id.clone(),
            address: self.java_host(),
            port: Some(self.port),
            ssl_port: None,
            payload: Some(CuratorPayload {
                class: PAYLOAD_CLASS.to_owned(),
                id: Some(id),
                name: Some(self.app.clone()),
                metadata: self.metadata.clone(),
            }),
            registration_time_utc: self.registration_time,
            service_type: "DYNAMIC".to_owned(),
            uri_spec: None,
        };
        // Serialising plain strings and maps cannot fail.
        serde_json::to_string(&node).unwrap_or_default()
    }
}

/// Curator's `OldServiceInstance` layout, field order as Curator writes it.
#[derive(Serialize, Deserialize)]
struct CuratorInstance {
    name: String,
    id: String,
    address: String,
    port: Option<u16>,
    #[serde(rename = "sslPort")]
    ssl_port: Option<u16>,
    payload: Option<CuratorPayload>,
    #[serde(rename = "registrationTimeUTC", default)]
    registration_time_utc: u64,
    #[serde(rename = "serviceType", default = "dynamic")]
    service_type: String,
    #[serde(rename = "uriSpec", default)]
    uri_spec: Option<serde_json::Value>,
}

fn dynamic() -> String {
    "DYNAMIC".to_owned()
}

#[derive(Serialize, Deserialize)]
struct CuratorPayload {
    #[serde(rename = "@class", default)]
    class: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    metadata: InstanceMetadata,
}
