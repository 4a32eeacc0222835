//! [`Text`]: a string kept inline when short, behind an `Arc` otherwise.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The longest string kept inline: an IPv4 host, a `timestamp` or `pid` value.
const INLINE: usize = 22;

/// A string that is a Url's own (a host, a per-Url parameter value): inline when short, so a
/// registry's provider Url does not allocate for it, and an `Arc` otherwise (or when the text
/// came shared from an interner). Compares, orders and hashes as its text.
#[derive(Clone)]
pub(crate) enum Text {
    Inline { len: u8, bytes: [u8; INLINE] },
    Shared(Arc<str>),
}

impl Text {
    /// `s`, inline when it fits.
    pub(crate) fn new(s: &str) -> Text {
        match u8::try_from(s.len()) {
            Ok(len) if s.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..s.len()].copy_from_slice(s.as_bytes());
                Text::Inline { len, bytes }
            }
            _ => Text::Shared(Arc::from(s)),
        }
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            // The bytes are a whole `&str` copied in, so they are UTF-8; the check is a few
            // nanoseconds on at most 22 bytes.
            Text::Inline { len, bytes } => {
                std::str::from_utf8(bytes.get(..usize::from(*len)).unwrap_or_default())
                    .unwrap_or_default()
            }
            Text::Shared(s) => s,
        }
    }

    /// The text as a shared string (a copy when it is inline).
    pub(crate) fn to_arc(&self) -> Arc<str> {
        match self {
            Text::Inline { .. } => Arc::from(self.as_str()),
            Text::Shared(s) => Arc::clone(s),
        }
    }
}

impl From<Arc<str>> for Text {
    fn from(s: Arc<str>) -> Text {
        Text::Shared(s)
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Text {}

impl PartialOrd for Text {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Text {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_inline_and_reads_back() {
        for s in [
            "",
            "10.0.0.1",
            "1796079976076",
            "255.255.255.255:65535x",
            "é中",
        ] {
            let t = Text::new(s);
            assert!(matches!(t, Text::Inline { .. }), "{s}");
            assert_eq!(t.as_str(), s);
            assert_eq!(&*t.to_arc(), s);
        }
        let long = "[fe80:0:0:0:894:aeec:f37d:23e1]";
        let t = Text::new(long);
        assert!(matches!(t, Text::Shared(_)));
        assert_eq!(t.as_str(), long);
        assert_eq!(Text::new("a"), Text::from(Arc::<str>::from("a")));
        assert!(Text::new("a") < Text::new("b"));
        assert_eq!(std::mem::size_of::<Option<Text>>(), 24);
    }
}
