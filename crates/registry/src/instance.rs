//! [`ServiceInstance`]: one running instance of an application, and its Curator JSON form.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::RegistryError;

/// Metadata key: the instance's metadata revision (`"0"` when it exports nothing).
pub const REVISION_KEY: &str = "dubbo.metadata.revision";
/// Metadata key: `local` (fetch metadata from the instance's MetadataService) or `remote`
/// (read it from the metadata report).
pub const STORAGE_TYPE_KEY: &str = "dubbo.metadata.storage-type";
/// Metadata key: JSON list of `{"port":..,"protocol":..}`, one per protocol served.
pub const ENDPOINTS_KEY: &str = "dubbo.endpoints";
/// Metadata key: JSON map of the MetadataService URL's parameters.
pub const METADATA_SERVICE_PARAMS_KEY: &str = "dubbo.metadata-service.url-params";
/// Metadata key: the MetadataService version served (`1.0.0`, or `2.0.0` with V2).
pub const METADATA_VERSION_KEY: &str = "meta-v";

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
    pub metadata: BTreeMap<String, String>,
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
            metadata: BTreeMap::new(),
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

    /// Reads an instance from Curator JSON found at `path` (for the error message). Unknown
    /// fields are ignored; a missing address or port is an error.
    pub fn from_curator_json(path: &str, data: &[u8]) -> Result<Self, RegistryError> {
        let bad = |reason: String| RegistryError::BadData {
            path: path.to_owned(),
            reason,
        };
        let node: CuratorInstance =
            serde_json::from_slice(data).map_err(|e| bad(format!("not instance JSON: {e}")))?;
        let port = node
            .port
            .or(node.ssl_port)
            .ok_or_else(|| bad("the instance has no port".to_owned()))?;
        if node.address.is_empty() {
            return Err(bad("the instance has no address".to_owned()));
        }
        let host = node
            .address
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        Ok(Self {
            app: node.name,
            host,
            port,
            metadata: node.payload.map(|p| p.metadata).unwrap_or_default(),
            registration_time: node.registration_time_utc,
        })
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
    metadata: BTreeMap<String, String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curator_json_has_javas_layout_and_reads_back() {
        let mut i = ServiceInstance::new("demo-provider", "127.0.0.1", 20880);
        i.registration_time = 1_700_000_000_000;
        i.metadata.insert(REVISION_KEY.into(), "abc".into());
        i.metadata.insert(
            ENDPOINTS_KEY.into(),
            r#"[{"port":20880,"protocol":"dubbo"},{"port":50051,"protocol":"tri"}]"#.into(),
        );
        let json = i.to_curator_json();
        assert!(json.starts_with(
            r#"{"name":"demo-provider","id":"127.0.0.1:20880","address":"127.0.0.1","port":20880,"sslPort":null,"payload":{"@class":"org.apache.dubbo.registry.zookeeper.ZookeeperInstance","id":"127.0.0.1:20880","name":"demo-provider","metadata":{"#
        ), "{json}");
        assert!(json.ends_with(
            r#"},"registrationTimeUTC":1700000000000,"serviceType":"DYNAMIC","uriSpec":null}"#
        ));
        let back = ServiceInstance::from_curator_json("/services/demo-provider/x", json.as_bytes())
            .unwrap();
        assert_eq!(back, i);
        assert_eq!(back.revision(), "abc");
        assert_eq!(back.port_for("tri"), 50051);
        assert_eq!(back.port_for("rest"), 20880);
    }

    #[test]
    fn java_ipv6_mapped_instances_are_dialled_in_brackets() {
        let json = br#"{"name":"p","id":"::ffff:127.0.0.1:20880","address":"::ffff:127.0.0.1","port":20880,"sslPort":null,"payload":{"@class":"org.apache.dubbo.registry.zookeeper.ZookeeperInstance","id":"::ffff:127.0.0.1:20880","name":"p","metadata":{"dubbo.metadata.revision":"r1","extra":"x"}},"registrationTimeUTC":1,"serviceType":"DYNAMIC","uriSpec":null,"enabled":true}"#;
        let i = ServiceInstance::from_curator_json("/services/p/x", json).unwrap();
        assert_eq!(i.address(), "[::ffff:127.0.0.1]:20880");
        assert_eq!(i.revision(), "r1");
    }

    #[test]
    fn foreign_and_partial_data_is_refused_with_the_path() {
        for data in [
            &b"not json"[..],
            br#"{"name":"p","id":"x","address":"h"}"#,
            b"{",
        ] {
            let e = ServiceInstance::from_curator_json("/services/p/bad", data).unwrap_err();
            assert_eq!(e.code(), "REGISTRY_BAD_DATA");
            assert!(e.to_string().contains("/services/p/bad"), "{e}");
        }
    }
}
