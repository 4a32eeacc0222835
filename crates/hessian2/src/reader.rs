//! [`Hessian2Reader`]: the decoder, with the tables of one Hessian 2 stream.

use std::rc::Rc;

use crate::constants::*;
use crate::error::Error;
use crate::value::{List, Map, Object, Value};

/// Bounds that keep hostile input from exhausting memory, stack or time.
///
/// Independently of these limits, nothing is allocated up front beyond what the
/// remaining input could possibly fill: a list declaring 2^31 elements reserves
/// at most one slot per remaining input byte.
///
/// Construct with struct-update syntax: `Limits { max_depth: 32, ..Limits::default() }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest nesting of lists, maps and objects (default 128).
    pub max_depth: usize,
    /// Most elements (or entries, or class fields) in one collection (default 16 Mi).
    pub max_collection_len: usize,
    /// Most UTF-16 units in one string (default 256 Mi).
    pub max_string_len: usize,
    /// Most bytes in one binary (default 256 MiB).
    pub max_binary_len: usize,
    /// Most input bytes that back-references (`Q` to completed values, which decode
    /// as copies) may re-read in total per reader (default 4 MiB). Stops "billion
    /// laughs" inputs; each replayed byte can cost a few dozen bytes of `Value`.
    pub max_ref_replay: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 128,
            max_collection_len: 16 * 1024 * 1024,
            max_string_len: 256 * 1024 * 1024,
            max_binary_len: 256 * 1024 * 1024,
            max_ref_replay: 4 * 1024 * 1024,
        }
    }
}

/// A class definition (`C`) read from the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClassDef {
    pub(crate) name: String,
    pub(crate) fields: Vec<String>,
}

/// The reader's tables, whose allocations the next reader of the thread reuses (a
/// reader per message would otherwise grow them again for every message).
#[derive(Default)]
struct ReaderTables {
    classes: Vec<Rc<ClassDef>>,
    types: Vec<Rc<str>>,
    refs: Vec<usize>,
    building: Vec<u32>,
}

thread_local! {
    static READER_POOL: std::cell::RefCell<Option<ReaderTables>> = const { std::cell::RefCell::new(None) };
}

impl ReaderTables {
    fn pooled() -> ReaderTables {
        READER_POOL
            .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.take()))
            .ok()
            .flatten()
            .unwrap_or_default()
    }
}

impl Drop for Hessian2Reader<'_> {
    fn drop(&mut self) {
        // Bounded: do not keep what a huge message grew.
        if self.classes.capacity() > 4096
            || self.types.capacity() > 4096
            || self.refs.capacity() > 1 << 16
            || self.building.capacity() > 4096
        {
            return;
        }
        let mut t = ReaderTables {
            classes: std::mem::take(&mut self.classes),
            types: std::mem::take(&mut self.types),
            refs: std::mem::take(&mut self.refs),
            building: std::mem::take(&mut self.building),
        };
        t.classes.clear();
        t.types.clear();
        t.refs.clear();
        t.building.clear();
        let _ = READER_POOL.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.is_none() {
                    *p = Some(t);
                }
            }
        });
    }
}

/// Decodes a Hessian 2 stream.
///
/// The reader keeps the class-definition, type and reference tables across reads,
/// so several values written into one stream (the fields of a `dubbo://` body) are
/// read one after the other from one reader. Create a new reader for a new stream.
///
/// Every method returns a typed [`Error`] on truncated, malformed or hostile input;
/// none panics. After an error the reader's position is unspecified.
#[derive(Debug)]
pub struct Hessian2Reader<'de> {
    pub(crate) input: &'de [u8],
    pub(crate) pos: usize,
    pub(crate) limits: Limits,
    pub(crate) depth: usize,
    pub(crate) classes: Vec<Rc<ClassDef>>,
    pub(crate) types: Vec<Rc<str>>,
    /// Start offset of every list, map and object, by reference index.
    pub(crate) refs: Vec<usize>,
    /// > 0 while re-reading a referenced value: tables are not extended.
    pub(crate) replay: usize,
    /// Reference index the next container gets while replaying.
    pub(crate) replay_next: u32,
    /// Reference indexes of the containers being built (enclosing the current position).
    pub(crate) building: Vec<u32>,
    pub(crate) replay_spent: usize,
}

