//! [`ParsedUrlCache`]: parsed provider URLs kept by their encoded node or file name, so a
//! registry re-notifying an unchanged provider does not parse it again.
//!
//! Registries that store one URL per node name (ZooKeeper's `providers/{encoded url}`, the file
//! registry's files) see the same names on every change of a directory. Java Dubbo 3 keeps a
//! cache of parsed URLs keyed by the raw string for this reason (`CacheableFailbackRegistry`);
//! here the cache is a value owned by one registry, together with the [`Interner`] that makes
//! equal keys and values of different URLs share memory.

use std::collections::hash_map::RandomState;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, PoisonError};

use dubbo_url::{Interner, Url, UrlParams};

use crate::error::RegistryError;

/// Parameters that differ between the registrations of providers that are otherwise alike
/// (Java's `CacheableFailbackRegistry` strips the same two before sharing a `URLParam`).
const VARIABLE_KEYS: [&str; 2] = ["timestamp", "pid"];

/// Parsed URLs by their percent-encoded form (a ZooKeeper node name, a file name).
///
/// Cloning a [`Url`] shares its address and parameters, so every notification built from the
/// cache hands out the same allocations as the one before.
///
/// Providers of one service usually register the same parameters but for `timestamp` and
/// `pid`; their URLs share one parameter map, parsed once, with the two on top
/// ([`UrlParams::layered`]), which is most of a URL's memory. Names whose parameter text is
/// unusual (literal delimiters, `default.` keys, pairs without `=`, non-ASCII) are parsed
/// whole, unshared, with the same result.
///
/// Names are remembered by a 128-bit keyed digest rather than by their text (see
/// [`NameDigest`]): a Java provider's name is 600–800 bytes, more than the parsed URL it
/// stands for.
#[derive(Debug, Default)]
pub struct ParsedUrlCache {
    interner: Interner,
    digest: NameDigest,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    parsed: HashMap<u128, Cached, BuildHasherDefault<Low64>>,
    /// Shared parameter sets by their encoded text without the variable keys.
    shared: HashMap<Arc<str>, UrlParams>,
}

#[derive(Debug)]
struct Cached {
    url: Url,
    shared: Option<Arc<str>>,
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
            digest: NameDigest::default(),
            state: Mutex::default(),
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
        let digest = self.digest.of(encoded_name);
        if let Some(cached) = self.lock().parsed.get(&digest) {
            return Ok(cached.url.clone());
        }
        self.parse_new(encoded_name, digest)
    }

    /// The URLs of a full listing (every child of a ZooKeeper directory), in its order, each
    /// as [`get_or_parse`](Self::get_or_parse) gives it; then forgets every name not listed,
    /// as [`retain`](Self::retain) does.
    ///
    /// The same as calling those two, at about half the cost on a re-listing of known names:
    /// each name is digested once and the known ones are looked up under one lock.
    pub fn parse_listing<'a, I>(&self, names: I) -> Vec<Result<Url, RegistryError>>
    where
        I: IntoIterator<Item = &'a str>,
    {
        let names: Vec<(&str, u128)> = names.into_iter().map(|n| (n, self.digest.of(n))).collect();
        let known: Vec<Option<Url>> = {
            let state = self.lock();
            names
                .iter()
                .map(|(_, d)| state.parsed.get(d).map(|c| c.url.clone()))
                .collect()
        };
        let urls = names
            .iter()
            .zip(known)
            .map(|(&(name, digest), url)| match url {
                Some(url) => Ok(url),
                None => self.parse_new(name, digest),
            })
            .collect();
        self.retain_digests(names.iter().map(|&(_, d)| d).collect());
        urls
    }

    /// Parses a name not found under `digest` and remembers it.
    fn parse_new(&self, encoded_name: &str, digest: u128) -> Result<Url, RegistryError> {
        let bad = |e: dubbo_url::UrlError| RegistryError::BadData {
            path: encoded_name.to_owned(),
            reason: e.to_string(),
        };
        // Parsing happens outside the lock: two threads racing on a new name both parse, and
        // the first insert wins so every later caller shares one value.
        let cached = match split(encoded_name) {
            Some(parts) => {
                let address =
                    Url::parse_encoded_with(parts.address, &self.interner).map_err(bad)?;
                let own = UrlParams::parse_encoded_with(&parts.own, &self.interner).map_err(bad)?;
                let (key, shared) = self.shared(&parts.shared).map_err(bad)?;
                Cached {
                    url: address.with_params(shared.layered(&own)),
                    shared: Some(key),
                }
            }
            None => Cached {
                url: Url::parse_encoded_with(encoded_name, &self.interner).map_err(bad)?,
                shared: None,
            },
        };
        let mut state = self.lock();
        Ok(state.parsed.entry(digest).or_insert(cached).url.clone())
    }

    /// The shared parameter set of the encoded parameter text `text`, parsed once.
    fn shared(&self, text: &str) -> Result<(Arc<str>, UrlParams), dubbo_url::UrlError> {
        if let Some((k, v)) = self.lock().shared.get_key_value(text) {
            return Ok((Arc::clone(k), v.clone()));
        }
        let params = UrlParams::parse_encoded_with(text, &self.interner)?;
        let mut state = self.lock();
        if let Some((k, v)) = state.shared.get_key_value(text) {
            return Ok((Arc::clone(k), v.clone()));
        }
        let key: Arc<str> = Arc::from(text);
        state.shared.insert(Arc::clone(&key), params.clone());
        Ok((key, params))
    }

    /// Forgets every URL whose name is not in `names` (the names still present).
    pub fn retain<'a, I>(&self, names: I)
    where
        I: IntoIterator<Item = &'a str>,
    {
        self.retain_digests(names.into_iter().map(|n| self.digest.of(n)).collect());
    }

    fn retain_digests(&self, keep: HashSet<u128, BuildHasherDefault<Low64>>) {
        let mut state = self.lock();
        state.parsed.retain(|k, _| keep.contains(k));
        let used: HashSet<*const u8> = state
            .parsed
            .values()
            .filter_map(|c| c.shared.as_ref().map(|k| k.as_ptr()))
            .collect();
        state.shared.retain(|k, _| used.contains(&k.as_ptr()));
    }

    /// How many URLs are remembered.
    pub fn len(&self) -> usize {
        self.lock().parsed.len()
    }

    /// Whether no URL is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A 128-bit digest of a name: SipHash-1-3 (std's `DefaultHasher`) of every byte under two
