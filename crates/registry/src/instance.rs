//! [`ServiceInstance`]: one running instance of an application, and its Curator JSON form.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

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

/// Metadata key: when the instance's process started (Java writes it per instance, so it is
/// the one key kept apart from the metadata instances share).
pub const TIMESTAMP_KEY: &str = "timestamp";

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

    /// Reads an instance from Curator JSON found at `path` (for the error message). Unknown
    /// fields are ignored; a missing address or port is an error.
    ///
    /// Reading many instances, keep one [`InstanceReader`] instead: it shares the metadata
    /// instances have in common.
    pub fn from_curator_json(path: &str, data: &[u8]) -> Result<Self, RegistryError> {
        InstanceReader::new().read_curator_json(path, data)
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

/// An instance's string metadata: a map from key to value, in key order.
///
/// Every instance of one revision announces the same endpoints, MetadataService parameters,
/// revision and storage type, often a few hundred bytes; only `timestamp` differs. So the map
/// is kept as a part shared by all instances that announce the same pairs (one `Arc`, see
/// [`InstanceReader`]) plus the instance's own `timestamp`. Readers see one map; changing it
/// copies the shared part first if others still use it.
#[derive(Clone, Default)]
pub struct InstanceMetadata {
    /// Every pair but `timestamp`.
    shared: Arc<BTreeMap<String, String>>,
    timestamp: Option<String>,
}

impl InstanceMetadata {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&String> {
        if key == TIMESTAMP_KEY {
            self.timestamp.as_ref()
        } else {
            self.shared.get(key)
        }
    }

    /// Whether `key` has a value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`, returning the value it replaces.
    pub fn insert(&mut self, key: String, value: String) -> Option<String> {
        if key == TIMESTAMP_KEY {
            self.timestamp.replace(value)
        } else {
            Arc::make_mut(&mut self.shared).insert(key, value)
        }
    }

    /// Removes `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        if key == TIMESTAMP_KEY {
            self.timestamp.take()
        } else if self.shared.contains_key(key) {
            Arc::make_mut(&mut self.shared).remove(key)
        } else {
            None
        }
    }

    /// The number of pairs.
    pub fn len(&self) -> usize {
        self.shared.len() + usize::from(self.timestamp.is_some())
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The pairs in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let mut shared = self.shared.iter().peekable();
        let mut timestamp = self.timestamp.as_deref();
        std::iter::from_fn(move || {
            if let Some(t) = timestamp {
                let later = shared
                    .peek()
                    .is_none_or(|(k, _)| k.as_str() > TIMESTAMP_KEY);
                if later {
                    timestamp = None;
                    return Some((TIMESTAMP_KEY, t));
                }
            }
            shared.next().map(|(k, v)| (k.as_str(), v.as_str()))
        })
    }

    /// The keys in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// A plain map with the same pairs.
    pub fn to_map(&self) -> BTreeMap<String, String> {
        self.iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect()
    }

    /// Whether both hold the very same shared part (then every pair but `timestamp` is equal
    /// without comparing); lets callers cache what they derive from it per shared part.
    pub fn shares_with(&self, other: &InstanceMetadata) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// The shared part, for caches keyed by it (holding the `Arc` keeps its address unique).
    pub(crate) fn shared(&self) -> &Arc<BTreeMap<String, String>> {
        &self.shared
    }
}

impl std::fmt::Debug for InstanceMetadata {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl PartialEq for InstanceMetadata {
    fn eq(&self, other: &Self) -> bool {
        self.timestamp == other.timestamp
            && (Arc::ptr_eq(&self.shared, &other.shared) || self.shared == other.shared)
    }
}

impl Eq for InstanceMetadata {}

impl std::ops::Index<&str> for InstanceMetadata {
    type Output = String;