impl<'de> Hessian2Reader<'de> {
    /// A reader over `input` with default [`Limits`].
    pub fn new(input: &'de [u8]) -> Self {
        Self::with_limits(input, Limits::default())
    }

    /// A reader over `input` with the given limits.
    pub fn with_limits(input: &'de [u8], limits: Limits) -> Self {
        let t = ReaderTables::pooled();
        Hessian2Reader {
            input,
            pos: 0,
            limits,
            depth: 0,
            classes: t.classes,
            types: t.types,
            refs: t.refs,
            replay: 0,
            replay_next: 0,
            building: t.building,
            replay_spent: 0,
        }
    }

    /// Offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Number of unread bytes.
    pub fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// The next byte, without consuming it.
    pub fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// `true` when all input has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    // ----- low level -------------------------------------------------------------

    #[inline]
    pub(crate) fn truncated(&self) -> Error {
        Error::Truncated {
            position: self.input.len(),
        }
    }

    #[inline]
    pub(crate) fn byte(&mut self) -> Result<u8, Error> {
        match self.input.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated()),
        }
    }

    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'de [u8], Error> {
        let input: &'de [u8] = self.input;
        let end = self.pos.checked_add(n).ok_or_else(|| self.truncated())?;
        match input.get(self.pos..end) {
            Some(s) => {
                self.pos = end;
                Ok(s)
            }
            None => Err(self.truncated()),
        }
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub(crate) fn unexpected(&self, tag: u8, expected: &'static str) -> Error {
        Error::UnexpectedTag {
            tag,
            position: self.pos.saturating_sub(1),
            expected,
        }
    }

    pub(crate) fn enter(&mut self) -> Result<(), Error> {
        if self.depth >= self.limits.max_depth {
            return Err(Error::DepthExceeded {
                limit: self.limits.max_depth,
            });
        }
        self.depth += 1;
        Ok(())
    }

    #[inline]
    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Registers a container starting at `start` (its tag offset); returns its reference index.
    pub(crate) fn begin_ref(&mut self, start: usize) -> u32 {
        let idx = if self.replay > 0 {
            let i = self.replay_next;
            self.replay_next = self.replay_next.wrapping_add(1);
            i
        } else {
            let i = self.refs.len() as u32;
            self.refs.push(start);
            i
        };
        self.building.push(idx);
        idx
    }

    #[inline]
    pub(crate) fn end_ref(&mut self) {
        self.building.pop();
    }

    /// Checks a declared collection length against the limits; returns a safe
    /// capacity to reserve (never more than the remaining input could hold).
    pub(crate) fn check_len(
        &self,
        what: &'static str,
        len: i64,
        min_bytes_each: usize,
    ) -> Result<usize, Error> {
        if len < 0 || len as u64 > self.limits.max_collection_len as u64 {
            return Err(Error::LengthLimit {
                what,
                len,
                limit: self.limits.max_collection_len,
            });
        }
        let len = len as usize;
        let cap = self.remaining() / min_bytes_each.max(1);
        if len > cap {
            // Each element needs at least one byte: the input cannot hold them all.
            return Err(self.truncated());
        }
        Ok(len)
    }

    /// Counts the entries of the map body at the current position up to its `Z`, as far
    /// as keys and values are scalars (see [`skip_scalar`](Self::skip_scalar)); at the
    /// first other value, the count so far (a lower bound). Reads nothing; the work is
    /// bounded by the size of those scalars.
    pub(crate) fn count_map_entries(&self) -> usize {
        let mut p = self.pos;
        let mut n = 0usize;
        while n < self.limits.max_collection_len {
            match self.input.get(p) {
                Some(&BC_END) | None => break,
                Some(_) => {}
            }
            // Short strings (the usual keys and values) first, without the general match.
            let step = |p: usize| match self.input.get(p) {
                Some(&t @ 0x00..=0x1f) => Some(p + 1 + usize::from(t)),
                _ => self.skip_scalar_as(p, false),
            };
            match step(p).and_then(step) {
                Some(q) => {
                    n += 1;
                    p = q;
                }
                None => break,
            }
        }
        n
    }

    /// The position after the scalar starting at `p` (null, boolean, number, date, or
    /// a string or binary in one chunk), or `None` for anything else or bad input.
    pub(crate) fn skip_scalar(&self, p: usize) -> Option<usize> {
        self.skip_scalar_as(p, true)
    }

    /// [`skip_scalar`](Self::skip_scalar); with `exact` false a string is taken to be
    /// ASCII (one byte per unit) without looking, which is enough for a size hint: a
    /// wrong guess only changes the hint, and the count stays bounded by the input.
    #[inline(always)]
    fn skip_scalar_as(&self, p: usize, exact: bool) -> Option<usize> {
        let input = self.input;
        let tag = *input.get(p)?;
        let end = match tag {
            BC_NULL | BC_TRUE | BC_FALSE => p + 1,
            0x80..=0xbf | 0xd8..=0xef | BC_DOUBLE_ZERO | BC_DOUBLE_ONE => p + 1,
            0xc0..=0xcf | 0xf0..=0xff | BC_DOUBLE_BYTE => p + 2,
            0xd0..=0xd7 | 0x38..=0x3f | BC_DOUBLE_SHORT => p + 3,
            BC_INT | BC_LONG_INT | BC_DOUBLE_MILL | BC_DATE_MINUTE => p + 5,
            BC_LONG | BC_DOUBLE | BC_DATE => p + 9,
            0x20..=0x2f | 0x34..=0x37 | BC_BINARY => {
                let (hdr, len) = self.final_chunk_header(p + 1, tag, OneChunk::Binary)?;
                p + 1 + hdr + len
            }
            0x00..=0x1f | 0x30..=0x33 | BC_STRING => {
                let (hdr, units) = self.final_chunk_header(p + 1, tag, OneChunk::String)?;
                if exact {
                    return self.skip_units(p + 1 + hdr, units);
                }
                p + 1 + hdr + units
            }
            _ => return None,
        };
        (end <= input.len()).then_some(end)
    }

    /// The position after `units` UTF-16 units of CESU-8 starting at `p`.
    fn skip_units(&self, p: usize, units: usize) -> Option<usize> {
        let input = self.input;
        if let Some(s) = input.get(p..p.checked_add(units)?) {
            if s.is_ascii() {
                return Some(p + units);
            }
        }
        let mut q = p;
        let mut n = 0;
        while n < units {
            let (len, w) = match *input.get(q)? {
                0x00..=0x7f => (1, 1),
                0xc0..=0xdf => (2, 1),
                0xe0..=0xef => (3, 1),
                0xf0..=0xf7 => (4, 2),
                _ => return None,
            };
            q += len;
            n += w;
        }
        (q <= input.len()).then_some(q)
    }

    // ----- scalars -----------------------------------------------------------------

    pub(crate) fn int_after_tag(&mut self, tag: u8) -> Result<Option<i32>, Error> {
        Ok(Some(match tag {
            0x80..=0xbf => i32::from(tag) - i32::from(BC_INT_ZERO),
            0xc0..=0xcf => {
                ((i32::from(tag) - i32::from(BC_INT_BYTE_ZERO)) << 8) + i32::from(self.byte()?)
            }
            0xd0..=0xd7 => {
                let [b1, b0] = self.array::<2>()?;
                ((i32::from(tag) - i32::from(BC_INT_SHORT_ZERO)) << 16)
                    + (i32::from(b1) << 8)
                    + i32::from(b0)
            }
            BC_INT => i32::from_be_bytes(self.array::<4>()?),
            _ => return Ok(None),
        }))
    }

    pub(crate) fn long_after_tag(&mut self, tag: u8) -> Result<Option<i64>, Error> {
        Ok(Some(match tag {
            0xd8..=0xef => i64::from(tag) - i64::from(BC_LONG_ZERO),
            0xf0..=0xff => {
                ((i64::from(tag) - i64::from(BC_LONG_BYTE_ZERO)) << 8) + i64::from(self.byte()?)
            }
            0x38..=0x3f => {
                let [b1, b0] = self.array::<2>()?;
                ((i64::from(tag) - i64::from(BC_LONG_SHORT_ZERO)) << 16)
                    + (i64::from(b1) << 8)
                    + i64::from(b0)
            }
            BC_LONG_INT => i64::from(i32::from_be_bytes(self.array::<4>()?)),
            BC_LONG => i64::from_be_bytes(self.array::<8>()?),
            _ => return Ok(None),
        }))
    }

    pub(crate) fn double_after_tag(&mut self, tag: u8) -> Result<Option<f64>, Error> {
        Ok(Some(match tag {
            BC_DOUBLE_ZERO => 0.0,
            BC_DOUBLE_ONE => 1.0,
            BC_DOUBLE_BYTE => f64::from(self.byte()? as i8),
            BC_DOUBLE_SHORT => f64::from(i16::from_be_bytes(self.array::<2>()?)),
            BC_DOUBLE_MILL => 0.001 * f64::from(i32::from_be_bytes(self.array::<4>()?)),
            BC_DOUBLE => f64::from_bits(u64::from_be_bytes(self.array::<8>()?)),
            _ => return Ok(None),
        }))
    }

    pub(crate) fn date_after_tag(&mut self, tag: u8) -> Result<Option<i64>, Error> {
        Ok(Some(match tag {
            BC_DATE => i64::from_be_bytes(self.array::<8>()?),
            BC_DATE_MINUTE => i64::from(i32::from_be_bytes(self.array::<4>()?)) * 60000,
            _ => return Ok(None),
        }))
    }

    /// Reads an int (any int form; long forms in `i32` range are accepted too).
    pub fn read_int(&mut self) -> Result<i32, Error> {
        let tag = self.byte()?;
        if let Some(v) = self.int_after_tag(tag)? {
            return Ok(v);
        }
        if let Some(v) = self.long_after_tag(tag)? {
            return i32::try_from(v).map_err(|_| Error::OutOfRange {
                value: v.to_string(),
                target: "int",
            });
        }
        Err(self.unexpected(tag, "int"))
    }

    /// Reads a long (any long or int form).
    pub fn read_long(&mut self) -> Result<i64, Error> {
        let tag = self.byte()?;
        if let Some(v) = self.long_after_tag(tag)? {
            return Ok(v);
        }
        if let Some(v) = self.int_after_tag(tag)? {
            return Ok(i64::from(v));
        }
        Err(self.unexpected(tag, "long"))
    }

    /// Reads a double (any double form; int and long forms are converted).
    pub fn read_double(&mut self) -> Result<f64, Error> {
        let tag = self.byte()?;
        if let Some(v) = self.double_after_tag(tag)? {
            return Ok(v);
        }
        if let Some(v) = self.int_after_tag(tag)? {
            return Ok(f64::from(v));
        }
        if let Some(v) = self.long_after_tag(tag)? {
            return Ok(v as f64);
        }
        Err(self.unexpected(tag, "double"))
    }

    /// Reads a boolean (`T` or `F`).
    pub fn read_bool(&mut self) -> Result<bool, Error> {
        match self.byte()? {
            BC_TRUE => Ok(true),
            BC_FALSE => Ok(false),
            t => Err(self.unexpected(t, "boolean")),
        }
    }

    /// Reads `N`; errors on anything else.
    pub fn read_null(&mut self) -> Result<(), Error> {
        match self.byte()? {
            BC_NULL => Ok(()),
            t => Err(self.unexpected(t, "null")),
        }
    }

    /// Reads a date, as milliseconds since the epoch.
    pub fn read_date(&mut self) -> Result<i64, Error> {
        let tag = self.byte()?;
        self.date_after_tag(tag)?
            .ok_or_else(|| self.unexpected(tag, "date"))
    }

    /// Reads a non-null string; `N` is an error.
    pub fn read_string(&mut self) -> Result<String, Error> {
        let tag = self.byte()?;
        if is_string_tag(tag) {
            self.string_after_tag(tag)
        } else {
            Err(self.unexpected(tag, "string"))
        }
    }

    /// Reads a string or `N`.
    pub fn read_nullable_string(&mut self) -> Result<Option<String>, Error> {
        match self.peek() {
            Some(BC_NULL) => {
                self.pos += 1;
                Ok(None)
            }
            _ => self.read_string().map(Some),
        }
    }

    /// Reads a `byte[]`, or `N` as `None`.
    pub fn read_nullable_binary(&mut self) -> Result<Option<Vec<u8>>, Error> {
        match self.byte()? {
            BC_NULL => Ok(None),
            t if is_binary_tag(t) => self.binary_after_tag(t).map(Some),
            t => Err(self.unexpected(t, "binary")),
        }
    }

    /// Reads a non-null `byte[]`.
    pub fn read_binary(&mut self) -> Result<Vec<u8>, Error> {
        let t = self.byte()?;
        if is_binary_tag(t) {
            self.binary_after_tag(t)
        } else {
            Err(self.unexpected(t, "binary"))
        }
    }

    // ----- strings ---------------------------------------------------------------------

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
    fn borrow_str_after_tag_general(&mut self, tag: u8) -> Option<&'de str> {
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
    fn final_chunk_header(&self, at: usize, tag: u8, kind: OneChunk) -> Option<(usize, usize)> {
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
    fn decode_units(
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

    // ----- binary --------------------------------------------------------------------------

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

    // ----- types and class definitions ---------------------------------------------------------

    /// Reads a type (string, or int index into the type table).
    pub(crate) fn read_type(&mut self) -> Result<Rc<str>, Error> {
        let tag = self.byte()?;
        if is_string_tag(tag) {
            let s: Rc<str> = Rc::from(self.string_after_tag(tag)?);
            // An empty type means "untyped" (Java refuses to write one).
            if self.replay == 0 {
                self.types.push(s.clone());
            }
            return Ok(s);
        }
        let start = self.pos - 1;
        match self.int_after_tag(tag)? {
            Some(i) => self
                .types
                .get(i as usize)
                .filter(|_| i >= 0)
                .cloned()
                .ok_or(Error::InvalidTypeRef {
                    index: i64::from(i),
                    position: start,
                }),
            None => Err(self.unexpected(tag, "type")),
        }
    }

    /// Reads a class definition after its `C` tag.
    pub(crate) fn read_class_def(&mut self) -> Result<(), Error> {
        // A stream per message repeats the same definitions over and over: look the
        // definition's bytes up before parsing (and allocating) its strings again.
        let start = self.pos;
        let input: &'de [u8] = self.input;
        // The definition's bytes, found (at most once) when the recent ones do not match.
        let mut key = None;
        let hit = class_def_cache::recent(input.get(start..).unwrap_or_default()).or_else(|| {
            let k = self
                .class_def_end(start)
                .and_then(|end| input.get(start..end))?;
            key = Some(k);
            class_def_cache::get(k).map(|def| (k.len(), def))
        });
        if let Some((len, def)) = hit {
            self.pos = start + len;
            if self.replay == 0 {
                self.classes.push(def);
            }
            return Ok(());
        }
        let def = Rc::new(self.parse_class_def()?);
        if let Some(key) = key {
            class_def_cache::put(key, &def);
        }
        if self.replay == 0 {
            self.classes.push(def);
        }
        Ok(())
    }

    /// The end of the class definition starting at `start` (after its `C`), if every
    /// part of it is a one-chunk string or an int and it is small enough to cache.
    fn class_def_end(&self, start: usize) -> Option<usize> {
        let string_end = |p: usize| match self.input.get(p) {
            Some(&t) if is_string_tag(t) && t != BC_STRING_CHUNK => self.skip_scalar(p),
            _ => None,
        };
        let mut p = string_end(start)?;
        let n = match *self.input.get(p)? {
            t @ 0x80..=0xbf => {
                p += 1;
                i32::from(t) - 0x90
            }
            _ => return None,
        };
        if !(0..=class_def_cache::MAX_FIELDS).contains(&n) {
            return None;
        }
        for _ in 0..n {
            p = string_end(p)?;
        }
        (p - start <= class_def_cache::MAX_BYTES).then_some(p)
    }

    fn parse_class_def(&mut self) -> Result<ClassDef, Error> {
        let name = self.read_string()?;
        let n = self.read_int()?;
        let n = self.check_len("class fields", i64::from(n), 1)?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            fields.push(self.read_string()?);
        }
        Ok(ClassDef { name, fields })
    }

    pub(crate) fn class_def(&self, idx: i64, position: usize) -> Result<Rc<ClassDef>, Error> {
        usize::try_from(idx)
            .ok()
            .and_then(|i| self.classes.get(i))
            .cloned()
            .ok_or(Error::InvalidClassRef {
                index: idx,
                position,
            })
    }

    /// Resolves a `Q` index: `Ok(Err(k))` for a container still being built (k levels
    /// out), `Ok(Ok(pos))` for a completed container starting at `pos`.
    pub(crate) fn resolve_ref(
        &self,
        idx: i32,
        position: usize,
    ) -> Result<Result<usize, u32>, Error> {
        if idx >= 0 {
            let u = idx as u32;
            if let Some(p) = self.building.iter().rposition(|&b| b == u) {
                return Ok(Err((self.building.len() - 1 - p) as u32));
            }
            if let Some(&start) = self.refs.get(idx as usize) {
                return Ok(Ok(start));
            }
        }
        Err(Error::InvalidRef {
            index: i64::from(idx),
            position,
        })
    }

    /// Runs `f` positioned at `start` in replay mode (re-reading a completed
    /// referenced value), then restores the position.
    pub(crate) fn replay_at<T>(
        &mut self,
        start: usize,
        ref_idx: u32,
        f: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        if self.replay_spent > self.limits.max_ref_replay {
            return Err(Error::RefExpansion {
                limit: self.limits.max_ref_replay,
            });
        }
        let saved_pos = self.pos;
        let saved_next = self.replay_next;
        self.pos = start;
        self.replay += 1;
        self.replay_next = ref_idx;
        let res = f(self);
        self.replay -= 1;
        self.replay_next = saved_next;
        let spent = self.pos.saturating_sub(start).max(1);
        self.replay_spent = self.replay_spent.saturating_add(spent);
        self.pos = saved_pos;
        if res.is_ok() && self.replay_spent > self.limits.max_ref_replay {
            return Err(Error::RefExpansion {
                limit: self.limits.max_ref_replay,
            });
        }
        res
    }

    // ----- values ------------------------------------------------------------------------------

    /// Reads the next value of any type into a [`Value`].
    pub fn read_value(&mut self) -> Result<Value, Error> {
        self.top_level(Self::value)
    }

    /// Runs one top-level read: after an error deep inside a value, the nesting state is
    /// back where it was, so the reader's tables stay usable for what follows.
    pub(crate) fn top_level<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let depth = self.depth;
        let building = self.building.len();
        let res = read(self);
        self.depth = depth;
        self.building.truncate(building);
        res
    }

    pub(crate) fn value(&mut self) -> Result<Value, Error> {
        loop {
            let start = self.pos;
            let tag = self.byte()?;
            return Ok(match tag {
                BC_NULL => Value::Null,
                BC_TRUE => Value::Bool(true),
                BC_FALSE => Value::Bool(false),
                0x80..=0xbf | 0xc0..=0xcf | 0xd0..=0xd7 | BC_INT => {
                    match self.int_after_tag(tag)? {
                        Some(v) => Value::Int(v),
                        None => return Err(self.unexpected(tag, "int")),
                    }
                }
                0xd8..=0xef | 0xf0..=0xff | 0x38..=0x3f | BC_LONG_INT | BC_LONG => {
                    match self.long_after_tag(tag)? {
                        Some(v) => Value::Long(v),
                        None => return Err(self.unexpected(tag, "long")),
                    }
                }
                BC_DOUBLE_ZERO..=BC_DOUBLE_MILL | BC_DOUBLE => match self.double_after_tag(tag)? {
                    Some(v) => Value::Double(v),
                    None => return Err(self.unexpected(tag, "double")),
                },
                BC_DATE | BC_DATE_MINUTE => match self.date_after_tag(tag)? {
                    Some(v) => Value::Date(v),
                    None => return Err(self.unexpected(tag, "date")),
                },
                t if is_string_tag(t) => Value::String(self.string_after_tag(t)?),
                t if is_binary_tag(t) => Value::Binary(self.binary_after_tag(t)?),
                BC_CLASS_DEF => {
                    self.read_class_def()?;
                    continue;
                }
                BC_REF => {
                    let idx = self.read_int()?;
                    match self.resolve_ref(idx, start)? {
                        Err(k) => Value::Ref(k),
                        Ok(pos) => self.replay_at(pos, idx as u32, |r| r.value())?,
                    }
                }
                BC_MAP_UNTYPED => self.map_body(start, None)?,
                BC_MAP => {
                    let t = self.read_type()?;
                    self.map_body(start, type_opt(&t))?
                }
                0x70..=0x77 => {
                    let t = self.read_type()?;
                    self.fixed_list(start, type_opt(&t), i64::from(tag - 0x70))?
                }
                0x78..=0x7f => self.fixed_list(start, None, i64::from(tag - 0x78))?,
                BC_LIST_FIXED => {
                    let t = self.read_type()?;
                    let n = self.read_int()?;
                    self.fixed_list(start, type_opt(&t), i64::from(n))?
                }
                BC_LIST_FIXED_UNTYPED => {
                    let n = self.read_int()?;
                    self.fixed_list(start, None, i64::from(n))?
                }
                BC_LIST_VARIABLE => {
                    let t = self.read_type()?;
                    self.variable_list(start, type_opt(&t))?
                }
                BC_LIST_VARIABLE_UNTYPED => self.variable_list(start, None)?,
                0x60..=0x6f => self.object_body(start, i64::from(tag - 0x60))?,
                BC_OBJECT => {
                    let idx = self.read_int()?;
                    self.object_body(start, i64::from(idx))?
                }
                t => return Err(self.unexpected(t, "value")),
            });
        }
    }

    fn map_body(&mut self, start: usize, type_name: Option<String>) -> Result<Value, Error> {
        self.enter()?;
        self.begin_ref(start);
        let mut entries = Vec::new();
        loop {
            match self.peek() {
                Some(BC_END) => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.truncated()),
                Some(_) => {}
            }
            if entries.len() >= self.limits.max_collection_len {
                return Err(Error::LengthLimit {
                    what: "map",
                    len: entries.len() as i64 + 1,
                    limit: self.limits.max_collection_len,
                });
            }
            let k = self.value()?;
            let v = self.value()?;
            entries.push((k, v));
        }
        self.end_ref();
        self.leave();
        Ok(Value::Map(Map { type_name, entries }))
    }

    fn fixed_list(
        &mut self,
        start: usize,
        type_name: Option<String>,
        len: i64,
    ) -> Result<Value, Error> {
        let len = self.check_len("list", len, 1)?;
        self.enter()?;
        self.begin_ref(start);
        let mut items = Vec::with_capacity(len);
        for _ in 0..len {
            items.push(self.value()?);
        }
        self.end_ref();
        self.leave();
        Ok(Value::List(List { type_name, items }))
    }

    fn variable_list(&mut self, start: usize, type_name: Option<String>) -> Result<Value, Error> {
        self.enter()?;
        self.begin_ref(start);
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some(BC_END) => {
                    self.pos += 1;
                    break;
                }
                None => return Err(self.truncated()),
                Some(_) => {}
            }
            if items.len() >= self.limits.max_collection_len {
                return Err(Error::LengthLimit {
                    what: "list",
                    len: items.len() as i64 + 1,
                    limit: self.limits.max_collection_len,
                });
            }
            items.push(self.value()?);
        }
        self.end_ref();
        self.leave();
        Ok(Value::List(List { type_name, items }))
    }

    fn object_body(&mut self, start: usize, def: i64) -> Result<Value, Error> {
        let def = self.class_def(def, start)?;
        self.enter()?;
        self.begin_ref(start);
        let mut fields = Vec::with_capacity(def.fields.len().min(self.remaining()));
        for name in &def.fields {
            let v = self.value()?;
            fields.push((name.clone(), v));
        }
        self.end_ref();
        self.leave();
        Ok(Value::Object(Object {
            class: def.name.clone(),
            fields,
        }))
    }
}

