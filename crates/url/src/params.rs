//! The parameter half of a Url (Java `URLParam`) and the query-string parsers of
//! `URLStrParser`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::codec::{decode_ascii_component, decode_component, hex_byte, Unit};
use crate::error::UrlError;
use crate::intern::{Interner, Strings};
use crate::keys;
use crate::own_layer::OwnLayer;
use crate::text::Text;

pub(crate) type ParamMap = BTreeMap<Arc<str>, Arc<str>>;
type Map = ParamMap;

/// The parameters of a Url: an immutable, cheaply clonable map from key to value.
///
/// Keys are kept sorted, so iteration and [`to_query_string`](Self::to_query_string) give
/// the order of Java's `TreeMap`-based `buildParameters` (Java sorts by UTF-16 code unit; the
/// formatter re-sorts that way in the rare case a key holds characters where the two orders
/// differ). Values are kept exactly as parsed, including empty ones (`k=` gives `""`).
///
/// Method-level settings are ordinary keys of the form `<method>.<key>` (`sayHello.timeout`);
/// see [`method_parameter_strict`](Self::method_parameter_strict).
///
/// A parameter set can be *layered* ([`layered`](Self::layered)): a map shared by many Urls
/// plus a few parameters of this Url alone, as Java's registries share one `URLParam` between
/// the providers of a service that differ only in `timestamp` and `pid`. Layering is invisible
/// to readers: lookups, iteration, equality and formatting see one merged set.
#[derive(Clone, Default)]
pub struct UrlParams {
    map: Arc<Map>,
    /// Parameters on top of the shared `map`, none of them a key of `map`.
    own: Option<OwnLayer>,
}

impl PartialEq for UrlParams {
    fn eq(&self, other: &Self) -> bool {
        if self.ptr_eq(other) {
            return true;
        }
        if self.own.is_none() && other.own.is_none() {
            return self.map == other.map;
        }
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for UrlParams {}

impl std::hash::Hash for UrlParams {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // As a map hashes: the length, then each pair, so layered and flat sets agree.
        state.write_usize(self.len());
        for (k, v) in self.iter() {
            k.hash(state);
            v.hash(state);
        }
    }
}

impl UrlParams {
    /// No parameters.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses a decoded query string such as `a=1&b=2` (Java
    /// `URLStrParser.parseParams(raw, false)`); never fails.
    ///
    /// `&` and `;` separate pairs; a pair without `=` has the value `""`; a key that starts
    /// with `default.` also sets the bare key unless it is already set, for compatibility with
    /// Urls registered by old Dubbo versions (applied twice, as Java's parser and `URLParam`
    /// each apply it once, so the result equals the parameters of a parsed Url).
    ///
    /// ```
    /// let p = dubbo_url::UrlParams::parse("timeout=3000;default.retries=2&flag");
    /// assert_eq!(p.get("timeout"), Some("3000"));
    /// assert_eq!(p.get("retries"), Some("2"));
    /// assert_eq!(p.get("flag"), Some(""));
    /// ```
    pub fn parse(query: &str) -> Self {
        Self::parse_inner(query, Strings::Fresh)
    }

    /// Like [`parse`](Self::parse), sharing strings through `interner`.
    pub fn parse_with(query: &str, interner: &Interner) -> Self {
        Self::parse_inner(query, Strings::Interned(interner))
    }

    fn parse_inner(query: &str, strings: Strings<'_>) -> Self {
        let mut map = parse_decoded_params(query, 0, strings);
        apply_default_keys(&mut map, strings);
        Self::from_map(map)
    }

    /// Parses a percent-encoded query string such as `a%3D1%26b%3D2` (Java
    /// `URLStrParser.parseParams(raw, true)`).
    ///
    /// Java's parser assumes every `=` and `&` was written as a three-character escape and
    /// computes positions accordingly; this is kept. So a pair without `=` loses the last two
    /// characters of its key (`a%3D1%26flag` gives `a=1` and `fl=`), and literal `=` / `&`
    /// shift the cuts. Urls written by [`Url::to_encoded_full_string`](crate::Url::to_encoded_full_string)
    /// never hit this.
    pub fn parse_encoded(query: &str) -> Result<Self, UrlError> {
        Self::parse_encoded_inner(query, Strings::Fresh)
    }

