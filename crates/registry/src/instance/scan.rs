//! A single-pass scanner for Curator instance JSON that reads only what the consumer keeps.
//!
//! A large application's listing is thousands of ~750-byte documents of which the consumer
//! keeps the application name, the address, the ports, the registration time and the
//! metadata (mostly text shared by every instance of a revision). A general JSON parser
//! validates and unescapes every string, the escaped MetadataService parameters included;
//! this scanner checks the document's structure (so partial or foreign data is still refused)
//! but only finds the ends of the strings it skips. What it keeps is checked as strictly as
//! serde_json would: kept strings with escapes or control characters are decoded by
//! serde_json, and a metadata map is built by serde_json the first time its text is seen.

use std::borrow::Cow;

/// Why a document is not instance JSON; `at` is the byte offset.
#[derive(Debug)]
pub(super) struct ScanError {
    pub(super) what: Cow<'static, str>,
    pub(super) at: usize,
}

impl std::fmt::Display for ScanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

/// A JSON string token as it is in the document.
#[derive(Clone, Copy, Debug)]
pub(super) struct RawStr<'a> {
    /// The token with its quotes.
    pub(super) quoted: &'a [u8],
    /// Where it starts in its document.
    at: usize,
}

impl<'a> RawStr<'a> {
    /// The text between the quotes.
    fn inner(&self) -> &'a [u8] {
        &self.quoted[1..self.quoted.len() - 1]
    }

    /// The string it stands for: borrowed when it has no escapes (or control characters,
    /// which JSON forbids and serde_json refuses), else decoded by serde_json.
    pub(super) fn text(&self) -> Result<Cow<'a, str>, ScanError> {
        let inner = self.inner();
        if !inner.iter().any(|&b| b == b'\\' || b < 0x20) {
            // Not plain ASCII: UTF-8 still to be checked.
            return std::str::from_utf8(inner)
                .map(Cow::Borrowed)
                .map_err(|e| ScanError {
                    what: format!("a string is not UTF-8: {e}").into(),
                    at: self.at,
                });
        }
        serde_json::from_slice::<String>(self.quoted)
            .map(Cow::Owned)
            .map_err(|e| ScanError {
                what: format!("bad string: {e}").into(),
                at: self.at,
            })
    }

    /// Whether it stands for `text`; checks it is a valid string either way.
    pub(super) fn is(&self, text: &str) -> Result<bool, ScanError> {
        let inner = self.inner();
        if inner == text.as_bytes() {
            return Ok(true);
        }
        if plain(inner) {
            return Ok(false);
        }
        Ok(self.text()? == text)
    }

    /// The document field a field name stands for, if the consumer reads it; checks it is a
    /// valid string either way.
    fn field(&self) -> Result<Option<Field>, ScanError> {
        let inner = self.inner();
        if let Some(field) = Field::of(inner) {
            return Ok(Some(field));
        }
        if plain(inner) {
            return Ok(None);
        }
        Ok(Field::of(self.text()?.as_bytes()))
    }
}