/// independent random keys, drawn per cache.
///
/// The cache trusts a digest match as a name match, so the argument has to hold: keyed
/// SipHash is a pseudo-random function, so without the keys (they never leave the process)
/// the two 64-bit halves are, to anyone choosing names, independent uniform values; registry
/// data cannot aim at a collision. By the birthday bound the chance that any two of `n`
/// distinct names ever held together collide is below `n² / 2^129`: for ten million names,
/// about 1.5 × 10^-25. That is far below the rate of undetected memory errors, and below the
/// chance the 64-bit hash plus full comparison of the earlier key ever mattered in cost.
/// Every byte is hashed (a digest of the ends alone would let names differing in the middle
/// collide).
#[derive(Debug, Default, Clone)]
struct NameDigest(RandomState, RandomState);

impl NameDigest {
    fn of(&self, name: &str) -> u128 {
        let hi = self.0.hash_one(name);
        let lo = self.1.hash_one(name);
        (u128::from(hi) << 64) | u128::from(lo)
    }
}

/// Hands back the low half of a [`NameDigest`], already uniformly random, as the map hash.
#[derive(Default)]
struct Low64(u64);

impl Hasher for Low64 {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u128` is used; fold anything else in rather than dropping it.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u128(&mut self, n: u128) {
        self.0 = n as u64;
    }
}

/// An encoded URL cut into its address, its parameters without the variable keys, and the
/// variable keys.
struct Split<'a> {
    address: &'a str,
    shared: String,
    own: String,
}

/// Cuts `name` where parsing the parts gives the URL parsing the whole gives: every pair
/// written `key%3Dvalue` and separated by `%26`, nothing the parser would read differently in
/// context (literal delimiters, `;`, `default.` keys, a lower-case `%3f`, non-ASCII text).
/// `None` otherwise, and the name is parsed whole.
fn split(name: &str) -> Option<Split<'_>> {
    let b = name.as_bytes();
    let unusual = b.iter().enumerate().any(|(i, &c)| match c {
        b'&' | b';' | b'=' => true,
        b'%' => matches!(
            (b.get(i + 1), b.get(i + 2)),
            (Some(b'3'), Some(b'B' | b'b' | b'f'))
        ),
        c => !c.is_ascii(),
    });
    if unusual {
        return None;
    }
    let q = name.find("%3F")?;
    let (address, rest) = (name.get(..q)?, name.get(q + 3..)?);
    let mut shared = String::with_capacity(rest.len());
    let mut own = String::new();
    for pair in rest.split("%26") {
        if !pair.contains("%3D") || pair.starts_with("default.") {
            return None;
        }
        let variable = VARIABLE_KEYS.iter().any(|k| {
            pair.strip_prefix(k)
                .is_some_and(|after| after.starts_with("%3D"))
        });
        let out = if variable { &mut own } else { &mut shared };
        if !out.is_empty() {
            out.push_str("%26");
        }
        out.push_str(pair);
    }
    Some(Split {
        address,
        shared,
        own,
    })
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
    fn shared_parameters_parse_as_the_whole_name_does() {
        let fixture = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/java-3.3/nodes.json"
        ))
        .unwrap();
        let nodes: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&fixture).unwrap();
        let mut names: Vec<String> = nodes
            .keys()
            .filter_map(|k| k.split_once("/providers/").map(|(_, n)| n.to_owned()))
            .collect();
        assert!(!names.is_empty());
        for extra in [
            "dubbo%3A%2F%2F10.0.0.1%3A1%2Fa.B%3Fpid%3D1%26timestamp%3D2",
            "dubbo%3A%2F%2F10.0.0.1%3A1%2Fa.B%3Ftimestamp%3D2%26timestamp%3D3%26x%3Dy",
            "dubbo%3A%2F%2F10.0.0.1%3A1%2Fa.B%3Fx%3Dy%3Dz%26pidx%3D1%26apid%3D2",
            "dubbo%3A%2F%2F10.0.0.1%3A1%2Fa.B%3Fdefault.timestamp%3D1%26x%3D2",
            "dubbo%3A%2F%2F10.0.0.1%3A1%2Fa.B%3Fflag%26pid%3D3",
            "dubbo%3A%2F%2F10.0.0.1%3A1%2Fa.B%3F",
            "dubbo%3A%2F%2F10.0.0.1%3A1%2Fa.B",
            "dubbo%3A%2F%2Fu%3Ap%4010.0.0.1%3A1%2Fa.B%3Fpid%3D%26timestamp%3D",
        ] {
            names.push(extra.to_owned());
        }
        let cache = ParsedUrlCache::new();
        for name in &names {
            let whole = Url::parse_encoded(name).unwrap();
            let cached = cache.get_or_parse(name).unwrap();
            assert_eq!(cached, whole, "{name}");
            assert_eq!(
                cached.to_encoded_full_string(),
                whole.to_encoded_full_string()
            );
            assert_eq!(cached.parameter("timestamp"), whole.parameter("timestamp"));
        }
        // Two providers that differ in address, timestamp and pid share one parameter map.
        let a = cache.get_or_parse(&names[0]).unwrap();
        let other = a
            .with_host("10.9.9.9")
            .with_parameter("timestamp", "1")
            .with_parameter("pid", "2");
        let b = cache.get_or_parse(&other.to_encoded_full_string()).unwrap();
        assert_eq!(b, other);
        let shared = |u: &Url| u.params().without_all(["timestamp", "pid"]);
        assert_eq!(shared(&a), shared(&b));
        let before = cache.lock().shared.len();
        cache.retain([names[0].as_str()]);
        assert_eq!(cache.len(), 1);
        assert!(cache.lock().shared.len() <= before);
        assert_eq!(cache.lock().shared.len(), 1);
    }

    #[test]
    fn a_listing_is_get_or_parse_then_retain() {
        let cache = ParsedUrlCache::new();
        let (one, two, three) = (name(1), name(2), name(3));
        let a = cache.get_or_parse(&one).unwrap();
        let listed = cache.parse_listing([
            two.as_str(),
            one.as_str(),
            "dubbo%3A%2F%2Fh%3A1%2Fx%3Fa%3D%ZZ",
        ]);
        assert_eq!(listed.len(), 3);
        assert_eq!(listed[0].as_ref().unwrap().port(), 2);
        assert!(Url::ptr_eq(listed[1].as_ref().unwrap(), &a));
        assert!(listed[2].is_err());
        assert_eq!(cache.len(), 2);
        let listed = cache.parse_listing([three.as_str()]);
        assert_eq!(listed[0].as_ref().unwrap().port(), 3);
        assert_eq!(cache.len(), 1);
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