    /// Like [`parse_encoded`](Self::parse_encoded), sharing strings through `interner`.
    pub fn parse_encoded_with(query: &str, interner: &Interner) -> Result<Self, UrlError> {
        Self::parse_encoded_inner(query, Strings::Interned(interner))
    }

    fn parse_encoded_inner(query: &str, strings: Strings<'_>) -> Result<Self, UrlError> {
        let mut map = with_units(query, |u| parse_encoded_params(u, 0, strings))?;
        apply_default_keys(&mut map, strings);
        Ok(Self::from_map(map))
    }

    pub(crate) fn from_map(map: Map) -> Self {
        UrlParams {
            map: Arc::new(map),
            own: None,
        }
    }

    /// `self`'s parameters with `own`'s on top (`own` wins on a shared key), keeping `self`'s
    /// map shared rather than copied: many Urls layered on one `self` cost one map plus their
    /// own few parameters each.
    ///
    /// ```
    /// use dubbo_url::UrlParams;
    /// let shared = UrlParams::parse("interface=org.Foo&side=provider&methods=a,b");
    /// let one = shared.layered(&UrlParams::parse("timestamp=1&pid=7"));
    /// let two = shared.layered(&UrlParams::parse("timestamp=2&pid=8"));
    /// assert_eq!(one.get("methods"), two.get("methods"));
    /// assert_eq!(one.to_query_string(), "interface=org.Foo&methods=a,b&pid=7&side=provider&timestamp=1");
    /// assert_eq!(one, UrlParams::parse("pid=7&timestamp=1&interface=org.Foo&side=provider&methods=a,b"));
    /// ```
    pub fn layered(&self, own: &UrlParams) -> UrlParams {
        if own.is_empty() {
            return self.clone();
        }
        // `own`'s pairs come sorted and without repeated keys.
        let mut pairs: Vec<(Arc<str>, Text)> = own.arc_pairs_text().collect();
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        self.layered_sorted(OwnLayer::from_sorted(pairs))
    }

    /// `self`'s parameters with `pairs` on top, the same as [`layered`](Self::layered) with a
    /// set of those pairs (a later pair wins over an earlier one with the same key), without
    /// building that set: a registry putting a Url's own `timestamp` and `pid` on a shared map
    /// pays one allocation for the layer, and the strings it passes (interned keys, say) are
    /// shared rather than copied.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use dubbo_url::UrlParams;
    /// let shared = UrlParams::parse("interface=org.Foo&side=provider");
    /// let one = shared.layered_pairs(&[(Arc::from("timestamp"), "1"), (Arc::from("pid"), "7")]);
    /// assert_eq!(one, shared.layered(&UrlParams::parse("timestamp=1&pid=7")));
    /// assert_eq!(one.to_query_string(), "interface=org.Foo&pid=7&side=provider&timestamp=1");
    /// ```
    pub fn layered_pairs(&self, pairs: &[(Arc<str>, &str)]) -> UrlParams {
        if pairs.is_empty() {
            return self.clone();
        }
        if let [(key, value)] = pairs {
            if &**key == keys::TIMESTAMP {
                // The application-level case: no slice to allocate.
                return self.layered_sorted(Some(OwnLayer::Timestamp(Text::new(value))));
            }
        }
        let own: Vec<(Arc<str>, Text)> = if pairs.windows(2).all(|w| w[0].0 < w[1].0) {
            // Straight into the slice: the one allocation of a registry's `timestamp` + `pid`.
            let own = pairs
                .iter()
                .map(|(k, v)| (Arc::clone(k), Text::new(v)))
                .collect();
            return self.layered_sorted(Some(OwnLayer::Pairs(own)));
        } else {
            // Sorted by key, the last of equal keys kept (a stable sort of the reversed list
            // puts it first among its equals, and `dedup_by` keeps the first).
            let mut sorted: Vec<(Arc<str>, Text)> = pairs
                .iter()
                .rev()
                .map(|(k, v)| (Arc::clone(k), Text::new(v)))
                .collect();
            sorted.sort_by(|a, b| a.0.cmp(&b.0));
            sorted.dedup_by(|later, first| later.0 == first.0);
            sorted
        };
        self.layered_sorted(OwnLayer::from_sorted(own))
    }