/// The high bit of each byte of `word` equal to `byte`, exact for the lowest such byte (a
/// borrow can only flag bytes above a real match, so the lowest flag is always real).
fn bytes_equal(word: u64, byte: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// The high bit of every byte of `word` below 0x20 (a control character, which JSON does not
/// allow raw in a string). Bits above the lowest set one may be spurious; the lowest is exact.
fn bytes_below_space(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    word.wrapping_sub(ONES * 0x20) & !word & (ONES << 7)
}

/// The length of the `\\uXXXX` escape at `at` (12 for a surrogate pair), or `None` when it
/// is not one JSON allows: four hex digits, and a high surrogate followed by a low one.
fn unicode_escape(data: &[u8], at: usize) -> Option<usize> {
    let unit = |from: usize| -> Option<u32> {
        let hex = data.get(from..from + 4)?;
        let text = std::str::from_utf8(hex).ok()?;
        if !hex.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        u32::from_str_radix(text, 16).ok()
    };
    match unit(at + 2)? {
        0xD800..=0xDBFF => {
            if data.get(at + 6..at + 8)? != b"\\u" {
                return None;
            }
            matches!(unit(at + 8)?, 0xDC00..=0xDFFF).then_some(12)
        }
        0xDC00..=0xDFFF => None,
        _ => Some(6),
    }
}

/// Whether `token` is a number as JSON writes one: `-`, an integer part without leading
/// zeros, then optionally a fraction and an exponent.
fn is_json_number(token: &[u8]) -> bool {
    let digits = |from: usize| {
        token[from..]
            .iter()
            .position(|b| !b.is_ascii_digit())
            .map_or(token.len(), |n| from + n)
    };
    let mut i = usize::from(token.first() == Some(&b'-'));
    match token.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(i),
        _ => return false,
    }
    if token.get(i) == Some(&b'.') {
        let end = digits(i + 1);
        if end == i + 1 {
            return false;
        }
        i = end;
    }
    if matches!(token.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(token.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let end = digits(i);
        if end == i {
            return false;
        }
        i = end;
    }
    i == token.len()
}

/// `data.starts_with(prefix)`, comparing the last bytes of `prefix` first: metadata texts of
/// one application's revisions share their long first pairs (endpoints, the MetadataService
/// parameters) and differ in the revision, near the end, so a text that does not match is
/// told after a few dozen bytes instead of a few hundred.
fn starts_with_tail_first(data: &[u8], prefix: &[u8]) -> bool {
    const TAIL: usize = 96;
    let Some(head) = data.get(..prefix.len()) else {
        return false;
    };
    let cut = prefix.len().saturating_sub(TAIL);
    head.get(cut..) == prefix.get(cut..) && head.get(..cut) == prefix.get(..cut)
}

/// Whether a string's text is printable ASCII without escapes: then it is valid and stands
/// for itself.
fn plain(inner: &[u8]) -> bool {
    inner
        .iter()
        .all(|&b| (0x20..0x80).contains(&b) && b != b'\\')
}

/// A metadata object's text seen before, cut around its (last) `timestamp` value: a document
/// whose metadata is `before`, a string, then `after` has the same pairs but `timestamp`.
#[derive(Debug)]
pub(super) struct Pattern {
    /// Up to and including the timestamp value's opening quote (the whole text if none).
    pub(super) before: Box<[u8]>,
    /// What follows the timestamp value's closing quote; `None` when the text has no
    /// timestamp.
    pub(super) after: Option<Box<[u8]>>,
}

impl Pattern {
    /// The pattern of the metadata `text` whose timestamp value token is at `timestamp`
    /// (offsets in `text`).
    pub(super) fn new(text: &[u8], timestamp: Option<std::ops::Range<usize>>) -> Self {
        match timestamp {
            Some(t) => Self {
                before: text[..t.start + 1].into(),
                after: Some(text[t.end..].into()),
            },
            None => Self {
                before: text.into(),
                after: None,
            },
        }
    }
}

/// How the metadata was read.
#[derive(Debug, Default)]
pub(super) enum Metadata<'a> {
    /// No payload or no metadata.
    #[default]
    Absent,
    /// Its text matched `known[index]`; `key` was left alone.
    Known(usize),
    /// Read pair by pair: the text of its pairs is in `key`.
    Read {
        /// The object's text, braces included.
        text: &'a [u8],
        /// The last timestamp value token's offsets in `text`.
        timestamp: Option<std::ops::Range<usize>>,
    },
}

/// What the consumer reads of one document.
#[derive(Debug, Default)]
pub(super) struct Scanned<'a> {
    pub(super) name: Option<RawStr<'a>>,
    pub(super) address: Option<RawStr<'a>>,
    pub(super) port: Option<u16>,
    pub(super) ssl_port: Option<u16>,
    pub(super) metadata: Metadata<'a>,
    /// The last `timestamp` value of the metadata.
    pub(super) timestamp: Option<RawStr<'a>>,
    pub(super) registration_time: u64,
}

