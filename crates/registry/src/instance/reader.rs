//! [`InstanceReader`]: Curator instance JSON read many at a time, metadata shared.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::scan;
use super::{InstanceMetadata, ServiceInstance, TIMESTAMP_KEY};
use crate::error::RegistryError;

impl ServiceInstance {
    /// Reads an instance from Curator JSON found at `path` (for the error message). Unknown
    /// fields are ignored; a missing address or port is an error.
    ///
    /// Reading many instances, keep one [`InstanceReader`] instead: it shares the metadata
    /// instances have in common.
    pub fn from_curator_json(path: &str, data: &[u8]) -> Result<Self, RegistryError> {
        InstanceReader::new().read_curator_json(path, data)
    }
}

/// Reads Curator instance JSON, sharing the metadata of instances that announce the same
/// pairs (all instances of one revision, `timestamp` aside).
///
/// A discovery keeps one per watched application: a large application's listing is
/// thousands of nearly identical documents, and the shared metadata is most of an instance's
/// size. The document is scanned once, its structure checked but only the fields the consumer
/// keeps read (`id`, `payload.id`, `serviceType`, `uriSpec`, ... are skipped, their strings
/// neither validated nor unescaped). A map is found by the raw text of its pairs, compared
/// with the maps the last few instances used before anything is hashed, and unescaped and
/// built only the first time that text is seen. A document with the layout of the last one
/// read in full (the same text but for the name, id, address, ports, registration time and
/// `timestamp`, and metadata one of the recent texts) is read by comparing that text and
/// reading only those values; any other is scanned in full, with the same result.
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
// Kept as a second JSON reader beside serde because it is most of an application-level push:
// 2026-12-05, `DISCOVERY_SCALE_REPS=5 cargo bench --profile release -p dubbo-registry --bench
// discovery_scale -- application` (1,000,000 instances, CPU p50 of 5, three alternating runs),
// end to end 637-654 ms with this reader, 1,547-1,675 ms with the serde_json reader it
// replaced (borrowed strings, metadata shared by the text of its pairs), 827-849 ms when every
// document is scanned in full instead of being read along the last layout.
#[derive(Debug, Default)]
pub struct InstanceReader {
    /// Shared metadata by the text of its pairs (`timestamp` left out; see [`scan::scan`]).
    pub(super) shared: HashMap<Arc<[u8]>, Arc<BTreeMap<String, String>>>,
    /// The metadata texts of the last maps read pair by pair, newest first: the instances of a
    /// listing come in a few revisions, so a document's metadata is nearly always one of
    /// these but for its timestamp, and is found by comparing bytes, without reading its
    /// pairs or hashing them.
    pub(super) recent: Vec<scan::Pattern>,
    /// The maps of `recent`, position by position.
    pub(super) recent_maps: Vec<Arc<BTreeMap<String, String>>>,
    /// Reused for the text of each instance's pairs, so a known map is found without
    /// allocating.
    pub(super) key: Vec<u8>,
    /// The last document read in full, which the next ones are read along.
    pub(super) layout: scan::Layout,
}

/// How many recently used metadata texts are compared before the pairs are read.
pub(super) const RECENT_MAPS: usize = 4;

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
        let not_json = |e: scan::ScanError| bad(format!("not instance JSON: {e}"));
        self.key.clear();
        let doc = match scan::scan_along(data, &self.recent, &self.layout) {
            Some(doc) => doc,
            None => {
                scan::scan(data, &mut self.key, &self.recent, &mut self.layout).map_err(not_json)?
            }
        };
        let (Some(name), Some(address)) = (doc.name, doc.address) else {
            return Err(bad("not instance JSON: no name or address".to_owned()));
        };
        let port = doc
            .port
            .or(doc.ssl_port)
            .ok_or_else(|| bad("the instance has no port".to_owned()))?;
        let address = address.text().map_err(not_json)?;
        if address.is_empty() {
            return Err(bad("the instance has no address".to_owned()));
        }
        let host = address
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let app = name.text().map_err(not_json)?.into_owned();
        let timestamp = match doc.timestamp {
            Some(t) => Some(t.text().map_err(not_json)?.into_owned()),
            None => None,
        };
        let shared = match doc.metadata {
            // Not moved to the front: a listing's revisions usually alternate, and the
            // order they were first seen in makes a match as likely at any position.
            scan::Metadata::Known(index) => Ok(Arc::clone(&self.recent_maps[index])),
            scan::Metadata::Absent => self.by_pairs(None),
            scan::Metadata::Read { text, timestamp } => {
                let map = self.by_pairs(Some(text));
                if let Ok(map) = &map {
                    self.recent.truncate(RECENT_MAPS - 1);
                    self.recent_maps.truncate(RECENT_MAPS - 1);
                    self.recent.insert(0, scan::Pattern::new(text, timestamp));
                    self.recent_maps.insert(0, Arc::clone(map));
                }
                map
            }
        }
        .map_err(|e| bad(format!("bad instance metadata: {e}")))?;
        Ok(ServiceInstance {
            app,
            host,
            port,
            metadata: InstanceMetadata { shared, timestamp },
            registration_time: doc.registration_time,
        })
    }

    /// Forgets shared metadata no instance uses any more, so a long-lived reader stays the
    /// size of the current deployment.
    pub fn forget_unused(&mut self) {
        self.recent.clear();
        self.recent_maps.clear();
        self.shared.retain(|_, m| Arc::strong_count(m) > 1);
    }

    /// The shared map for the pairs whose text is in `self.key`, found by that text; `text`
    /// is the metadata object they came from, read only when the map is new.
    fn by_pairs(
        &mut self,
        text: Option<&[u8]>,
    ) -> Result<Arc<BTreeMap<String, String>>, scan::ScanError> {
        if let Some(found) = self.shared.get(self.key.as_slice()) {
            return Ok(Arc::clone(found));
        }
        let mut map = BTreeMap::new();
        if let Some(text) = text {
            scan::metadata_pairs(text, |k, v| {
                let k = k.text()?;
                if k != TIMESTAMP_KEY {
                    map.insert(k.into_owned(), v.text()?.into_owned());
                }
                Ok(())
            })?;
        }
        let map = Arc::new(map);
        self.shared
            .insert(self.key.as_slice().into(), Arc::clone(&map));
        Ok(map)
    }
}
