//! [`ProviderKey`]: what makes two notified URLs the same provider.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher};

use dubbo_url::Url;

/// The parameter a registry stamps on each registration; it changes without the provider
/// changing, so it is ignored when comparing URLs.
const TIMESTAMP_KEY: &str = "timestamp";

/// The identity of a provider across notifications: protocol, host, port and service key
/// (group/interface:version, or the path when the URL names no interface).
///
/// Two URLs with the same key are the same provider; whether it *changed* is told by
/// [`same_config`], which compares everything but the registration `timestamp`.
///
/// The key holds the URL itself and the hash of its identity, computed once: a notification
/// of 100,000 providers looks every key up several times, and recomputing (or copying the
/// parts into owned strings, as an earlier version did) dominated the cost of applying it.
#[derive(Debug, Clone)]
pub(crate) struct ProviderKey {
    hash: u64,
    url: Url,
}

/// Hashes of provider identities are computed by [`ProviderKey::of`] with the directory's
/// own random keys; the map only passes them through.
pub(crate) type KeyMap<V> = HashMap<ProviderKey, V, BuildHasherDefault<PassThrough>>;

impl ProviderKey {
    /// The key of the provider `url`, hashed with `hasher` (one per directory).
    pub(crate) fn of(hasher: &impl BuildHasher, url: &Url) -> Self {
        Self {
            hash: hasher.hash_one(identity(url)),
            url: url.clone(),
        }
    }
}

/// Protocol, host, port, interface (or path), group and version; absent and empty are alike.
fn identity(url: &Url) -> (&str, &str, u16, &str, &str, &str) {
    (
        url.protocol().unwrap_or_default(),
        url.host().unwrap_or_default(),
        url.port(),
        url.service_interface().unwrap_or_default(),
        url.group().unwrap_or_default(),
        url.version().unwrap_or_default(),
    )
}

impl PartialEq for ProviderKey {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash
            && (Url::ptr_eq(&self.url, &other.url) || identity(&self.url) == identity(&other.url))
    }
}

impl Eq for ProviderKey {}

impl Hash for ProviderKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// A hasher that hands back the `u64` written to it (see [`KeyMap`]).
#[derive(Default)]
pub(crate) struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; fold anything else in rather than dropping it.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Whether two URLs of one provider describe it alike: equal but for the registration
/// `timestamp` (present or not). A changed weight, tag or serialization is a change.
pub(crate) fn same_config(a: &Url, b: &Url) -> bool {
    if Url::ptr_eq(a, b) {
        return true;
    }
    if a.address_part() != b.address_part() {
        return false;
    }
    if a.params() == b.params() {
        return true;
    }
    let mut x = a.params().iter().filter(|(k, _)| *k != TIMESTAMP_KEY);
    let mut y = b.params().iter().filter(|(k, _)| *k != TIMESTAMP_KEY);
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p == q => {}
            _ => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::hash_map::RandomState;

    use super::*;

    #[test]
    fn identity_ignores_parameters_and_config_ignores_timestamp() {
        let s = RandomState::new();
        let key = |u: &Url| ProviderKey::of(&s, u);
        let a =
            Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100&timestamp=1").unwrap();
        let b =
            Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100&timestamp=2").unwrap();
        let c = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=50").unwrap();
        let d = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100").unwrap();
        let other_group = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&group=g").unwrap();
        let no_interface = Url::parse("dubbo://10.0.0.1:20880/a.B?group=").unwrap();
        assert_eq!(key(&a), key(&b));
        assert_eq!(key(&a), key(&c));
        assert_eq!(key(&a), key(&no_interface));
        assert_ne!(key(&a), key(&other_group));
        assert!(same_config(&a, &b));
        assert!(same_config(&a, &d));
        assert!(!same_config(&a, &c));
        assert!(same_config(&a, &a.clone()));
    }
}