    /// `self` with `own` on top.
    fn layered_sorted(&self, own: Option<OwnLayer>) -> UrlParams {
        let Some(own) = own else {
            return self.clone();
        };
        if self.own.is_some() || own.iter().any(|(k, _)| self.map.contains_key(k)) {
            // Rare (a per-Url key also in the shared part): one flat map, still correct.
            let mut map = self.to_map();
            map.extend(own.iter().map(|(k, v)| (Arc::from(k), v.to_arc())));
            return Self::from_map(map);
        }
        UrlParams {
            map: Arc::clone(&self.map),
            own: Some(own),
        }
    }

    /// Every pair with its shared strings (an inline layer's key is copied).
    fn arc_pairs(&self) -> impl Iterator<Item = (Arc<str>, Arc<str>)> + '_ {
        self.arc_pairs_text().map(|(k, v)| (k, v.to_arc()))
    }

    /// Every pair, keys shared, values as a layer holds them.
    fn arc_pairs_text(&self) -> impl Iterator<Item = (Arc<str>, Text)> + '_ {
        let own = self.own.as_ref().into_iter().flat_map(OwnLayer::iter);
        self.map
            .iter()
            .map(|(k, v)| (Arc::clone(k), Text::new(v)))
            .chain(own.map(|(k, v)| (Arc::from(k), v.clone())))
    }

    /// One flat map of every parameter, for the copy-on-write operations.
    fn to_map(&self) -> Map {
        match &self.own {
            None => (*self.map).clone(),
            Some(_) => self.arc_pairs().collect(),
        }
    }

    fn own_get(&self, key: &str) -> Option<&str> {
        self.own.as_ref()?.get(key)
    }

    /// Whether both are clones of one parameter set (see [`Url::ptr_eq`](crate::Url::ptr_eq)).
    pub fn ptr_eq(&self, other: &UrlParams) -> bool {
        Arc::ptr_eq(&self.map, &other.map)
            && match (&self.own, &other.own) {
                (None, None) => true,
                (Some(a), Some(b)) => OwnLayer::same(a, b),
                _ => false,
            }
    }

    /// Whether every key of `keys` surely has one value (or is absent) in both `self` and
    /// `other`, told without reading either's map: both are layered on one shared map (or
    /// are one map) and neither holds any of `keys` of its own. `false` tells nothing: the
    /// values may still agree. Lets a caller walking many Urls of one registry push read
    /// the keys once per shared map.
    ///
    /// ```
    /// use std::sync::Arc;
    /// let shared = dubbo_url::UrlParams::parse("interface=a.B&group=g");
    /// let one = shared.layered_pairs(&[(Arc::from("timestamp"), "1")]);
    /// let two = shared.layered_pairs(&[(Arc::from("timestamp"), "2")]);
    /// assert!(one.shares_values(&two, &["interface", "group", "version"]));
    /// assert!(!one.shares_values(&two, &["timestamp"]));
    /// ```
    pub fn shares_values(&self, other: &UrlParams, keys: &[&str]) -> bool {
        let own_has = |p: &UrlParams| {
            p.own
                .as_ref()
                .is_some_and(|own| keys.iter().any(|k| own.get(k).is_some()))
        };
        Arc::ptr_eq(&self.map, &other.map) && !own_has(self) && !own_has(other)
    }

    /// The value of `key`, if present (possibly `""`).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.map
            .get(key)
            .map(|v| &**v)
            .or_else(|| self.own_get(key))
    }

    /// True when `key` is present, even with an empty value.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Number of parameters.
    pub fn len(&self) -> usize {
        self.map.len() + self.own.as_ref().map_or(0, OwnLayer::len)
    }

    /// True when there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// All parameters, sorted by key (byte order).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        Merged {
            shared: self.map.iter().peekable(),
            own: self
                .own
                .as_ref()
                .into_iter()
                .flat_map(OwnLayer::iter)
                .peekable(),
        }
    }

    /// All keys, sorted (byte order).
    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// A copy with `key` set to `value` (replacing any previous value). Returns a cheap clone
    /// of `self` when the value is already there.
    pub fn with(&self, key: &str, value: &str) -> Self {
        if self.get(key) == Some(value) {
            return self.clone();
        }
        let mut map = self.to_map();
        map.insert(Arc::from(key), Arc::from(value));
        Self::from_map(map)
    }

    /// A copy with `key` set only if it is absent.
    pub fn with_if_absent(&self, key: &str, value: &str) -> Self {
        if self.contains_key(key) {
            return self.clone();
        }
        self.with(key, value)
    }

    /// A copy with every pair of `pairs` set (later pairs win).
    pub fn with_all<'a, I>(&self, pairs: I) -> Self
    where
        I: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut map: Option<Map> = None;
        for (k, v) in pairs {
            let current = match &map {
                Some(m) => m.get(k).map(|v| &**v),
                None => self.get(k),
            };
            if current != Some(v) {
                map.get_or_insert_with(|| self.to_map())
                    .insert(Arc::from(k), Arc::from(v));
            }
        }
        match map {
            Some(map) => Self::from_map(map),
            None => self.clone(),
        }
    }

    /// A copy without `key`.
    pub fn without(&self, key: &str) -> Self {
        self.without_all([key])
    }

    /// A copy without any of `keys`.
    pub fn without_all<'a, I>(&self, keys: I) -> Self
    where
        I: IntoIterator<Item = &'a str>,
    {
        let mut map: Option<Map> = None;
        for k in keys {
            let present = match &map {
                Some(m) => m.contains_key(k),
                None => self.contains_key(k),
            };
            if present {
                map.get_or_insert_with(|| self.to_map()).remove(k);
            }
        }
        match map {
            Some(map) => Self::from_map(map),
            None => self.clone(),
        }
    }

    /// The value of `<method>.<key>`, honouring the `methods` list, like Java's
    /// `URLParam.getMethodParameterStrict`.
    ///
    /// Dubbo 3 stores method settings as `<method>.<key>` and splits such keys at their first
    /// dot, so `method` must not contain a dot. When a non-empty `methods` parameter exists and
    /// does not contain `method` as a substring (Java uses `String.contains`), the answer is
    /// `None`. An empty value counts as absent.
    pub fn method_parameter_strict(&self, method: &str, key: &str) -> Option<&str> {
        if method.contains('.') {
            return None;
        }
        if let Some(methods) = self.get(keys::METHODS) {
            if !methods.is_empty() && !methods.contains(method) {
                return None;
            }
        }
        let full = format!("{method}.{key}");
        self.get(&full).filter(|v| !v.is_empty())
    }

    /// Java `buildParameters` without the leading `?`: `k=v` pairs joined by `&`, sorted by key
    /// (UTF-16 order, like `TreeMap<String, _>`), empty keys skipped, values trimmed like
    /// `String.trim()`. Values are not escaped.
    pub fn to_query_string(&self) -> String {
        let mut out = String::new();
        self.write_query(&mut out, false, &[]);
        out
    }

    /// Writes the parameters as Java's `buildParameters(buf, concat, includes)` does.
    pub(crate) fn write_query(&self, out: &mut String, concat: bool, includes: &[&str]) {
        let mut first = true;
        let mut emit = |k: &str, v: &str| {
            if k.is_empty() || !(includes.is_empty() || includes.contains(&k)) {
                return;
            }
            if first {
                if concat {
                    out.push('?');
                }
                first = false;
            } else {
                out.push('&');
            }
            out.push_str(k);
            out.push('=');
            out.push_str(java_trim(v));
        };
        if self.keys().any(needs_utf16_sort) {
            let mut entries: Vec<(&str, &str)> = self.iter().collect();
            entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
            for (k, v) in entries {
                emit(k, v);
            }
        } else {
            for (k, v) in self.iter() {
                emit(k, v);
            }
        }
    }
}

