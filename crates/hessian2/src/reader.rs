//! [`Hessian2Reader`]: the decoder, with the tables of one Hessian 2 stream.
//!
//! Here: the reader's state, its byte-level primitives (and skipping a scalar). Reading, one
//! file per kind of value: [`scalars`], [`strings`] (and binaries), [`classes`] (types,
//! class definitions, back-references), [`values`] (a [`Value`](crate::Value) tree).

use std::rc::Rc;

use crate::constants::*;
use crate::error::Error;

mod classes;
mod scalars;
mod strings;
mod values;

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
    /// Back-references read so far (`Q`, and type names by index): what makes a value's
    /// bytes depend on what came before it in the stream.
    pub(crate) back_refs: std::cell::Cell<u64>,
    /// Object instances read so far (each names its class definition by index).
    pub(crate) instances: std::cell::Cell<u64>,
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
            back_refs: std::cell::Cell::new(0),
            instances: std::cell::Cell::new(0),
        }
    }

    /// Whether nothing read so far defined a class, a type name or a reference. The next
    /// value then reads the same from its own bytes as from this stream, so those bytes can
    /// be cut out and kept as a stream of their own (an [`Encoded`](crate::Encoded)).
    pub fn tables_are_empty(&self) -> bool {
        self.classes.is_empty() && self.types.is_empty() && self.refs.is_empty()
    }

    /// How many back-references (`Q` to an earlier object, a type name by its index) the
    /// stream has read so far. A value during which this does not change reads the same from
    /// its own bytes preceded by [`class_definitions`](Self::class_definitions), whatever
    /// came before it.
    pub fn back_references(&self) -> u64 {
        self.back_refs.get()
    }

    /// The first `count` class definitions read so far (all when fewer), encoded as `C`
    /// records: put before the bytes of a value read from this stream, they give its object
    /// instances the class indexes they have here.
    pub fn class_definitions(&self, count: usize) -> Vec<u8> {
        let mut w = crate::Hessian2Writer::new();
        for def in self.classes.iter().take(count) {
            w.buffer_mut().push(BC_CLASS_DEF);
            w.write_string(&def.name);
            w.write_int(i32::try_from(def.fields.len()).unwrap_or(i32::MAX));
            for f in &def.fields {
                w.write_string(f);
            }
        }
        w.into_bytes()
    }

    /// How many object instances the stream has read so far. A value during which this does
    /// not change uses no class definition, so it needs none put before its bytes.
    pub fn object_instances(&self) -> u64 {
        self.instances.get()
    }

    /// How many class definitions the stream has read so far.
    pub fn class_count(&self) -> usize {
        self.classes.len()
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