/// Which kind of one-chunk value [`Hessian2Reader::final_chunk_header`] reads.
#[derive(Clone, Copy)]
enum OneChunk {
    String,
    Binary,
}

/// Tags that start a string (or its first chunk).
#[inline]
pub(crate) fn is_string_tag(t: u8) -> bool {
    matches!(t, 0x00..=0x1f | 0x30..=0x33 | BC_STRING | BC_STRING_CHUNK)
}

/// Tags that start a binary (or its first chunk).
#[inline]
pub(crate) fn is_binary_tag(t: u8) -> bool {
    matches!(t, 0x20..=0x2f | 0x34..=0x37 | BC_BINARY | BC_BINARY_CHUNK)
}

/// A wire type as an optional name (an empty type means untyped).
#[inline]
fn type_opt(t: &str) -> Option<String> {
    if t.is_empty() {
        None
    } else {
        Some(t.to_owned())
    }
}

/// Parsed class definitions of this thread, by their encoded bytes. Bounded in entries
/// and key size; it holds no state that changes what a stream decodes to.
mod class_def_cache {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::rc::Rc;

    use super::ClassDef;
    use crate::fxhash::FxBuildHasher;

    /// Definitions with more fields than this are parsed every time.
    pub(super) const MAX_FIELDS: i32 = 47;
    /// Definitions longer than this (in bytes) are parsed every time.
    pub(super) const MAX_BYTES: usize = 2048;
    /// At this many entries the cache starts over (a stream of ever-new class names
    /// cannot grow it).
    const MAX_ENTRIES: usize = 256;