/// The fields of the document the consumer reads.
#[derive(Clone, Copy, PartialEq)]
enum Field {
    Name,
    Address,
    Port,
    SslPort,
    Payload,
    RegistrationTime,
}

impl Field {
    fn of(name: &[u8]) -> Option<Self> {
        Some(match name {
            b"name" => Self::Name,
            b"address" => Self::Address,
            b"port" => Self::Port,
            b"sslPort" => Self::SslPort,
            b"payload" => Self::Payload,
            b"registrationTimeUTC" => Self::RegistrationTime,
            _ => return None,
        })
    }
}

/// Scans a Curator `OldServiceInstance` document. Its metadata is first compared with the
/// `known` texts; if none matches, the text of every metadata pair but `timestamp` is
/// appended to `key` (each pair's raw text from its key's opening quote to its value's
/// closing quote, then a zero byte, which a valid JSON string cannot hold raw: equal keys
/// mean equal pair texts).
///
/// The offsets of the values that differ between instances of one application (see
/// [`Slot`]) are recorded in `layout`, so that the next document can be read along this
/// one's ([`scan_along`]); `layout` is left holding this document only when it is accepted.
pub(super) fn scan<'a>(
    data: &'a [u8],
    key: &mut Vec<u8>,
    known: &[Pattern],
    layout: &mut Layout,
) -> Result<Scanned<'a>, ScanError> {
    layout.clear();
    let slots = &mut layout.slots;
    let mut s = Scanner { data, pos: 0 };
    let mut out = Scanned::default();
    let mut seen = [false; 6];
    s.ws();
    s.object(|s, name| {
        let Some(field) = name.field()? else {
            // The instance id (`host:port`) differs between instances; other fields the
            // consumer does not read are usually the same and stay in the constant text.
            let start = s.pos;
            let id = name.quoted == b"\"id\"" && s.peek() == Some(b'"');
            s.skip_value()?;
            if id {
                slots.push((Slot::Skipped, start..s.pos));
            }
            return Ok(());
        };
        if std::mem::replace(&mut seen[field as usize], true) {
            return Err(s.err("a field appears twice"));
        }
        let start = s.pos;
        let slot = match field {
            Field::Name => {
                out.name = Some(s.string_value()?);
                Slot::Name
            }
            Field::Address => {
                out.address = Some(s.string_value()?);
                Slot::Address
            }
            Field::Port => {
                out.port = s.optional_u16()?;
                Slot::Port
            }
            Field::SslPort => {
                out.ssl_port = s.optional_u16()?;
                Slot::SslPort
            }
            Field::Payload => {
                if !s.null()? {
                    let mut metadata_seen = false;
                    s.object(|s, name| {
                        let start = s.pos;
                        if !name.is("metadata")? {
                            let id = name.quoted == b"\"id\"" && s.peek() == Some(b'"');
                            s.skip_value()?;
                            if id {
                                slots.push((Slot::Skipped, start..s.pos));
                            }
                            return Ok(());
                        }
                        if std::mem::replace(&mut metadata_seen, true) {
                            return Err(s.err("a field appears twice"));
                        }
                        if let Some((index, timestamp)) = s.known_metadata(known)? {
                            out.metadata = Metadata::Known(index);
                            out.timestamp = timestamp;
                        } else {
                            out.timestamp = s.metadata(key)?;
                            out.metadata = Metadata::Read {
                                text: &s.data[start..s.pos],
                                timestamp: out
                                    .timestamp
                                    .map(|t| t.at - start..t.at - start + t.quoted.len()),
                            };
                        }
                        slots.push((Slot::Metadata, start..s.pos));
                        Ok(())
                    })?;
                }
                return Ok(());
            }
            Field::RegistrationTime => {
                out.registration_time = s.u64()?;
                Slot::RegistrationTime
            }
        };
        slots.push((slot, start..s.pos));
        Ok(())
    })?;
    s.ws();
    if s.pos != data.len() {
        return Err(s.err("trailing characters"));
    }
    layout.doc.extend_from_slice(data);
    Ok(out)
}

