//! [`Text`]: a string kept inline when short, behind an `Arc` otherwise.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The longest string kept inline: an IPv4 host, a `timestamp` or `pid` value.
const INLINE: usize = 15;

/// The length of an inline text. An enum rather than a `u8` so the values above 15 are free
/// for the compiler to tell the variants apart by: a `Text` is 16 bytes, not 24.
#[derive(Clone, Copy)]
#[repr(u8)]
pub(crate) enum Len {
    L0,
    L1,
    L2,
    L3,
    L4,
    L5,
    L6,
    L7,
    L8,
    L9,
    L10,
    L11,
    L12,
    L13,
    L14,
    L15,
}

const LENS: [Len; INLINE + 1] = [
    Len::L0,
    Len::L1,
    Len::L2,
    Len::L3,
    Len::L4,
    Len::L5,
    Len::L6,
    Len::L7,
    Len::L8,
    Len::L9,
    Len::L10,
    Len::L11,
    Len::L12,
    Len::L13,
    Len::L14,
    Len::L15,
];

/// A string that is a Url's own (a host, a per-Url parameter value): inline when short, so a
/// registry's provider Url does not allocate for it, and behind a thin `Arc` otherwise.
/// Compares, orders and hashes as its text.
#[derive(Clone)]
pub(crate) enum Text {
    Inline {
        len: Len,
        bytes: [u8; INLINE],
    },
    /// Thin (one pointer), so the enum stays 16 bytes; long hosts are rare in registry data.
    Shared(Arc<Box<str>>),
}

impl Text {
    /// `s`, inline when it fits.
    pub(crate) fn new(s: &str) -> Text {
        match (LENS.get(s.len()), s.as_bytes().get(..INLINE.min(s.len()))) {
            (Some(&len), Some(src)) => {
                let mut bytes = [0; INLINE];
                bytes[..src.len()].copy_from_slice(src);
                Text::Inline { len, bytes }
            }
            _ => Text::Shared(Arc::new(Box::from(s))),
        }
    }

    /// The text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            // The bytes are a whole `&str` copied in, so they are UTF-8; the check is a few
            // nanoseconds on at most 15 bytes.
            Text::Inline { len, bytes } => {
                std::str::from_utf8(bytes.get(..*len as usize).unwrap_or_default())
                    .unwrap_or_default()
            }
            Text::Shared(s) => s,
        }
    }

    /// The text as a shared string (a copy when it is inline).
    pub(crate) fn to_arc(&self) -> Arc<str> {
        Arc::from(self.as_str())
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
        for s in ["", "10.0.0.1", "1796079976076", "255.255.255.255", "é中"] {
            let t = Text::new(s);
            assert!(matches!(t, Text::Inline { .. }), "{s}");
            assert_eq!(t.as_str(), s);
            assert_eq!(&*t.to_arc(), s);
        }
        for long in ["[fe80:0:0:0:894:aeec:f37d:23e1]", "0123456789abcdef"] {
            let t = Text::new(long);
            assert!(matches!(t, Text::Shared(_)));
            assert_eq!(t.as_str(), long);
            assert_eq!(t.clone(), Text::new(long));
            assert_eq!(&*t.to_arc(), long);
        }
        assert!(Text::new("a") < Text::new("b"));
        assert!(Text::new("0123456789abcdef") > Text::new("0123456789abcde"));
        assert_eq!(std::mem::size_of::<Option<Text>>(), 16);
    }
}