/// The shared and own parameters of a layered set, merged in key order.
struct Merged<S: Iterator, O: Iterator> {
    shared: std::iter::Peekable<S>,
    own: std::iter::Peekable<O>,
}

impl<'a, S, O> Iterator for Merged<S, O>
where
    S: Iterator<Item = (&'a Arc<str>, &'a Arc<str>)>,
    O: Iterator<Item = (&'a str, &'a Text)>,
{
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let own_first = match (self.shared.peek(), self.own.peek()) {
            (Some((s, _)), Some((o, _))) => *o < &***s,
            (None, Some(_)) => true,
            _ => false,
        };
        if own_first {
            self.own.next().map(|(k, v)| (k, v.as_str()))
        } else {
            self.shared.next().map(|(k, v)| (&**k, &**v))
        }
    }
}

impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for UrlParams {
    /// Collects pairs as given (later pairs win); no `default.` processing.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self::from_map(
            iter.into_iter()
                .map(|(k, v)| (Arc::from(k.as_ref()), Arc::from(v.as_ref())))
                .collect(),
        )
    }
}

impl fmt::Debug for UrlParams {
    /// Shows every parameter except the value of `password` (registries such as Nacos carry
    /// credentials as parameters).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.iter()
                    .map(|(k, v)| (k, if k == keys::PASSWORD { "***" } else { v })),
            )
            .finish()
    }
}