/// A value that differs between instances of one application, read anew in each document
/// that follows a [`Layout`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Slot {
    /// `name`, a string.
    Name,
    /// `address`, a string.
    Address,
    /// `port`, a port or `null`.
    Port,
    /// `sslPort`, a port or `null`.
    SslPort,
    /// `registrationTimeUTC`, an unsigned integer.
    RegistrationTime,
    /// `payload.metadata`, found among the known metadata texts.
    Metadata,
    /// A string the consumer does not read (`id`, `payload.id`).
    Skipped,
}

/// The last document read in full and where its [`Slot`]s are: instances of one application
/// written by one Java version have the same fields in the same order and differ only in a
/// few values, so the next document is read by comparing the text between those values and
/// reading only the values.
#[derive(Debug, Default)]
pub(super) struct Layout {
    /// The document; empty when there is none to follow.
    doc: Vec<u8>,
    /// Its slots in document order, each with its value's offsets.
    slots: Vec<(Slot, std::ops::Range<usize>)>,
}

impl Layout {
    /// Forgets the document.
    pub(super) fn clear(&mut self) {
        self.doc.clear();
        self.slots.clear();
    }
}

/// Reads `data` along `layout`: the document it would be if it has the layout's text between
/// the slots and a valid value of the slot's kind in each (the metadata one of the `known`
/// texts). `None` when it does not (or a value is not valid): then [`scan`] reads it, and
/// gives the same result as this would have, or the error.
///
/// Why the result is the full scan's: the layout's document was accepted by [`scan`], and
/// `data` is that document with some complete value tokens replaced by valid tokens of the
/// same kind (the text around each is compared byte for byte, and each value ends where the
/// text after it starts), so it has the same structure, fields and field order, and each
/// value is read by the function [`scan`] uses for that field.
pub(super) fn scan_along<'a>(
    data: &'a [u8],
    known: &[Pattern],
    layout: &Layout,
) -> Option<Scanned<'a>> {
    if layout.doc.is_empty() {
        return None;
    }
    let mut s = Scanner { data, pos: 0 };
    let mut out = Scanned::default();
    let mut from = 0;
    for (slot, value) in &layout.slots {
        let between = layout.doc.get(from..value.start)?;
        if data.get(s.pos..s.pos + between.len())? != between {
            return None;
        }
        s.pos += between.len();
        match slot {
            Slot::Name => out.name = Some(s.string_value().ok()?),
            Slot::Address => out.address = Some(s.string_value().ok()?),
            Slot::Port => out.port = s.optional_u16().ok()?,
            Slot::SslPort => out.ssl_port = s.optional_u16().ok()?,
            Slot::RegistrationTime => out.registration_time = s.u64().ok()?,
            Slot::Metadata => {
                let (index, timestamp) = s.known_metadata(known).ok()??;
                out.metadata = Metadata::Known(index);
                out.timestamp = timestamp;
            }
            Slot::Skipped => {
                s.string_value().ok()?;
            }
        }
        from = value.end;
    }
    (data.get(s.pos..)? == layout.doc.get(from..)?).then_some(out)
}

/// The pairs of a metadata object `text` in document order, every value a string token.
pub(super) fn metadata_pairs<'a>(
    text: &'a [u8],
    mut each: impl FnMut(RawStr<'a>, RawStr<'a>) -> Result<(), ScanError>,
) -> Result<(), ScanError> {
    let mut s = Scanner { data: text, pos: 0 };
    s.object(|s, k| {
        let v = s.string_value()?;
        each(k, v)
    })
}

