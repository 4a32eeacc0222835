//! [`KeyIndex`]: what makes two notified URLs the same provider, and where it sits.

use std::hash::BuildHasher;

use dubbo_url::Url;
use hashbrown::HashTable;

use super::param_facts::ParamFacts;

/// The parameter a registry stamps on each registration; it changes without the provider
/// changing, so it is ignored when comparing URLs.
const TIMESTAMP_KEY: &str = "timestamp";

/// Where each provider of a directory sits, found by its identity: protocol, host, port and
/// service key (group/interface:version, or the path when the URL names no interface).
///
/// Two URLs of the same identity are the same provider; whether it *changed* is told by
/// [`same_config`], which compares everything but the registration `timestamp`.
///
/// The index stores only positions (4 bytes each); the URL a position stands for is the
/// caller's, handed to every lookup, so the index neither copies nor holds a URL. Hashes are
/// computed with the directory's own random keys, so registry data cannot aim at collisions.
#[derive(Default)]
pub(crate) struct KeyIndex {
    table: HashTable<u32>,
}

impl KeyIndex {
    /// An empty index with room for `n` providers.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            table: HashTable::with_capacity(n),
        }
    }

    /// The hash of `url`'s identity under `hasher` (one per directory).
    pub(crate) fn hash(hasher: &impl BuildHasher, url: &Url) -> u64 {
        Self::hash_with(hasher, url, &ParamFacts::of(url))
    }

    /// [`hash`](Self::hash), with `url`'s parameters already read.
    pub(crate) fn hash_with(hasher: &impl BuildHasher, url: &Url, facts: &ParamFacts<'_>) -> u64 {
        hasher.hash_one(identity_with(url, facts))
    }

    /// The position of the provider with `url`'s identity (`hash` its [`hash`](Self::hash)),
    /// `url_of` telling the URL at each position.
    pub(crate) fn find<'a>(
        &self,
        hash: u64,
        url: &Url,
        url_of: impl Fn(u32) -> Option<&'a Url>,
    ) -> Option<u32> {
        self.table
            .find(hash, |&i| url_of(i).is_some_and(|u| same_provider(u, url)))
            .copied()
    }

    /// Records provider `position` under `hash`; `rehash` tells the hash of any position
    /// recorded so far, for when the table grows.
    pub(crate) fn insert(&mut self, hash: u64, position: u32, rehash: impl Fn(&u32) -> u64) {
        self.table.insert_unique(hash, position, rehash);
    }

    /// Forgets every provider.
    pub(crate) fn clear(&mut self) {
        self.table.clear();
    }
}

/// Protocol, host, port, interface (or path), group and version; absent and empty are alike.
fn identity(url: &Url) -> (&str, &str, u16, &str, &str, &str) {
    identity_with(url, &ParamFacts::of(url))
}

/// [`identity`] with `url`'s parameters already read into `facts`.
fn identity_with<'a>(
    url: &'a Url,
    facts: &ParamFacts<'a>,
) -> (&'a str, &'a str, u16, &'a str, &'a str, &'a str) {
    (
        url.protocol().unwrap_or_default(),
        url.host().unwrap_or_default(),
        url.port(),
        facts.interface.or_else(|| url.path()).unwrap_or_default(),
        facts.group,
        facts.version,
    )
}

/// Whether `a` and `b` are URLs of the same provider (see [`KeyIndex`]).
pub(crate) fn same_provider(a: &Url, b: &Url) -> bool {
    Url::ptr_eq(a, b) || identity(a) == identity(b)
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
        let a =
            Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100&timestamp=1").unwrap();
        let b =
            Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100&timestamp=2").unwrap();
        let c = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=50").unwrap();
        let d = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&weight=100").unwrap();
        let other_group = Url::parse("dubbo://10.0.0.1:20880/a.B?interface=a.B&group=g").unwrap();
        let no_interface = Url::parse("dubbo://10.0.0.1:20880/a.B?group=").unwrap();
        let hash = |u: &Url| KeyIndex::hash(&s, u);
        assert_eq!(hash(&a), hash(&b));
        assert_eq!(hash(&a), hash(&c));
        assert_eq!(hash(&a), hash(&no_interface));
        assert!(same_provider(&a, &b) && same_provider(&a, &c) && same_provider(&a, &no_interface));
        assert!(!same_provider(&a, &other_group));
        assert!(same_config(&a, &b));
        assert!(same_config(&a, &d));
        assert!(!same_config(&a, &c));
        assert!(same_config(&a, &a.clone()));
    }

    #[test]
    fn the_index_finds_providers_by_identity_through_growth() {
        let s = RandomState::new();
        let urls: Vec<Url> = (0..200u16)
            .map(|p| {
                Url::parse(&format!("dubbo://10.0.0.1:{}/a.B?interface=a.B", 1000 + p)).unwrap()
            })
            .collect();
        // Start small so the table rehashes through `rehash`.
        let mut index = KeyIndex::with_capacity(1);
        for (i, u) in urls.iter().enumerate() {
            let at = |j: &u32| KeyIndex::hash(&s, &urls[*j as usize]);
            index.insert(KeyIndex::hash(&s, u), i as u32, at);
        }
        let url_of = |j: u32| urls.get(j as usize);
        for (i, u) in urls.iter().enumerate() {
            let same = Url::parse(&format!("{u}&timestamp=9")).unwrap();
            assert_eq!(
                index.find(KeyIndex::hash(&s, &same), &same, url_of),
                Some(i as u32)
            );
        }
        let other = Url::parse("dubbo://10.0.0.2:1000/a.B?interface=a.B").unwrap();
        assert_eq!(index.find(KeyIndex::hash(&s, &other), &other, url_of), None);
        index.clear();
        assert_eq!(
            index.find(KeyIndex::hash(&s, &urls[0]), &urls[0], url_of),
            None
        );
    }
}
