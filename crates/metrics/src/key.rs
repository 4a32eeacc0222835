//! What call metrics are kept per: application, service, method and side.

use std::hash::Hasher;
use std::sync::Arc;

use dubbo_core::Side;

/// The identity of one set of call metrics, Java's method-level metric key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MetricKey {
    /// Provider or consumer.
    pub side: Side,
    /// The application name (`application_name` label).
    pub application: Arc<str>,
    /// The Java interface (`interface` label).
    pub interface: Arc<str>,
    /// The method name (`method` label).
    pub method: Arc<str>,
    /// The service group, empty when none (`group` label).
    pub group: Arc<str>,
    /// The service version, empty when none (`version` label).
    pub version: Arc<str>,
}

/// A borrowed [`MetricKey`], so that looking up an existing key allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// Provider or consumer.
    pub side: Side,
    /// The application name.
    pub application: &'a str,
    /// The Java interface.
    pub interface: &'a str,
    /// The method name.
    pub method: &'a str,
    /// The group, empty when none.
    pub group: &'a str,
    /// The version, empty when none.
    pub version: &'a str,
}

impl KeyRef<'_> {
    /// An owned copy.
    pub fn to_owned_key(&self) -> MetricKey {
        MetricKey {
            side: self.side,
            application: self.application.into(),
            interface: self.interface.into(),
            method: self.method.into(),
            group: self.group.into(),
            version: self.version.into(),
        }
    }

    /// Whether `key` is the same key.
    pub(crate) fn matches(&self, key: &MetricKey) -> bool {
        self.side == key.side
            && *self.method == *key.method
            && *self.interface == *key.interface
            && *self.application == *key.application
            && *self.group == *key.group
            && *self.version == *key.version
    }

    /// A fast hash of the key's parts. Not resistant to chosen collisions; the store caps its
    /// number of keys, so a caller choosing method names cannot make it grow without bound.
    #[doc(hidden)]
    pub fn hash64(&self) -> u64 {
        let mut h = FxLike::default();
        h.write_u8(matches!(self.side, Side::Provider) as u8);
        for part in [
            self.application,
            self.interface,
            self.method,
            self.group,
            self.version,
        ] {
            h.write(part.as_bytes());
            // A separator, so that ("ab", "c") and ("a", "bc") differ.
            h.write_u8(0xff);
        }
        h.finish()
    }
}

impl MetricKey {
    /// The borrowed form.
    pub fn as_ref(&self) -> KeyRef<'_> {
        KeyRef {
            side: self.side,
            application: &self.application,
            interface: &self.interface,
            method: &self.method,
            group: &self.group,
            version: &self.version,
        }
    }
}

/// A multiply-rotate hash over 8-byte words (the scheme of rustc's FxHasher): a few
/// nanoseconds for a key, where SipHash would take most of the recording budget.
#[derive(Default)]
struct FxLike(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxLike {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxLike {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 56));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_separated() {
        let a = KeyRef {
            side: Side::Provider,
            application: "app",
            interface: "a.B",
            method: "m",
            group: "g",
            version: "",
        };
        let b = KeyRef {
            group: "",
            version: "g",
            ..a
        };
        assert_ne!(a.hash64(), b.hash64());
        assert!(a.matches(&a.to_owned_key()));
        assert!(!b.matches(&a.to_owned_key()));
        assert_eq!(a.to_owned_key().as_ref(), a);
    }
}