struct Scanner<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn err_at(&self, at: usize, what: &'static str) -> ScanError {
        ScanError {
            what: what.into(),
            at,
        }
    }

    fn err(&self, what: &'static str) -> ScanError {
        ScanError {
            what: what.into(),
            at: self.pos,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8, what: &'static str) -> Result<(), ScanError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    /// An object whose fields `field` reads (positioned at each value, whitespace skipped);
    /// positioned at `{`, leaves the scanner after `}`.
    fn object(
        &mut self,
        mut field: impl FnMut(&mut Self, RawStr<'a>) -> Result<(), ScanError>,
    ) -> Result<(), ScanError> {
        self.eat(b'{', "expected an object")?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a field name"));
            }
            let name = self.string()?;
            self.ws();
            self.eat(b':', "expected ':'")?;
            self.ws();
            field(self, name)?;
            self.ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    self.ws();
                }
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }

    /// Reads the metadata object (positioned at it), appending the text of its pairs but
    /// `timestamp` to `key`; returns the last `timestamp` value.
    fn metadata(&mut self, key: &mut Vec<u8>) -> Result<Option<RawStr<'a>>, ScanError> {
        let mut timestamp = None;
        let data = self.data;
        self.object(|s, k| {
            let start = k.at;
            let v = s.string_value()?;
            if k.is(crate::instance::TIMESTAMP_KEY)? {
                // Only the last one is kept, but each must be a string.
                if let Some(earlier) = timestamp.replace(v) {
                    earlier.text()?;
                }
            } else {
                key.extend_from_slice(&data[start..s.pos]);
                key.push(0);
            }
            Ok(())
        })?;
        Ok(timestamp)
    }

    /// A string token (positioned at its opening quote).
    fn string(&mut self) -> Result<RawStr<'a>, ScanError> {
        let start = self.pos;
        let end = self.string_end()?;
        self.pos = end;
        Ok(RawStr {
            quoted: &self.data[start..end],
            at: start,
        })
    }

    /// A value that must be a string.
    fn string_value(&mut self) -> Result<RawStr<'a>, ScanError> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string"));
        }
        self.string()
    }

    /// The offset after the string starting at `self.pos` (its opening quote): the next
    /// quote not escaped. Eight bytes are looked at at once (most strings are too short for
    /// a call to `memchr` to pay).
    fn string_end(&self) -> Result<usize, ScanError> {
        let data = self.data;
        let mut i = self.pos + 1;
        loop {
            while let Some(chunk) = data.get(i..i + 8) {
                let Ok(chunk) = <[u8; 8]>::try_from(chunk) else {
                    break;
                };
                let word = u64::from_le_bytes(chunk);
                let found =
                    bytes_equal(word, b'"') | bytes_equal(word, b'\\') | bytes_below_space(word);
                if found != 0 {
                    i += (found.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
            // Strings the scanner skips are checked as strictly as the ones it reads: a
            // document serde_json (and Java's Jackson) would refuse is refused here too.
            match data.get(i) {
                Some(b'"') => return Ok(i + 1),
                Some(b'\\') => match data.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u') => match unicode_escape(data, i) {
                        Some(len) => i += len,
                        None => return Err(self.err_at(i, "invalid \\u escape in a string")),
                    },
                    Some(_) => return Err(self.err_at(i, "invalid escape in a string")),
                    None => return Err(self.err("unterminated string")),
                },
                Some(b) if *b < 0x20 => return Err(self.err_at(i, "control character in a string")),
                Some(_) => i += 1,
                None => return Err(self.err("unterminated string")),
            }
        }
    }

    /// Matches the metadata object at `self.pos` against `known` texts: the index of the one
    /// it matches and its timestamp value, the scanner after the object; or `None`, the
    /// scanner unmoved.
    #[allow(clippy::type_complexity)]
    fn known_metadata(
        &mut self,
        known: &[Pattern],
    ) -> Result<Option<(usize, Option<RawStr<'a>>)>, ScanError> {
        let start = self.pos;
        let rest = &self.data[start..];
        for (index, pattern) in known.iter().enumerate() {
            if !starts_with_tail_first(rest, &pattern.before) {
                continue;
            }
            let Some(after) = &pattern.after else {
                self.pos = start + pattern.before.len();
                return Ok(Some((index, None)));
            };
            // `before` ends with the timestamp's opening quote.
            self.pos = start + pattern.before.len() - 1;
            let timestamp = self.string()?;
            if self.data[self.pos..].starts_with(after) {
                self.pos += after.len();
                return Ok(Some((index, Some(timestamp))));
            }
            self.pos = start;
        }
        Ok(None)
    }

    /// Skips any value: strings to their end, objects and arrays to their matching bracket
    /// (nesting checked), scalars to the next delimiter.
    fn skip_value(&mut self) -> Result<(), ScanError> {
        match self.peek() {
            Some(b'"') => {
                self.pos = self.string_end()?;
                Ok(())
            }
            Some(b'{' | b'[') => self.skip_container(),
            Some(_) => {
                self.scalar()?;
                Ok(())
            }
            None => Err(self.err("expected a value")),
        }
    }

    /// Skips the object or array at `self.pos`, holding it to JSON's grammar as serde_json
    /// does when it skips a value (field names, colons, commas, well-formed scalars), without
    /// building anything. Iterative, so nesting costs no stack; at most 64 levels.
    fn skip_container(&mut self) -> Result<(), ScanError> {
        // Open brackets as bits (1 = object); Curator documents nest three deep.
        let mut stack: u64 = 0;
        let mut depth = 0u32;
        loop {
            // At a value.
            self.ws();
            match self.peek() {
                Some(open @ (b'{' | b'[')) => {
                    if depth == 64 {
                        return Err(self.err("nested too deep"));
                    }
                    stack = (stack << 1) | u64::from(open == b'{');
                    depth += 1;
                    self.pos += 1;
                    self.ws();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                        stack >>= 1;
                        depth -= 1;
                    } else {
                        if open == b'{' {
                            self.field_name()?;
                        }
                        continue;
                    }
                }
                Some(b'"') => self.pos = self.string_end()?,
                Some(_) => {
                    self.scalar()?;
                }
                None => return Err(self.err("unterminated object or array")),
            }
            // After a value: the next one, or the end of one or more containers.
            loop {
                if depth == 0 {
                    return Ok(());
                }
                self.ws();
                let in_object = stack & 1 == 1;
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if in_object {
                            self.ws();
                            self.field_name()?;
                        }
                        break;
                    }
                    Some(b'}') if in_object => {}
                    Some(b']') if !in_object => {}
                    Some(_) => return Err(self.err("expected `,` or a closing bracket")),
                    None => return Err(self.err("unterminated object or array")),
                }
                self.pos += 1;
                stack >>= 1;
                depth -= 1;
            }
        }
    }

    /// A field name of a skipped object and its colon.
    fn field_name(&mut self) -> Result<(), ScanError> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a field name"));
        }
        self.pos = self.string_end()?;
        self.ws();
        self.eat(b':', "expected `:`")
    }

    /// A scalar token (number, `true`, `false`, `null`): up to the next delimiter.
    fn scalar(&mut self) -> Result<&'a [u8], ScanError> {
        let start = self.pos;
        // What numbers and literals are made of; anything else ends the token (and is then
        // refused if it is not a delimiter).
        while let Some(b) = self.peek() {
            if !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-')) {
                break;
            }
            self.pos += 1;
        }
        let token = &self.data[start..self.pos];
        match token.first() {
            Some(b'0'..=b'9' | b'-') if is_json_number(token) => Ok(token),
            Some(_) if matches!(token, b"true" | b"false" | b"null") => Ok(token),
            _ => Err(ScanError {
                what: "expected a value".into(),
                at: start,
            }),
        }
    }

    /// `null` (consumed, `true`) or something else (left, `false`).
    fn null(&mut self) -> Result<bool, ScanError> {
        if self.data.get(self.pos..self.pos + 4) == Some(b"null") {
            let at = self.pos;
            self.scalar()?;
            if self.pos != at + 4 {
                return Err(self.err("expected a value"));
            }
            return Ok(true);
        }
        Ok(false)
    }

    fn u64(&mut self) -> Result<u64, ScanError> {
        if let Some((n, len)) = self.short_u64() {
            self.pos += len;
            return Ok(n);
        }
        self.general_u64()
    }

    /// An unsigned integer token, held to JSON's number rules.
    fn general_u64(&mut self) -> Result<u64, ScanError> {
        let at = self.pos;
        let token = self.scalar()?;
        let bad = || ScanError {
            what: "expected an unsigned integer".into(),
            at,
        };
        if token.is_empty() || !token.iter().all(u8::is_ascii_digit) {
            return Err(bad());
        }
        // JSON forbids leading zeros.
        if token.len() > 1 && token[0] == b'0' {
            return Err(bad());
        }
        token.iter().try_fold(0u64, |n, &d| {
            n.checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(d - b'0')))
                .ok_or_else(bad)
        })
    }

    /// The common case of [`u64`](Self::u64) in one pass: up to 18 digits without a leading
    /// zero, then a byte that ends a scalar token; its value and length. `None` for anything
    /// else, which the general path then reads (and refuses or accepts) exactly as before.
    fn short_u64(&self) -> Option<(u64, usize)> {
        // 18 digits cannot overflow a u64.
        const MAX_DIGITS: usize = 18;
        let rest = self.data.get(self.pos..)?;
        let mut n = 0u64;
        let mut len = 0;
        for &b in rest.iter().take(MAX_DIGITS) {
            if !b.is_ascii_digit() {
                break;
            }
            n = n * 10 + u64::from(b - b'0');
            len += 1;
        }
        let ends_token = rest
            .get(len)
            .is_none_or(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-')));
        let leading_zero = len > 1 && rest.first() == Some(&b'0');
        (len > 0 && ends_token && !leading_zero).then_some((n, len))
    }

    fn optional_u16(&mut self) -> Result<Option<u16>, ScanError> {
        if self.null()? {
            return Ok(None);
        }
        let at = self.pos;
        let n = self.u64()?;
        u16::try_from(n).map(Some).map_err(|_| ScanError {
            what: "a port out of range".into(),
            at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{starts_with_tail_first, Scanner};

    #[test]
    fn the_one_pass_integer_reads_as_the_general_one() {
        let mut tokens: Vec<String> = [
            "0",
            "7",
            "00",
            "01",
            "10",
            "123",
            "-1",
            "1.5",
            "1e3",
            "12a",
            "1-",
            "",
            "x",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
        ]
        .iter()
        .map(|t| (*t).to_owned())
        .collect();
        for digits in 16..=21 {
            tokens.push("9".repeat(digits));
            tokens.push(format!("1{}", "0".repeat(digits - 1)));
        }
        for token in &tokens {
            for end in ["", ",", "}", " ", "]", "\"", ".5", "e1", "a", "0"] {
                let data = format!("{token}{end}");
                let mut fast = Scanner {
                    data: data.as_bytes(),
                    pos: 0,
                };
                let mut general = Scanner {
                    data: data.as_bytes(),
                    pos: 0,
                };
                let (a, b) = (fast.u64(), general.general_u64());
                assert_eq!(a.as_ref().ok(), b.as_ref().ok(), "{data}");
                assert_eq!(
                    a.map_err(|e| e.to_string()).err(),
                    b.map_err(|e| e.to_string()).err()
                );
                assert_eq!(fast.pos, general.pos, "{data}");
            }
        }
    }

    #[test]
    fn the_tail_first_prefix_check_is_starts_with() {
        let long: Vec<u8> = (0..300u32).map(|i| (i % 251) as u8).collect();
        let mut texts: Vec<Vec<u8>> = vec![Vec::new(), b"a".to_vec(), long.clone()];
        for at in [0, 1, 150, 203, 204, 250, 299] {
            let mut changed = long.clone();
            changed[at] ^= 1;
            texts.push(changed);
        }
        for data in &texts {
            for prefix in &texts {
                for len in [0, 1, 95, 96, 97, 204, 205, 299, 300] {
                    let Some(prefix) = prefix.get(..len) else {
                        continue;
                    };
                    assert_eq!(
                        starts_with_tail_first(data, prefix),
                        data.starts_with(prefix),
                        "{len}"
                    );
                }
            }
        }
    }
}
