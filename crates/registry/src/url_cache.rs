//! [`ParsedUrlCache`]: parsed provider URLs kept by their encoded node or file name, so a
//! registry re-notifying an unchanged provider does not parse it again.
//!
//! Registries that store one URL per node name (ZooKeeper's `providers/{encoded url}`, the file
//! registry's files) see the same names on every change of a directory. Java Dubbo 3 keeps a
//! cache of parsed URLs keyed by the raw string for this reason (`CacheableFailbackRegistry`);
//! here the cache is a value owned by one registry, together with the [`Interner`] that makes
//! equal keys and values of different URLs share memory.

mod name_digest;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use dubbo_url::{Interner, Url, UrlParams};

use crate::error::RegistryError;
use name_digest::NameDigest;

/// Parameters that differ between the registrations of providers that are otherwise alike
/// (Java's `CacheableFailbackRegistry` strips the same two before sharing a `URLParam`).
const VARIABLE_KEYS: [&str; 2] = ["timestamp", "pid"];

/// At most this many variable pairs in one name are taken apart; more (repeated keys) and the
/// name is parsed whole.
const MAX_OWN: usize = 4;

/// `&` encoded, the pair separator of an encoded name.
const AMP: &str = "%26";
/// `=` encoded.
const EQ: &str = "%3D";

/// Parsed URLs by their percent-encoded form (a ZooKeeper node name, a file name).
///
/// Cloning a [`Url`] shares its address and parameters, so every notification built from the
/// cache hands out the same allocations as the one before.
///
/// Providers of one service usually register the same parameters but for `timestamp` and
/// `pid`; their URLs share one parameter map, parsed once, with the two on top
/// ([`UrlParams::layered_pairs`]), which is most of a URL's memory. Names whose parameter text
/// is unusual (literal delimiters, `default.` keys, pairs without `=`, non-ASCII) are parsed
/// whole, unshared, with the same result.
///
/// Names are remembered by a 122-bit keyed digest rather than by their text (see
/// [`NameDigest`]): a Java provider's name is 600–800 bytes, more than the parsed URL it
/// stands for.
// Kept rather than keying by the names' text because the push is paid for it: 2026-12-05,
// `DISCOVERY_SCALE_REPS=5 cargo bench --profile release -p dubbo-registry --bench
// discovery_scale -- interface` (100,000 providers, CPU p50, three alternating runs, load
// average 2-6), with the names as `HashMap<Box<str>, _>` keys the first push took 235-266 ms
// instead of 141-147 and retained 1,036 bytes per URL instead of 290; a re-listing with one
// provider restarted 36-39 ms instead of 26-27; a change from the feed 0.16 ms instead of 0.12.
#[derive(Debug)]
pub struct ParsedUrlCache {
    interner: Interner,
    digest: NameDigest,
    /// The variable keys as the interner holds them, taken once rather than per name.
    variable_keys: [Arc<str>; 2],
    state: Mutex<State>,
}

impl Default for ParsedUrlCache {
    fn default() -> Self {
        Self::with_interner(Interner::new())
    }
}

#[derive(Debug, Default)]
struct State {
    parsed: HashMap<u128, Cached, BuildHasherDefault<Mix64>>,
    /// Shared parameter sets by id, and their ids by encoded text (without the variable keys).
    shared: HashMap<u32, Shared>,
    shared_ids: HashMap<Arc<str>, u32>,
    next_shared: u32,
    /// The set the last new name was cut against: the next one is tried against it first.
    last_shared: Option<u32>,
    /// Bumped per listing; entries not marked with the current one are forgotten.
    generation: u32,
}

#[derive(Debug)]
struct Cached {
    url: Url,
    /// The generation of the last listing (or lookup) that named it.
    seen: u32,
    /// Its shared set's id, or [`UNSHARED`] (a sentinel rather than an `Option` keeps the
    /// entry at 16 bytes, a 100,000-provider table about 1 MB smaller).
    shared: u32,
}

/// The [`Cached::shared`] of a URL parsed whole; never a set's id.
const UNSHARED: u32 = u32::MAX;

