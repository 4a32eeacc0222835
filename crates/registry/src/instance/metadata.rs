//! [`InstanceMetadata`]: an instance's string metadata, its common part shared, and the
//! metadata keys Dubbo defines.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

/// An instance's string metadata: a map from key to value, in key order.
///
/// Every instance of one revision announces the same endpoints, MetadataService parameters,
/// revision and storage type, often a few hundred bytes; only `timestamp` differs. So the map
/// is kept as a part shared by all instances that announce the same pairs (one `Arc`, see
/// [`InstanceReader`](crate::InstanceReader)) plus the instance's own `timestamp`. Readers see one map; changing it
/// copies the shared part first if others still use it.
#[derive(Clone, Default)]
pub struct InstanceMetadata {
    /// Every pair but `timestamp`.
    pub(super) shared: Arc<BTreeMap<String, String>>,
    pub(super) timestamp: Option<String>,
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
