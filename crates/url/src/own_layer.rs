//! [`OwnLayer`]: the parameters a layered set holds on top of its shared map.

use std::sync::Arc;

use crate::keys;
use crate::text::Text;

/// A key and its value as a layer holds it.
type Pair<'a> = (&'a str, &'a Text);

/// A Url's own parameters on top of a shared map, sorted by key, no key twice, never empty.
///
/// An application-level provider Url has exactly one parameter of its own, the instance's
/// registration `timestamp`; a million of them would each pay an allocation (and about 50
/// bytes) for a one-pair slice, so that case is held inline. Anything else (a ZooKeeper
/// provider's `timestamp` and `pid`, say) is a shared slice.
#[derive(Clone)]
pub(crate) enum OwnLayer {
    /// Only `timestamp`, with this value.
    Timestamp(Text),
    /// Two or more pairs, or one with another key.
    Pairs(Arc<[(Arc<str>, Text)]>),
}

impl OwnLayer {
    /// The layer of `pairs` (sorted by key, no key twice); `None` when there are none.
    pub(crate) fn from_sorted(pairs: Vec<(Arc<str>, Text)>) -> Option<OwnLayer> {
        match pairs.as_slice() {
            [] => None,
            [(key, value)] if &**key == keys::TIMESTAMP => Some(OwnLayer::Timestamp(value.clone())),
            _ => Some(OwnLayer::Pairs(pairs.into())),
        }
    }

    /// The pairs in key order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = Pair<'_>> + '_ {
        let (one, many): (Option<Pair<'_>>, &[(Arc<str>, Text)]) = match self {
            OwnLayer::Timestamp(value) => (Some((keys::TIMESTAMP, value)), &[]),
            OwnLayer::Pairs(pairs) => (None, pairs),
        };
        one.into_iter().chain(many.iter().map(|(k, v)| (&**k, v)))
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        match self {
            OwnLayer::Timestamp(value) => (key == keys::TIMESTAMP).then(|| value.as_str()),
            OwnLayer::Pairs(pairs) => pairs
                .binary_search_by(|(k, _)| (**k).cmp(key))
                .ok()
                .and_then(|i| pairs.get(i))
                .map(|(_, v)| v.as_str()),
        }
    }

    /// The number of pairs.
    pub(crate) fn len(&self) -> usize {
        match self {
            OwnLayer::Timestamp(_) => 1,
            OwnLayer::Pairs(pairs) => pairs.len(),
        }
    }

    /// Whether both are one layer: clones of one slice, or inline layers of equal text (which
    /// are equal sets, the property callers of a pointer check rely on).
    pub(crate) fn same(a: &OwnLayer, b: &OwnLayer) -> bool {
        match (a, b) {
            (OwnLayer::Timestamp(x), OwnLayer::Timestamp(y)) => x == y,
            (OwnLayer::Pairs(x), OwnLayer::Pairs(y)) => Arc::ptr_eq(x, y),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(pairs: &[(&str, &str)]) -> Option<OwnLayer> {
        OwnLayer::from_sorted(
            pairs
                .iter()
                .map(|(k, v)| (Arc::from(*k), Text::new(v)))
                .collect(),
        )
    }

    #[test]
    fn a_lone_timestamp_is_inline_and_reads_as_any_layer() {
        assert!(layer(&[]).is_none());
        let inline = layer(&[("timestamp", "1796079976076")]).unwrap();
        assert!(matches!(inline, OwnLayer::Timestamp(_)));
        assert_eq!(inline.get("timestamp"), Some("1796079976076"));
        assert_eq!(inline.get("pid"), None);
        assert_eq!(inline.len(), 1);
        let read: Vec<(&str, &str)> = inline.iter().map(|(k, v)| (k, v.as_str())).collect();
        assert_eq!(read, [("timestamp", "1796079976076")]);
        let two = layer(&[("pid", "7"), ("timestamp", "1")]).unwrap();
        assert!(matches!(two, OwnLayer::Pairs(_)));
        assert_eq!(
            (two.get("pid"), two.get("timestamp"), two.len()),
            (Some("7"), Some("1"), 2)
        );
        assert!(matches!(
            layer(&[("pid", "7")]).unwrap(),
            OwnLayer::Pairs(_)
        ));
        assert!(OwnLayer::same(&inline, &inline.clone()));
        assert!(OwnLayer::same(&two, &two.clone()));
        assert!(!OwnLayer::same(&inline, &two));
        assert!(!OwnLayer::same(
            &inline,
            &layer(&[("timestamp", "2")]).unwrap()
        ));
        assert!(!OwnLayer::same(
            &two,
            &layer(&[("pid", "7"), ("timestamp", "1")]).unwrap()
        ));
    }
}