    /// The value of `key`; panics when absent, as a map's index does.
    fn index(&self, key: &str) -> &String {
        match self.get(key) {
            Some(v) => v,
            None => panic!("no metadata {key:?}"),
        }
    }
}

impl From<BTreeMap<String, String>> for InstanceMetadata {
    fn from(mut map: BTreeMap<String, String>) -> Self {
        let timestamp = map.remove(TIMESTAMP_KEY);
        Self {
            shared: Arc::new(map),
            timestamp,
        }
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for InstanceMetadata {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let map: BTreeMap<String, String> = iter
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        map.into()
    }
}

impl Serialize for InstanceMetadata {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self.iter() {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for InstanceMetadata {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        BTreeMap::<String, String>::deserialize(deserializer).map(Self::from)
    }
}

/// Reads Curator instance JSON, sharing the metadata of instances that announce the same
/// pairs (all instances of one revision, `timestamp` aside).
///
/// A discovery keeps one per watched application: a large application's listing is
/// thousands of nearly identical documents, and the shared metadata is most of an instance's
/// size. Strings are borrowed from the input where the JSON has no escapes, and the parts of
/// the document the consumer does not use (`id`, `payload.id`, `serviceType`, `uriSpec`, ...)
/// are skipped without being copied.
///
/// ```
/// use dubbo_registry::{InstanceReader, ServiceInstance};
///
/// let mut a = ServiceInstance::new("app", "10.0.0.1", 20880);
/// a.metadata.insert("dubbo.metadata.revision".into(), "r1".into());
/// a.metadata.insert("timestamp".into(), "1".into());
/// let mut b = a.clone();
/// b.host = "10.0.0.2".into();
/// b.metadata.insert("timestamp".into(), "2".into());
/// let mut reader = InstanceReader::new();
/// let ra = reader.read_curator_json("/services/app/a", a.to_curator_json().as_bytes()).unwrap();
/// let rb = reader.read_curator_json("/services/app/b", b.to_curator_json().as_bytes()).unwrap();
/// assert_eq!((&ra, &rb), (&a, &b));
/// assert!(ra.metadata.shares_with(&rb.metadata));
/// ```
#[derive(Debug, Default)]
pub struct InstanceReader {
    /// Shared metadata by the JSON text of its pairs (`timestamp` left out).
    shared: HashMap<Box<[u8]>, Arc<BTreeMap<String, String>>>,
    /// Reused for the text of each instance's pairs, so a known map is found without
    /// allocating.
    key: Vec<u8>,
}

impl InstanceReader {
    /// A reader with nothing shared yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads an instance from Curator JSON found at `path` (for the error message); see
    /// [`ServiceInstance::from_curator_json`].
    pub fn read_curator_json(
        &mut self,
        path: &str,
        data: &[u8],
    ) -> Result<ServiceInstance, RegistryError> {
        let bad = |reason: String| RegistryError::BadData {
            path: path.to_owned(),
            reason,
        };
        let node: CuratorIn<'_> =
            serde_json::from_slice(data).map_err(|e| bad(format!("not instance JSON: {e}")))?;
        let port = node
            .port
            .or(node.ssl_port)
            .ok_or_else(|| bad("the instance has no port".to_owned()))?;
        if node.address.0.is_empty() {
            return Err(bad("the instance has no address".to_owned()));
        }
        let host = node
            .address
            .0
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let pairs = node.payload.map(|p| p.metadata.0).unwrap_or_default();
        let metadata = self
            .metadata(pairs)
            .map_err(|e| bad(format!("bad instance metadata: {e}")))?;
        Ok(ServiceInstance {
            app: node.name.0.into_owned(),
            host,
            port,
            metadata,
            registration_time: node.registration_time_utc,
        })
    }

    /// Forgets shared metadata no instance uses any more, so a long-lived reader stays the
    /// size of the current deployment.
    pub fn forget_unused(&mut self) {
        self.shared.retain(|_, m| Arc::strong_count(m) > 1);
    }