/// A parameter set shared by the URLs of many names, and how the first of those names laid
/// its text out.
#[derive(Debug)]
struct Shared {
    text: Arc<str>,
    params: UrlParams,
    /// The first name's parameters in order: runs of `text` and variable pairs between them.
    shape: Vec<Piece>,
    /// Cached entries using this set.
    users: usize,
}

/// One piece of a name's parameter text, in order; pieces are separated by `%26`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// A run of shared pairs: `text[start..end]` of the [`Shared`] set.
    Shared { start: usize, end: usize },
    /// A variable pair, by index into [`VARIABLE_KEYS`].
    Own(usize),
}

/// A name taken apart: its address text, its variable pairs (key index, encoded value), and
/// its shared set.
struct Cut<'a> {
    address: &'a str,
    own: [(usize, &'a str); MAX_OWN],
    own_len: usize,
}

impl ParsedUrlCache {
    /// An empty cache with its own interner.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty cache sharing strings through `interner` (e.g. one interner per framework).
    pub fn with_interner(interner: Interner) -> Self {
        Self {
            variable_keys: VARIABLE_KEYS.map(|k| interner.intern(k)),
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
        self.lookup(encoded_name).map(|(url, _)| url)
    }

    /// As [`get_or_parse`](Self::get_or_parse), and whether the name was new to the cache
    /// (`true`) or remembered already (`false`): a change feed reporting a child it has
    /// already listed is told so.
    pub fn lookup(&self, encoded_name: &str) -> Result<(Url, bool), RegistryError> {
        let digest = self.digest.of(encoded_name);
        let mut state = self.lock();
        if let Some(cached) = state.parsed.get(&digest) {
            return Ok((cached.url.clone(), false));
        }
        self.parse_new(&mut state, encoded_name, digest)
            .map(|url| (url, true))
    }

    /// The URLs of a full listing (every child of a ZooKeeper directory), in its order, each
    /// as [`get_or_parse`](Self::get_or_parse) gives it; then forgets every name not listed,
    /// as [`retain`](Self::retain) does.
    ///
    /// The same as calling those two, at a fraction of the cost on a re-listing of known names:
    /// each name is digested once, and the whole listing is looked up under one lock.
    pub fn parse_listing<'a, I>(&self, names: I) -> Vec<Result<Url, RegistryError>>
    where
        I: IntoIterator<Item = &'a str>,
    {
        // Digest first, outside the lock, then look up: a loop of lookups alone lets the
        // processor overlap their cache misses, which the digests between them would not.
        let names: Vec<(&str, u128)> = names.into_iter().map(|n| (n, self.digest.of(n))).collect();
        let mut urls = Vec::with_capacity(names.len());
        let mut state = self.lock();
        let generation = state.next_generation();
        if state.parsed.is_empty() {
            // The first listing: the table's final size is known.
            state.parsed.reserve(names.len());
        }
        for (name, digest) in names {
            let url = match state.parsed.get_mut(&digest) {
                Some(cached) => {
                    cached.seen = generation;
                    Ok(cached.url.clone())
                }
                None => self.parse_new(&mut state, name, digest),
            };
            urls.push(url);
        }
        state.sweep(generation);
        urls
    }

    /// Forgets every URL whose name is not in `names` (the names still present).
    pub fn retain<'a, I>(&self, names: I)
    where
        I: IntoIterator<Item = &'a str>,
    {
        let mut state = self.lock();
        let generation = state.next_generation();
        for name in names {
            if let Some(cached) = state.parsed.get_mut(&self.digest.of(name)) {
                cached.seen = generation;
            }
        }
        state.sweep(generation);
    }

    /// Forgets the URL of one name (a node a change feed reports deleted) and returns it, or
    /// `None` when the name was not remembered.
    ///
    /// The counterpart of [`retain`](Self::retain) for a registry that is told of each
    /// removed child rather than handed the remaining ones.
    pub fn forget(&self, encoded_name: &str) -> Option<Url> {
        let digest = self.digest.of(encoded_name);
        let mut state = self.lock();
        let cached = state.parsed.remove(&digest)?;
        let unused = state.shared.get_mut(&cached.shared).and_then(|set| {
            set.users = set.users.saturating_sub(1);
            (set.users == 0).then(|| Arc::clone(&set.text))
        });
        if let Some(text) = unused {
            state.shared_ids.remove(&text);
            state.shared.remove(&cached.shared);
            if state.last_shared == Some(cached.shared) {
                state.last_shared = None;
            }
        }
        Some(cached.url)
    }

    /// How many URLs are remembered.
    pub fn len(&self) -> usize {
        self.lock().parsed.len()
    }

    /// Whether no URL is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Parses a name not found under `digest` and remembers it.
    ///
    /// Under the lock: a new name costs about a microsecond, and parsing it once is what
    /// lets every later caller share one value.
    fn parse_new(
        &self,
        state: &mut State,
        encoded_name: &str,
        digest: u128,
    ) -> Result<Url, RegistryError> {
        let bad = |e: dubbo_url::UrlError| RegistryError::BadData {
            path: encoded_name.to_owned(),
            reason: e.to_string(),
        };
        let cut = match state.cut_known(encoded_name) {
            Some(found) => Some(found),
            None => self.cut_new(state, encoded_name).map_err(bad)?,
        };
        let with_set = cut.and_then(|(cut, id)| Some((cut, id, state.shared.get(&id)?)));
        let (url, shared) = match with_set {
            Some((cut, id, set)) => {
                // On the stack: the layer is the only allocation the pairs cost.
                let own: [(Arc<str>, &str); MAX_OWN] = std::array::from_fn(|i| {
                    let (k, v) = cut.own[i];
                    (Arc::clone(&self.variable_keys[k]), v)
                });
                let own = own.get(..cut.own_len).unwrap_or_default();
                let params = set.params.layered_pairs(own);
                let url = Url::parse_encoded_with_params(cut.address, &self.interner, params)
                    .map_err(bad)?;
                (url, Some(id))
            }
            None => (
                Url::parse_encoded_with(encoded_name, &self.interner).map_err(bad)?,
                None,
            ),
        };
        if let Some(set) = shared.and_then(|id| state.shared.get_mut(&id)) {
            set.users += 1;
        }
        state.parsed.insert(
            digest,
            Cached {
                url: url.clone(),
                seen: state.generation,
                shared: shared.unwrap_or(UNSHARED),
            },
        );
        Ok(url)
    }

    /// Cuts a name no known layout fits (see [`cut_whole`]), finding or making its shared
    /// set; `None` when it has to be parsed whole.
    fn cut_new<'a>(
        &self,
        state: &mut State,
        name: &'a str,
    ) -> Result<Option<(Cut<'a>, u32)>, dubbo_url::UrlError> {
        let Some((cut, text, shape)) = cut_whole(name) else {
            return Ok(None);
        };
        let id = match state.shared_ids.get(text.as_str()) {
            Some(&id) => id,
            None => {
                let params = UrlParams::parse_encoded_with(&text, &self.interner)?;
                let mut id = state.next_shared;
                while id == UNSHARED || state.shared.contains_key(&id) {
                    id = id.wrapping_add(1);
                }
                state.next_shared = id.wrapping_add(1);
                let text: Arc<str> = Arc::from(text);
                state.shared_ids.insert(Arc::clone(&text), id);
                state.shared.insert(
                    id,
                    Shared {
                        text,
                        params,
                        shape,
                        users: 0,
                    },
                );
                id
            }
        };
        state.last_shared = Some(id);
        Ok(Some((cut, id)))
    }
}

impl State {
    fn next_generation(&mut self) -> u32 {
        self.generation = self.generation.wrapping_add(1);
        self.generation
    }

    /// Forgets the entries not seen in `generation`, and the shared sets no entry uses.
    fn sweep(&mut self, generation: u32) {
        let shared = &mut self.shared;
        self.parsed.retain(|_, cached| {
            let keep = cached.seen == generation;
            if !keep {
                if let Some(set) = shared.get_mut(&cached.shared) {
                    set.users = set.users.saturating_sub(1);
                }
            }
            keep
        });
        let ids = &mut self.shared_ids;
        shared.retain(|_, set| {
            if set.users == 0 {
                ids.remove(&set.text);
            }
            set.users > 0
        });
        if self.last_shared.is_some_and(|id| !shared.contains_key(&id)) {
            self.last_shared = None;
        }
    }

    /// Cuts `name` along the layout of the shared set the last new name used, checking every
    /// byte: the common case of providers alike but for address, `timestamp` and `pid`, with
    /// no copy of the shared text and no search through it.
    fn cut_known<'a>(&self, name: &'a str) -> Option<(Cut<'a>, u32)> {
        let id = self.last_shared?;
        let set = self.shared.get(&id)?;
        let q = name.find("%3F")?;
        let (address, mut rest) = (name.get(..q)?, name.get(q + 3..)?);
        if !plain_address(address) {
            return None;
        }
        let mut cut = Cut {
            address,
            own: [(0, ""); MAX_OWN],
            own_len: 0,
        };
        for (i, piece) in set.shape.iter().enumerate() {
            if i > 0 {
                rest = rest.strip_prefix(AMP)?;
            }
            match *piece {
                Piece::Shared { start, end } => {
                    rest = rest.strip_prefix(set.text.get(start..end)?)?;
                }
                Piece::Own(k) => {
                    rest = rest.strip_prefix(VARIABLE_KEYS[k])?.strip_prefix(EQ)?;
                    let end = rest.find('%').unwrap_or(rest.len());
                    let (value, after) = rest.split_at(end);
                    if !plain_value(value) || cut.own_len == MAX_OWN {
                        return None;
                    }
                    cut.own[cut.own_len] = (k, value);
                    cut.own_len += 1;
                    rest = after;
                }
            }
        }
        rest.is_empty().then_some((cut, id))
    }
}

