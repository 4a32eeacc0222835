//! The scanner: a cursor over one JSON document that checks its structure and finds the
//! ends of what it skips.

use super::token::{RawStr, ScanError};

/// The high bit of each byte of `word` equal to `byte`, exact for the lowest such byte (a
/// borrow can only flag bytes above a real match, so the lowest flag is always real).
pub(super) fn bytes_equal(word: u64, byte: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let x = word ^ (ONES * u64::from(byte));
    x.wrapping_sub(ONES) & !x & (ONES << 7)
}

/// The high bit of every byte of `word` below 0x20 (a control character, which JSON does not
/// allow raw in a string). Bits above the lowest set one may be spurious; the lowest is exact.
pub(super) fn bytes_below_space(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    word.wrapping_sub(ONES * 0x20) & !word & (ONES << 7)
}

/// The length of the `\\uXXXX` escape at `at` (12 for a surrogate pair), or `None` when it
/// is not one JSON allows: four hex digits, and a high surrogate followed by a low one.
pub(super) fn unicode_escape(data: &[u8], at: usize) -> Option<usize> {
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
pub(super) fn is_json_number(token: &[u8]) -> bool {
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
pub(super) fn starts_with_tail_first(data: &[u8], prefix: &[u8]) -> bool {
    const TAIL: usize = 96;
    let Some(head) = data.get(..prefix.len()) else {
        return false;
    };
    let cut = prefix.len().saturating_sub(TAIL);
    head.get(cut..) == prefix.get(cut..) && head.get(..cut) == prefix.get(..cut)
}

/// A metadata object's text seen before, cut around its (last) `timestamp` value: a document
/// whose metadata is `before`, a string, then `after` has the same pairs but `timestamp`.
#[derive(Debug)]
pub(crate) struct Pattern {
    /// Up to and including the timestamp value's opening quote (the whole text if none).
    pub(crate) before: Box<[u8]>,
    /// What follows the timestamp value's closing quote; `None` when the text has no
    /// timestamp.
    pub(crate) after: Option<Box<[u8]>>,
}

impl Pattern {
    /// The pattern of the metadata `text` whose timestamp value token is at `timestamp`
    /// (offsets in `text`).
    pub(crate) fn new(text: &[u8], timestamp: Option<std::ops::Range<usize>>) -> Self {
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

pub(super) struct Scanner<'a> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Scanner<'a> {
    pub(super) fn err_at(&self, at: usize, what: &'static str) -> ScanError {
        ScanError {
            what: what.into(),
            at,
        }
    }

    pub(super) fn err(&self, what: &'static str) -> ScanError {
        ScanError {
            what: what.into(),
            at: self.pos,
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    pub(super) fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    pub(super) fn eat(&mut self, byte: u8, what: &'static str) -> Result<(), ScanError> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    /// An object whose fields `field` reads (positioned at each value, whitespace skipped);
    /// positioned at `{`, leaves the scanner after `}`.
    pub(super) fn object(
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
    pub(super) fn metadata(&mut self, key: &mut Vec<u8>) -> Result<Option<RawStr<'a>>, ScanError> {
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
    pub(super) fn string(&mut self) -> Result<RawStr<'a>, ScanError> {
        let start = self.pos;
        let end = self.string_end()?;
        self.pos = end;
        Ok(RawStr {
            quoted: &self.data[start..end],
            at: start,
        })
    }

    /// A value that must be a string.
    pub(super) fn string_value(&mut self) -> Result<RawStr<'a>, ScanError> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a string"));
        }
        self.string()
    }

    /// The offset after the string starting at `self.pos` (its opening quote): the next
    /// quote not escaped. Eight bytes are looked at at once (most strings are too short for
    /// a call to `memchr` to pay).
    pub(super) fn string_end(&self) -> Result<usize, ScanError> {
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
    pub(super) fn known_metadata(
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
    pub(super) fn skip_value(&mut self) -> Result<(), ScanError> {
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
    pub(super) fn skip_container(&mut self) -> Result<(), ScanError> {
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
    pub(super) fn field_name(&mut self) -> Result<(), ScanError> {
        if self.peek() != Some(b'"') {
            return Err(self.err("expected a field name"));
        }
        self.pos = self.string_end()?;
        self.ws();
        self.eat(b':', "expected `:`")
    }

    /// A scalar token (number, `true`, `false`, `null`): up to the next delimiter.
    pub(super) fn scalar(&mut self) -> Result<&'a [u8], ScanError> {
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
    pub(super) fn null(&mut self) -> Result<bool, ScanError> {
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

    pub(super) fn u64(&mut self) -> Result<u64, ScanError> {
        if let Some((n, len)) = self.short_u64() {
            self.pos += len;
            return Ok(n);
        }
        self.general_u64()
    }

    /// An unsigned integer token, held to JSON's number rules.
    pub(super) fn general_u64(&mut self) -> Result<u64, ScanError> {
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
    pub(super) fn short_u64(&self) -> Option<(u64, usize)> {
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

    pub(super) fn optional_u16(&mut self) -> Result<Option<u16>, ScanError> {
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
