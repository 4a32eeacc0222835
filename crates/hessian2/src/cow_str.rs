//! [`CowStr`]: text that borrows from the input when it can.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::ops::Deref;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

/// A string that borrows from the bytes it was decoded from when it can and owns a copy
/// when it cannot, wherever it sits: in a field, a `Vec` or as a `HashMap` key.
///
/// serde borrows into a `Cow<'de, str>` only when it is a struct field marked
/// `#[serde(borrow)]`; inside a container a `Cow` is always copied. `CowStr` borrows in
/// both places. Strings sent in one chunk that are valid UTF-8 (every string without chars
/// outside the BMP, up to Java's 32 K chunk size) are borrowed; the rest are copied.
///
/// It derefs to `str`, and hashes and compares like one, so a
/// `HashMap<CowStr, CowStr>` is looked up with a `&str`.
///
/// ```
/// use std::collections::HashMap;
/// use dubbo_hessian2::{from_slice, to_vec, CowStr};
///
/// let bytes = to_vec(&HashMap::from([("k", "v")])).unwrap();
/// let map: HashMap<CowStr, CowStr> = from_slice(&bytes).unwrap();
/// assert_eq!(&*map["k"], "v");
/// assert!(map["k"].is_borrowed());
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct CowStr<'a>(pub Cow<'a, str>);

impl CowStr<'_> {
    /// Whether the text points into the decoded bytes rather than owning a copy.
    pub fn is_borrowed(&self) -> bool {
        matches!(self.0, Cow::Borrowed(_))
    }

    /// The text as an owned `String` (copied if borrowed).
    pub fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

impl Deref for CowStr<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for CowStr<'_> {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for CowStr<'_> {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for CowStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for CowStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl<'a> From<&'a str> for CowStr<'a> {
    fn from(s: &'a str) -> Self {
        CowStr(Cow::Borrowed(s))
    }
}

impl From<String> for CowStr<'_> {
    fn from(s: String) -> Self {
        CowStr(Cow::Owned(s))
    }
}

impl PartialEq<str> for CowStr<'_> {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for CowStr<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl Serialize for CowStr<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for CowStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(CowStrVisitor)
    }
}

struct CowStrVisitor;

impl<'de> Visitor<'de> for CowStrVisitor {
    type Value = CowStr<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(CowStr(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(CowStr(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(CowStr(Cow::Owned(v)))
    }
    // UTF-8 bytes are accepted as text, as `String` accepts them.
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
        match std::str::from_utf8(v) {
            Ok(s) => Ok(CowStr(Cow::Borrowed(s))),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
        }
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        match std::str::from_utf8(v) {
            Ok(s) => self.visit_str(s),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
        }
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
        match String::from_utf8(v) {
            Ok(s) => Ok(CowStr(Cow::Owned(s))),
            Err(e) => Err(E::invalid_value(de::Unexpected::Bytes(e.as_bytes()), &self)),
        }
    }
}