    fn metadata(
        &mut self,
        pairs: Vec<(Text<'_>, &RawValue)>,
    ) -> Result<InstanceMetadata, serde_json::Error> {
        // The key is the pairs as they arrived, values still JSON-quoted and escaped, each
        // preceded by its length so that no two different lists give the same bytes.
        self.key.clear();
        let mut timestamp = None;
        for (k, v) in &pairs {
            if k.0 == TIMESTAMP_KEY {
                timestamp = Some(*v);
            } else {
                for part in [k.0.as_bytes(), v.get().as_bytes()] {
                    self.key.extend_from_slice(&part.len().to_le_bytes());
                    self.key.extend_from_slice(part);
                }
            }
        }
        let timestamp = match timestamp {
            Some(v) => Some(serde_json::from_str::<Text<'_>>(v.get())?.0.into_owned()),
            None => None,
        };
        let shared = match self.shared.get(self.key.as_slice()) {
            Some(found) => Arc::clone(found),
            None => {
                let mut map = BTreeMap::new();
                for (k, v) in pairs {
                    if k.0 != TIMESTAMP_KEY {
                        map.insert(k.0.into_owned(), serde_json::from_str(v.get())?);
                    }
                }
                let map = Arc::new(map);
                self.shared
                    .insert(self.key.as_slice().into(), Arc::clone(&map));
                map
            }
        };
        Ok(InstanceMetadata { shared, timestamp })
    }
}

/// What the consumer reads of Curator's `OldServiceInstance`; other fields are skipped.
#[derive(Deserialize)]
struct CuratorIn<'a> {
    #[serde(borrow)]
    name: Text<'a>,
    #[serde(borrow)]
    address: Text<'a>,
    port: Option<u16>,
    #[serde(rename = "sslPort")]
    ssl_port: Option<u16>,
    #[serde(borrow)]
    payload: Option<PayloadIn<'a>>,
    #[serde(rename = "registrationTimeUTC", default)]
    registration_time_utc: u64,
}

#[derive(Deserialize)]
struct PayloadIn<'a> {
    #[serde(borrow, default)]
    metadata: Pairs<'a>,
}

/// A JSON string, borrowed from the input unless it has escapes.
#[derive(Deserialize)]
struct Text<'a>(#[serde(borrow)] Cow<'a, str>);

/// A JSON object of strings, in document order, the values as they are in the document (read
/// as strings only when they are not known yet).
#[derive(Default)]
struct Pairs<'a>(Vec<(Text<'a>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Pairs<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PairsVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for PairsVisitor<'a> {
            type Value = Pairs<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map of strings")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Pairs<'a>, A::Error> {
                // Java writes six to eight keys.
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(8).min(64));
                while let Some(pair) = map.next_entry::<Text<'a>, &'a RawValue>()? {
                    pairs.push(pair);
                }
                Ok(Pairs(pairs))
            }
        }
        deserializer.deserialize_map(PairsVisitor(std::marker::PhantomData))
    }
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

    fn java_like(host: &str, revision: &str, timestamp: &str) -> ServiceInstance {
        let mut i = ServiceInstance::new("p", host, 20880);
        let m = &mut i.metadata;
        m.insert(
            METADATA_SERVICE_PARAMS_KEY.into(),
            r#"{"version":"2.0.0","port":"50051","protocol":"tri"}"#.into(),
        );
        m.insert(REVISION_KEY.into(), revision.into());
        m.insert(TIMESTAMP_KEY.into(), timestamp.into());
        m.insert("zone".into(), "a<b>&'\u{0}\u{e9}".into());
        i
    }

    #[test]
    fn metadata_reads_as_one_map_in_key_order() {
        let i = java_like("10.0.0.1", "r1", "42");
        let plain: BTreeMap<String, String> = i
            .metadata
            .iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(i.metadata.to_map(), plain);
        let keys: Vec<&str> = i.metadata.keys().collect();
        assert_eq!(
            keys,
            [
                METADATA_SERVICE_PARAMS_KEY,
                REVISION_KEY,
                TIMESTAMP_KEY,
                "zone"
            ]
        );
        // Serialised exactly as the plain map would be.
        assert_eq!(
            serde_json::to_string(&i.metadata).unwrap(),
            serde_json::to_string(&plain).unwrap()
        );
        assert_eq!(i.metadata.len(), 4);
        assert_eq!(i.metadata[TIMESTAMP_KEY], "42");
        assert_eq!(InstanceMetadata::from(plain.clone()), i.metadata);
        assert_eq!(plain.into_iter().collect::<InstanceMetadata>(), i.metadata);
    }

    #[test]
    fn the_reader_shares_metadata_between_instances_of_a_revision() {
        let mut reader = InstanceReader::new();
        let read = |reader: &mut InstanceReader, i: &ServiceInstance| {
            let json = i.to_curator_json();
            let back = reader
                .read_curator_json("/services/p/x", json.as_bytes())
                .unwrap();
            assert_eq!(&back, i);
            assert_eq!(back.to_curator_json(), json);
            back
        };
        let a = read(&mut reader, &java_like("10.0.0.1", "r1", "1"));
        let b = read(&mut reader, &java_like("10.0.0.2", "r1", "2"));
        let c = read(&mut reader, &java_like("10.0.0.3", "r2", "3"));
        assert!(a.metadata.shares_with(&b.metadata));
        assert!(!a.metadata.shares_with(&c.metadata));
        assert_eq!(b.metadata[TIMESTAMP_KEY], "2");
        assert_eq!(
            a.metadata_service_params()
                .get("protocol")
                .map(String::as_str),
            Some("tri")
        );

        // Changing one instance's metadata leaves the others alone.
        let mut changed = a.clone();
        changed.metadata.insert(REVISION_KEY.into(), "r9".into());
        assert_eq!(b.revision(), "r1");
        assert_eq!(changed.revision(), "r9");
        assert_eq!(
            changed.metadata.remove("zone").as_deref(),
            Some("a<b>&'\u{0}\u{e9}")
        );
        assert!(b.metadata.contains_key("zone"));

        // Maps no instance holds any more are forgotten.
        drop((a, b, changed));
        reader.forget_unused();
        assert_eq!(reader.shared.len(), 1);
    }

    #[test]
    fn metadata_that_is_not_strings_is_refused_even_after_good_instances() {
        let mut reader = InstanceReader::new();
        let good = java_like("10.0.0.1", "r1", "1").to_curator_json();
        reader
            .read_curator_json("/services/p/good", good.as_bytes())
            .unwrap();
        for bad in [
            good.replace(
                r#""dubbo.metadata.revision":"r1""#,
                r#""dubbo.metadata.revision":1"#,
            ),
            good.replace(r#""timestamp":"1""#, r#""timestamp":1"#),
            good.replace(r#""timestamp":"1""#, r#""timestamp":null"#),
            good.replace(r#""metadata":{"#, r#""metadata":[{"#),
        ] {
            let e = reader
                .read_curator_json("/services/p/bad", bad.as_bytes())
                .unwrap_err();
            assert_eq!(e.code(), "REGISTRY_BAD_DATA", "{bad}");
            assert!(e.to_string().contains("/services/p/bad"), "{e}");
        }
        // Escapes in keys and values read as the text they stand for.
        let escaped = good.replace(r#""timestamp":"1""#, r#""time\u0073tamp":"\u0031""#);
        let i = reader
            .read_curator_json("/services/p/esc", escaped.as_bytes())
            .unwrap();
        assert_eq!(i.metadata[TIMESTAMP_KEY], "1");
    }
}