/// Byte order and UTF-16 order of strings differ only when a string holds characters from
/// U+E000 upwards next to supplementary ones; check for the first kind cheaply.
fn needs_utf16_sort(key: &str) -> bool {
    key.chars().any(|c| c >= '\u{E000}')
}

/// Java `String.trim()`: strips every char `<= U+0020` at both ends.
pub(crate) fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Inserts like Java's `params.put` followed by the `default.` compatibility rule.
fn put_param(map: &mut Map, strings: Strings<'_>, name: &str, value: &str) {
    let key = strings.name(name);
    let val = strings.value(name, value);
    if let Some(bare) = name.strip_prefix(keys::DEFAULT_KEY_PREFIX) {
        map.insert(key, Arc::clone(&val));
        if !map.contains_key(bare) {
            map.insert(strings.name(bare), val);
        }
    } else {
        map.insert(key, val);
    }
}

/// The second `default.` pass Java makes when a Url is built from the parser's map
/// (`URLParam.parse(Map)`): every `default.<key>` of `map` also sets `<key>` when `map` lacks it.
/// Together with the parser's own pass this resolves two levels (`default.default.k` gives
/// `default.k` and `k`), exactly as many as Java does.
pub(crate) fn apply_default_keys(map: &mut Map, strings: Strings<'_>) {
    let additions: Vec<(Arc<str>, Arc<str>)> = map
        .iter()
        .filter_map(|(k, v)| {
            let bare = k.strip_prefix(keys::DEFAULT_KEY_PREFIX)?;
            (!map.contains_key(bare)).then(|| (strings.name(bare), Arc::clone(v)))
        })
        .collect();
    for (k, v) in additions {
        map.entry(k).or_insert(v);
    }
}

/// `URLStrParser.parseDecodedParams(str, from)`.
pub(crate) fn parse_decoded_params(s: &str, from: usize, strings: Strings<'_>) -> Map {
    let mut map = Map::new();
    let b = s.as_bytes();
    let len = b.len();
    if from >= len {
        return map;
    }
    // Signed positions, so the Java comparisons (`valueStart < nameStart`, `-1` sentinel) carry
    // over unchanged.
    let mut name_start = from as isize;
    let mut value_start: isize = -1;
    for (i, &c) in b.iter().enumerate().skip(from) {
        let i = i as isize;
        match c {
            b'=' => {
                if name_start == i {
                    name_start = i + 1;
                } else if value_start < name_start {
                    value_start = i + 1;
                }
            }
            b';' | b'&' => {
                add_decoded(s, name_start, value_start, i, &mut map, strings);
                name_start = i + 1;
            }
            _ => {}
        }
    }
    add_decoded(s, name_start, value_start, len as isize, &mut map, strings);
    map
}

/// `URLStrParser.addParam` for decoded text. Every slice bound is the position of an ASCII
/// delimiter or the end of the text, so slicing is always on a char boundary.
fn add_decoded(
    s: &str,
    name_start: isize,
    mut value_start: isize,
    value_end: isize,
    map: &mut Map,
    strings: Strings<'_>,
) {
    if name_start >= value_end {
        return;
    }
    if value_start <= name_start {
        value_start = value_end + 1;
    }
    let name = s
        .get(name_start as usize..(value_start - 1) as usize)
        .unwrap_or("");
    let value = if value_start >= value_end {
        ""
    } else {
        s.get(value_start as usize..value_end as usize)
            .unwrap_or("")
    };
    put_param(map, strings, name, value);
}

/// Runs `f` over the code units of `s`: its bytes when it is ASCII, otherwise its UTF-16 units
/// (Java's indexing), so that index arithmetic matches Java for any input.
pub(crate) fn with_units<T>(
    s: &str,
    f: impl FnOnce(&dyn UnitsDyn) -> Result<T, UrlError>,
) -> Result<T, UrlError> {
    if s.is_ascii() {
        f(&AsciiUnits(s.as_bytes()))
    } else {
        let wide: Vec<u16> = s.encode_utf16().collect();
        f(&WideUnits(&wide))
    }
}

