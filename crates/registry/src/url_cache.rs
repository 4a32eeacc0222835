//! [`ParsedUrlCache`]: parsed provider URLs kept by their encoded node or file name, so a
//! registry re-notifying an unchanged provider does not parse it again.
//!
//! Registries that store one URL per node name (ZooKeeper's `providers/{encoded url}`, the file
//! registry's files) see the same names on every change of a directory. Java Dubbo 3 keeps a
//! cache of parsed URLs keyed by the raw string for this reason (`CacheableFailbackRegistry`);
//! here the cache is a value owned by one registry, together with the [`Interner`] that makes
//! equal keys and values of different URLs share memory.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

use dubbo_url::{Interner, Url};

use crate::error::RegistryError;

/// Parsed URLs by their percent-encoded form (a ZooKeeper node name, a file name).
///
/// Cloning a [`Url`] shares its address and parameters, so every notification built from the
/// cache hands out the same allocations as the one before.
#[derive(Debug, Default)]
pub struct ParsedUrlCache {
    interner: Interner,
    parsed: Mutex<HashMap<String, Url>>,
}

impl ParsedUrlCache {
    /// An empty cache with its own interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty cache sharing strings through `interner` (e.g. one interner per framework).
    pub fn with_interner(interner: Interner) -> Self {
        Self {
            interner,
            parsed: Mutex::default(),
        }
    }

    /// The interner URLs are parsed with.
    pub fn interner(&self) -> &Interner {
        &self.interner
    }

    /// The URL whose percent-encoded form is `encoded_name`: the one parsed before when the
    /// name was seen already, else parsed now and remembered.
    ///
    /// A name that does not parse is reported as [`RegistryError::BadData`] naming it, and is
    /// not remembered (it is rare and the caller logs and skips it).
    pub fn get_or_parse(&self, encoded_name: &str) -> Result<Url, RegistryError> {
        if let Some(url) = self.lock().get(encoded_name) {
            return Ok(url.clone());
        }
        // Parsing happens outside the lock: two threads racing on a new name both parse, and
        // the first insert wins so every later caller shares one value.
        let url = Url::parse_encoded_with(encoded_name, &self.interner).map_err(|e| {
            RegistryError::BadData {
                path: encoded_name.to_owned(),
                reason: e.to_string(),
            }
        })?;
        let mut map = self.lock();
        Ok(map.entry(encoded_name.to_owned()).or_insert(url).clone())
    }

    /// Forgets every URL whose name is not in `names` (the names still present).
    pub fn retain<'a, I>(&self, names: I)
    where
        I: IntoIterator<Item = &'a str>,
    {
        let keep: HashSet<&str> = names.into_iter().collect();
        self.lock().retain(|k, _| keep.contains(k.as_str()));
    }

    /// How many URLs are remembered.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no URL is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Url>> {
        self.parsed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(port: u16) -> String {
        dubbo_url::encode(&format!(
            "dubbo://10.0.0.1:{port}/org.foo.Greeter?interface=org.foo.Greeter&methods=a,b&side=provider"
        ))
    }

    #[test]
    fn an_unchanged_name_returns_the_same_allocation() {
        let cache = ParsedUrlCache::new();
        let a = cache.get_or_parse(&name(1)).unwrap();
        let b = cache.get_or_parse(&name(1)).unwrap();
        assert!(std::ptr::eq(a.address_part(), b.address_part()));
        assert_eq!(a.parameter("methods"), Some("a,b"));
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn different_names_share_interned_strings_and_retain_drops_the_gone() {
        let cache = ParsedUrlCache::new();
        let a = cache.get_or_parse(&name(1)).unwrap();
        let b = cache.get_or_parse(&name(2)).unwrap();
        assert!(!std::ptr::eq(a.address_part(), b.address_part()));
        // Equal values come from the interner: same bytes at the same address.
        let va = a.parameter("interface").unwrap();
        let vb = b.parameter("interface").unwrap();
        assert!(std::ptr::eq(va.as_ptr(), vb.as_ptr()));

        let keep = name(2);
        cache.retain([keep.as_str()]);
        assert_eq!(cache.len(), 1);
        let b2 = cache.get_or_parse(&name(2)).unwrap();
        assert!(std::ptr::eq(b.address_part(), b2.address_part()));
        let a2 = cache.get_or_parse(&name(1)).unwrap();
        assert!(!std::ptr::eq(a.address_part(), a2.address_part()));
    }

    #[test]
    fn a_bad_name_is_bad_data_naming_it() {
        let cache = ParsedUrlCache::new();
        let e = cache
            .get_or_parse("dubbo%3A%2F%2Fh%3A1%2Fx%3Fa%3D%ZZ")
            .unwrap_err();
        assert_eq!(e.code(), "REGISTRY_BAD_DATA");
        assert!(cache.is_empty());
    }
}
