//! The reader as it was before the scanner, on serde_json: the reference the scanner is
//! tested against (same instances from the same documents, refusals in the same cases).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::{InstanceMetadata, ServiceInstance, TIMESTAMP_KEY};

/// Reads `data` with serde_json, every field validated; `Err` carries the reason.
pub(super) fn read(data: &[u8]) -> Result<ServiceInstance, String> {
    let node: CuratorIn<'_> = serde_json::from_slice(data).map_err(|e| e.to_string())?;
    let port = node
        .port
        .or(node.ssl_port)
        .ok_or_else(|| "no port".to_owned())?;
    if node.address.0.is_empty() {
        return Err("no address".to_owned());
    }
    let host = node
        .address
        .0
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let mut map = BTreeMap::new();
    let mut timestamp = None;
    for (k, v) in node.payload.map(|p| p.metadata.0).unwrap_or_default() {
        let v: String = serde_json::from_str(v.get()).map_err(|e| e.to_string())?;
        if k.0 == TIMESTAMP_KEY {
            timestamp = Some(v);
        } else {
            map.insert(k.0.into_owned(), v);
        }
    }
    Ok(ServiceInstance {
        app: node.name.0.into_owned(),
        host,
        port,
        metadata: InstanceMetadata {
            shared: map.into(),
            timestamp,
        },
        registration_time: node.registration_time_utc,
    })
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