/// Object-safe view of a unit slice, so the encoded parsers are written once.
pub(crate) trait UnitsDyn {
    fn len(&self) -> usize;
    fn at(&self, i: usize) -> u32;
    fn hex_byte(&self, pos: usize) -> Result<u8, UrlError>;
    fn decode(&self, from: isize, to: isize) -> Result<String, UrlError>;
    /// Position of the first case-insensitive `%3F`.
    fn find_encoded_question_mark(&self) -> Option<usize> {
        let n = self.len();
        (0..n.saturating_sub(2)).find(|&i| {
            self.at(i) == u32::from(b'%')
                && self.at(i + 1) == u32::from(b'3')
                && (self.at(i + 2) == u32::from(b'F') || self.at(i + 2) == u32::from(b'f'))
        })
    }
}

struct AsciiUnits<'a>(&'a [u8]);
struct WideUnits<'a>(&'a [u16]);

impl UnitsDyn for AsciiUnits<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn at(&self, i: usize) -> u32 {
        self.0.get(i).map_or(0, |&u| u.code())
    }
    fn hex_byte(&self, pos: usize) -> Result<u8, UrlError> {
        hex_byte(self.0, pos)
    }
    fn decode(&self, from: isize, to: isize) -> Result<String, UrlError> {
        decode_ascii_component(self.0, from, to)
    }
    fn find_encoded_question_mark(&self) -> Option<usize> {
        self.0
            .windows(3)
            .position(|w| w[0] == b'%' && w[1] == b'3' && (w[2] == b'F' || w[2] == b'f'))
    }
}

impl UnitsDyn for WideUnits<'_> {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn at(&self, i: usize) -> u32 {
        self.0.get(i).map_or(0, |&u| u.code())
    }
    fn hex_byte(&self, pos: usize) -> Result<u8, UrlError> {
        hex_byte(self.0, pos)
    }
    fn decode(&self, from: isize, to: isize) -> Result<String, UrlError> {
        decode_component(self.0, from, to)
    }
}

/// `URLStrParser.parseEncodedParams(str, from)`.
///
/// Java quirk kept on purpose: the parser assumes every `=` / `&` it meets was written as a
/// three-character escape (`%3D`, `%26`) and subtracts 2 or 3 from positions accordingly. A pair
/// without any `=` therefore loses the last two characters of its name (`...%26flag` yields the
/// key `fl`), and literal delimiters shift the cut. Java consumers read the registry that way,
/// so we do too; Urls written by `to_full_string` always have `=` and are unaffected.
pub(crate) fn parse_encoded_params(
    u: &dyn UnitsDyn,
    from: usize,
    strings: Strings<'_>,
) -> Result<Map, UrlError> {
    let mut map = Map::new();
    let len = u.len();
    if from >= len {
        return Ok(map);
    }
    let mut name_start = from as isize;
    let mut value_start: isize = -1;
    let mut i = from;
    while i < len {
        let mut ch = u.at(i);
        if ch == u32::from(b'%') {
            if i + 3 > len {
                return Err(UrlError::UnterminatedEscape { index: i });
            }
            ch = u32::from(u.hex_byte(i + 1)?);
            i += 2;
        }
        let pos = i as isize;
        if ch == u32::from(b'=') {
            if name_start == pos {
                name_start = pos + 1;
            } else if value_start < name_start {
                value_start = pos + 1;
            }
        } else if ch == u32::from(b';') || ch == u32::from(b'&') {
            add_encoded(u, name_start, value_start, pos - 2, &mut map, strings)?;
            name_start = pos + 1;
        }
        i += 1;
    }
    add_encoded(u, name_start, value_start, len as isize, &mut map, strings)?;
    Ok(map)
}

/// `URLStrParser.addParam` for encoded text.
fn add_encoded(
    u: &dyn UnitsDyn,
    name_start: isize,
    mut value_start: isize,
    value_end: isize,
    map: &mut Map,
    strings: Strings<'_>,
) -> Result<(), UrlError> {
    if name_start >= value_end {
        return Ok(());
    }
    if value_start <= name_start {
        value_start = value_end + 1;
    }
    let name = u.decode(name_start, value_start - 3)?;
    let value = if value_start >= value_end {
        String::new()
    } else {
        u.decode(value_start, value_end)?
    };
    put_param(map, strings, &name, &value);
    Ok(())
}

#[cfg(test)]
mod tests;