    thread_local! {
        static CACHE: RefCell<HashMap<Box<[u8]>, Rc<ClassDef>, FxBuildHasher>> =
            RefCell::new(HashMap::default());
    }

    /// How many definitions [`recent`] tries before hashing.
    const RECENT: usize = 4;

    /// A definition's bytes (after its `C`) and the definition.
    type Known = (Rc<[u8]>, Rc<ClassDef>);

    thread_local! {
        /// The definitions met last, newest first.
        static LAST: RefCell<Vec<Known>> = const { RefCell::new(Vec::new()) };
    }

    /// A definition met lately whose bytes start `input`, with its length. A definition
    /// delimits itself, so bytes equal to one already parsed parse to the same thing:
    /// this needs neither finding the end first nor hashing.
    pub(super) fn recent(input: &[u8]) -> Option<(usize, Rc<ClassDef>)> {
        LAST.try_with(|l| {
            let l = l.try_borrow().ok()?;
            l.iter()
                .find(|(key, _)| input.starts_with(key))
                .map(|(key, def)| (key.len(), Rc::clone(def)))
        })
        .ok()
        .flatten()
    }

    fn remember(key: &[u8], def: &Rc<ClassDef>) {
        let _ = LAST.try_with(|l| {
            if let Ok(mut l) = l.try_borrow_mut() {
                l.retain(|(k, _)| **k != *key);
                if l.len() >= RECENT {
                    l.pop();
                }
                l.insert(0, (Rc::from(key), Rc::clone(def)));
            }
        });
    }

    pub(super) fn get(key: &[u8]) -> Option<Rc<ClassDef>> {
        let def = CACHE
            .try_with(|c| c.try_borrow().ok().and_then(|c| c.get(key).cloned()))
            .ok()
            .flatten()?;
        remember(key, &def);
        Some(def)
    }

    pub(super) fn put(key: &[u8], def: &Rc<ClassDef>) {
        let _ = CACHE.try_with(|c| {
            if let Ok(mut c) = c.try_borrow_mut() {
                if c.len() >= MAX_ENTRIES {
                    c.clear();
                }
                c.insert(key.into(), Rc::clone(def));
            }
        });
        remember(key, def);
    }
}
