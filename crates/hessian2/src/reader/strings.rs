//! Reading strings and binaries (both chunked), borrowed from the input where possible.

use super::{Hessian2Reader, OneChunk};
use crate::constants::*;
use crate::error::Error;

impl<'de> Hessian2Reader<'de> {
    /// Decodes a string whose first tag was already consumed (handles `R` chunks).
    #[inline]
    pub(crate) fn string_after_tag(&mut self, tag: u8) -> Result<String, Error> {
        // Nearly every string on the wire is one chunk of valid UTF-8 (ASCII, or without
        // surrogate pairs): copy it straight out of the input.
        match self.borrow_str_after_tag(tag) {
            Some(s) => Ok(crate::copy::to_string(s)),
            None => self.string_after_tag_general(tag),
        }
    }

    /// The string whose tag was just read, as a slice of the input, when it is one chunk
    /// of valid UTF-8 (any string whose CESU-8 has no surrogate pair); `None`, with
    /// nothing consumed, otherwise.
    #[inline]
    pub(crate) fn borrow_str_after_tag(&mut self, tag: u8) -> Option<&'de str> {
        // Short ASCII strings (most of them) inline; the rest out of line.
        if tag <= 0x1f && usize::from(tag) <= self.limits.max_string_len {
            let input: &'de [u8] = self.input;
            let end = self.pos + usize::from(tag);
            if let Some(s) = input.get(self.pos..end).and_then(crate::copy::ascii_str) {
                self.pos = end;
                return Some(s);
            }
        }
        self.borrow_str_after_tag_general(tag)
    }

    #[inline(never)]
    pub(super) fn borrow_str_after_tag_general(&mut self, tag: u8) -> Option<&'de str> {
        let input: &'de [u8] = self.input;
        let p = self.pos;
        let (hdr, units) = self.final_chunk_header(p, tag, OneChunk::String)?;
        if units > self.limits.max_string_len {
            return None;
        }
        let start = p + hdr;
        if let Some(s) = input
            .get(start..start + units)
            .and_then(crate::copy::ascii_str)
        {
            self.pos = start + units;
            return Some(s);
        }
        let end = self.skip_units(start, units)?;
        let s = std::str::from_utf8(input.get(start..end)?).ok()?;
        self.pos = end;
        Some(s)
    }

    /// For a string or binary in a single (final) chunk whose `tag` sits just before
    /// `at`: how many length bytes follow the tag, and the length (UTF-16 units or bytes).
    #[inline(always)]
    pub(super) fn final_chunk_header(
        &self,
        at: usize,
        tag: u8,
        kind: OneChunk,
    ) -> Option<(usize, usize)> {
        // (first tag with the length in it, how many such tags, first tag with one length
        // byte after it, tag with two length bytes)
        let (short, shorts, medium, long) = match kind {
            OneChunk::String => (0x00, 0x20, 0x30, BC_STRING),
            OneChunk::Binary => (0x20, 0x10, 0x34, BC_BINARY),
        };
        let b = |i: usize| self.input.get(at + i).map(|&x| usize::from(x));
        if tag.wrapping_sub(short) < shorts {
            Some((0, usize::from(tag - short)))
        } else if tag.wrapping_sub(medium) < 4 {
            Some((1, (usize::from(tag - medium) << 8) | b(0)?))
        } else if tag == long {
            Some((2, (b(0)? << 8) | b(1)?))
        } else {
            None
        }
    }

    /// The binary whose tag was just read, as a slice of the input, when it is one chunk;
    /// `None`, with nothing consumed, otherwise.
    #[inline]
    pub(crate) fn borrow_binary_after_tag(&mut self, tag: u8) -> Option<&'de [u8]> {
        let input: &'de [u8] = self.input;
        let p = self.pos;
        let (hdr, len) = self.final_chunk_header(p, tag, OneChunk::Binary)?;
        if len > self.limits.max_binary_len {
            return None;
        }
        let data = input.get(p + hdr..p + hdr + len)?;
        self.pos = p + hdr + len;
        Some(data)
    }

    /// [`string_after_tag`](Self::string_after_tag) for what cannot be borrowed: chunked
    /// strings, CESU-8 surrogate pairs, bad input (which gets its error here).
    #[inline(never)]
    pub(crate) fn string_after_tag_general(&mut self, mut tag: u8) -> Result<String, Error> {
        let mut out = String::new();
        let mut pending: Option<u32> = None;
        let mut total = 0usize;
        loop {
            let (len, last) = match tag {
                0x00..=0x1f => (usize::from(tag), true),
                0x30..=0x33 => (
                    (usize::from(tag - 0x30) << 8) | usize::from(self.byte()?),
                    true,
                ),
                BC_STRING | BC_STRING_CHUNK => {
                    let [a, b] = self.array::<2>()?;
                    ((usize::from(a) << 8) | usize::from(b), tag == BC_STRING)
                }
                _ => return Err(self.unexpected(tag, "string chunk")),
            };
            total += len;
            if total > self.limits.max_string_len {
                return Err(Error::LengthLimit {
                    what: "string",
                    len: total as i64,
                    limit: self.limits.max_string_len,
                });
            }
            self.decode_units(len, &mut out, &mut pending)?;
            if last {
                break;
            }
            tag = self.byte()?;
        }
        if pending.is_some() {
            out.push(char::REPLACEMENT_CHARACTER);
        }
        Ok(out)
    }

    /// Decodes `units` UTF-16 units of CESU-8 (or lenient 4-byte UTF-8) into `out`.
    /// Unpaired surrogates become U+FFFD.
    pub(super) fn decode_units(
        &mut self,
        units: usize,
        out: &mut String,
        pending: &mut Option<u32>,
    ) -> Result<(), Error> {
        if units == 0 {
            return Ok(());
        }
        let input: &'de [u8] = self.input;
        // Fast path: all ASCII.
        if pending.is_none() {
            if let Some(s) = input
                .get(self.pos..self.pos + units)
                .and_then(crate::copy::ascii_str)
            {
                if out.capacity() == 0 {
                    out.reserve_exact(units);
                }
                crate::copy::push_str(out, s);
                self.pos += units;
                return Ok(());
            }
        }
        out.reserve(units.min(self.remaining()));
        let mut n = 0usize;
        while n < units {
            let start = self.pos;
            let b0 = u32::from(self.byte()?);
            let (unit, cp4) = if b0 < 0x80 {
                (b0, None)
            } else if b0 & 0xe0 == 0xc0 {
                let b1 = u32::from(self.byte()?);
                (((b0 & 0x1f) << 6) | (b1 & 0x3f), None)
            } else if b0 & 0xf0 == 0xe0 {
                let [b1, b2] = self.array::<2>()?;
                (
                    ((b0 & 0x0f) << 12) | ((u32::from(b1) & 0x3f) << 6) | (u32::from(b2) & 0x3f),
                    None,
                )
            } else if b0 & 0xf8 == 0xf0 {
                let [b1, b2, b3] = self.array::<3>()?;
                let cp = ((b0 & 0x07) << 18)
                    | ((u32::from(b1) & 0x3f) << 12)
                    | ((u32::from(b2) & 0x3f) << 6)
                    | (u32::from(b3) & 0x3f);
                (0, Some(cp))
            } else {
                return Err(Error::InvalidString { position: start });
            };
            if let Some(cp) = cp4 {
                if pending.take().is_some() {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
                out.push(
                    char::from_u32(cp)
                        .filter(|_| cp >= 0x10000)
                        .unwrap_or(char::REPLACEMENT_CHARACTER),
                );
                n += 2;
                continue;
            }
            n += 1;
            if (0xd800..0xdc00).contains(&unit) {
                if pending.replace(unit).is_some() {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
            } else if (0xdc00..0xe000).contains(&unit) {
                match pending.take() {
                    Some(hi) => {
                        let cp = 0x10000 + ((hi - 0xd800) << 10) + (unit - 0xdc00);
                        out.push(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER));
                    }
                    None => out.push(char::REPLACEMENT_CHARACTER),
                }
            } else {
                if pending.take().is_some() {
                    out.push(char::REPLACEMENT_CHARACTER);
                }
                out.push(char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
        Ok(())
    }

    /// Decodes a binary whose first tag was already consumed (handles `A` chunks).
    pub(crate) fn binary_after_tag(&mut self, mut tag: u8) -> Result<Vec<u8>, Error> {
        let mut out: Vec<u8> = Vec::new();
        loop {
            let (len, last) = match tag {
                0x20..=0x2f => (usize::from(tag - 0x20), true),
                0x34..=0x37 => (
                    (usize::from(tag - 0x34) << 8) | usize::from(self.byte()?),
                    true,
                ),
                BC_BINARY | BC_BINARY_CHUNK => {
                    let [a, b] = self.array::<2>()?;
                    ((usize::from(a) << 8) | usize::from(b), tag == BC_BINARY)
                }
                _ => return Err(self.unexpected(tag, "binary chunk")),
            };
            if out.len() + len > self.limits.max_binary_len {
                return Err(Error::LengthLimit {
                    what: "binary",
                    len: (out.len() + len) as i64,
                    limit: self.limits.max_binary_len,
                });
            }
            let data = self.take(len)?;
            if last && out.is_empty() {
                return Ok(crate::copy::to_vec(data));
            }
            crate::copy::extend(&mut out, data);
            if last {
                return Ok(out);
            }
            tag = self.byte()?;
        }
    }
}