/// Cuts `name` where parsing the parts gives the URL parsing the whole gives: every pair
/// written `key%3Dvalue` and separated by `%26`, nothing the parser would read differently in
/// context (literal delimiters, `;`, `default.` keys, a lower-case `%3f`, non-ASCII text), and
/// the variable pairs' values plain. Gives the cut, the shared text (the other pairs joined by
/// `%26`) and the layout; `None` when the name is to be parsed whole.
fn cut_whole(name: &str) -> Option<(Cut<'_>, String, Vec<Piece>)> {
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
    let mut cut = Cut {
        address,
        own: [(0, ""); MAX_OWN],
        own_len: 0,
    };
    let mut text = String::with_capacity(rest.len());
    let mut shape = Vec::new();
    let mut run_start = None;
    for pair in rest.split(AMP) {
        if !pair.contains(EQ) || pair.starts_with("default.") {
            return None;
        }
        let variable = VARIABLE_KEYS.iter().position(|k| {
            pair.strip_prefix(k)
                .is_some_and(|after| after.starts_with(EQ))
        });
        match variable {
            Some(k) => {
                let value = pair.get(VARIABLE_KEYS[k].len() + EQ.len()..)?;
                if !plain_value(value) || cut.own_len == MAX_OWN {
                    return None;
                }
                if let Some(start) = run_start.take() {
                    shape.push(Piece::Shared {
                        start,
                        end: text.len(),
                    });
                }
                cut.own[cut.own_len] = (k, value);
                cut.own_len += 1;
                shape.push(Piece::Own(k));
            }
            None => {
                if !text.is_empty() {
                    text.push_str(AMP);
                }
                if run_start.is_none() {
                    run_start = Some(text.len());
                }
                text.push_str(pair);
            }
        }
    }
    if let Some(start) = run_start {
        shape.push(Piece::Shared {
            start,
            end: text.len(),
        });
    }
    Some((cut, text, shape))
}

/// An address text the cut may take as it is: no literal delimiters, no `;` or lower-case
/// `?` escapes (the parser would read those in context), ASCII.
fn plain_address(address: &str) -> bool {
    let b = address.as_bytes();
    b.iter().enumerate().all(|(i, &c)| match c {
        b'&' | b';' | b'=' => false,
        b'%' => !matches!(
            (b.get(i + 1), b.get(i + 2)),
            (Some(b'3'), Some(b'B' | b'b' | b'f'))
        ),
        c => c.is_ascii(),
    })
}

/// A variable pair's value that decodes to itself: no escapes, no `+`, no delimiters, ASCII.
fn plain_value(value: &str) -> bool {
    value
        .bytes()
        .all(|c| c.is_ascii() && !matches!(c, b'%' | b'+' | b'&' | b';' | b'='))
}

/// Spreads a [`NameDigest`] half over all 64 bits as the map hash: each half is below 2^61,
/// and the table reads its top bits.
#[derive(Default)]
struct Mix64(u64);

impl Hasher for Mix64 {
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
        // Multiplying by an odd constant is a bijection that carries the low bits upwards.
        self.0 = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ ((n >> 64) as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The provider node names Java Dubbo 3.3 registered in the fixture, as ZooKeeper lists
    /// them (encoded).
    fn java_provider_names() -> Vec<String> {
        let fixture = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/java-3.3/nodes.json"
        ))
        .unwrap();
        let nodes: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&fixture).unwrap();
        nodes
            .keys()
            .filter_map(|k| k.split_once("/providers/").map(|(_, n)| n.to_owned()))
            .collect()
    }

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
        let mut names = java_provider_names();
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
    fn names_cut_along_a_known_layout_parse_as_the_whole_name_does() {
        let bases: Vec<Url> = java_provider_names()
            .iter()
            .map(|n| Url::parse_encoded(n).unwrap())
            .collect();
        assert!(!bases.is_empty());
        let cache = ParsedUrlCache::new();
        let mut names = Vec::new();
        for base in &bases {
            let base = base.with_parameter("pid", "77");
            for i in 0..4u16 {
                let url = base
                    .with_host(&format!("10.0.1.{i}"))
                    .with_port(20000 + i)
                    .with_parameter("timestamp", &format!("17000000000{i}"))
                    .with_parameter("pid", &format!("{}", 100 + i));
                names.push(url.to_encoded_full_string());
            }
            // Variants: a missing pid, an escaped value, an empty value, a value with `=`, a
            // changed shared value, a repeated key, a lower-case `%3f`, an extra and a
            // trailing pair, an escaped `;` in the address.
            let enc = base.to_encoded_full_string();
            assert!(enc.contains("pid%3D77%26"));
            names.push(base.without_parameter("pid").to_encoded_full_string());
            names.push(base.with_parameter("pid", "1,2").to_encoded_full_string());
            names.push(enc.replace("pid%3D77", "pid%3D"));
            names.push(base.with_parameter("pid", "a=b").to_encoded_full_string());
            names.push(base.with_parameter("side", "x").to_encoded_full_string());
            names.push(enc.replace("pid%3D77", "pid%3D77%26pid%3D78"));
            names.push(enc.replace("pid%3D77", "pid%3D7%3f"));
            names.push(enc.replace("%3Fa", "%3fa"));
            names.push(format!("{enc}%26timestamp%3D5"));
            names.push(format!("{enc}%26"));
            names.push(enc.replacen("%2F%2F", "%2F%2Fu%3Bp%40", 1));
        }
        for name in &names {
            let whole = Url::parse_encoded(name);
            let cached = cache.get_or_parse(name);
            match (&whole, &cached) {
                (Ok(w), Ok(c)) => {
                    assert_eq!(c, w, "{name}");
                    assert_eq!(c.to_encoded_full_string(), w.to_encoded_full_string());
                    assert_eq!(c.params().len(), w.params().len(), "{name}");
                }
                (Err(_), Err(_)) => {}
                _ => panic!("{name}: {whole:?} vs {cached:?}"),
            }
        }
        // The second name of a base is cut along the first one's layout, its variants not.
        let fresh = ParsedUrlCache::new();
        fresh.get_or_parse(&names[0]).unwrap();
        assert!(fresh.lock().cut_known(&names[1]).is_some());
        for (i, variant) in names[4..15].iter().enumerate() {
            // The third, an empty `pid`, has the layout (and parses the same, checked above).
            let fits = fresh.lock().cut_known(variant).is_some();
            assert_eq!(fits, i == 2, "variant {i}: {variant}");
        }
        // A fresh cache and a listing agree with the one-by-one lookups.
        let listed = ParsedUrlCache::new().parse_listing(names.iter().map(String::as_str));
        for (name, url) in names.iter().zip(listed) {
            assert_eq!(url.ok(), Url::parse_encoded(name).ok(), "{name}");
        }
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
    fn an_entry_is_a_url_and_two_numbers() {
        assert_eq!(std::mem::size_of::<Cached>(), 16);
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
