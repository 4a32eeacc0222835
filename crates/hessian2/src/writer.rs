//! [`Hessian2Writer`]: the encoder, with the class-definition, type and reference
//! tables of one Hessian 2 stream.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use crate::constants::*;
use crate::error::Error;
use crate::fxhash::FxBuildHasher;
use crate::ser::layout::Layout;
use crate::value::{List, Map, Object, Value};

/// Field name that marks an enum constant inside values buffered by the serde
/// serializer (see `ser.rs`); such objects are ref-tracked per (class, name).
pub(crate) const ENUM_MARK: &str = "\u{0}enum";

/// Deepest [`Value`] nesting [`Hessian2Writer::write_value`] accepts.
pub const MAX_WRITE_DEPTH: usize = 1024;

#[derive(Debug, Clone)]
struct ClassEntry {
    index: usize,
    fields: ClassFields,
}

/// The field names of a class definition written in this stream.
#[derive(Debug, Clone)]
enum ClassFields {
    Owned(Vec<String>),
    /// A serde struct's layout (its wire names), shared instead of copied.
    Layout(Rc<Layout>),
}

impl ClassFields {
    fn eq<'a>(&self, n: usize, it: impl Iterator<Item = &'a str>) -> bool {
        match self {
            ClassFields::Owned(v) => v.len() == n && v.iter().map(String::as_str).eq(it),
            ClassFields::Layout(l) => {
                l.wire_names.len() == n && l.wire_names.iter().copied().eq(it)
            }
        }
    }
}

/// Encodes Hessian 2 exactly as Java's hessian-lite `Hessian2Output` does.
///
/// A writer holds the output buffer and the three tables of **one** Hessian stream:
/// class definitions, type names (for typed lists and maps) and object references.
/// Everything written through the same writer shares them, as the fields of one
/// `dubbo://` body do. Call [`reset_tables`](Self::reset_tables) to start a new
/// stream in the same buffer (Triple gives each wrapped argument a fresh stream).
///
/// Values written with the `write_*` primitives never fail; [`write_value`](Self::write_value)
/// and [`serialize`](Self::serialize) fail only on values that cannot be represented
/// (an out-of-range [`Value::Ref`], unsupported Rust types...).
///
/// The writer also mirrors hessian-lite's internal 8 KiB buffer position, because
/// hessian-lite splits `byte[]` into `A` chunks at its buffer boundaries; this is what
/// makes large binaries byte-identical to Java's. The mirrored buffer starts empty
/// at the current end of the output when the writer is created (including
/// [`with_buffer`](Self::with_buffer)) and at every [`reset_tables`](Self::reset_tables).
#[derive(Debug, Default)]
pub struct Hessian2Writer {
    pub(crate) buf: Vec<u8>,
    /// Index in `buf` of hessian-lite's buffer offset 0.
    jbase: usize,
    class_count: usize,
    ref_count: u32,
    /// Segment mode (see `ser.rs`): struct fields are being written out of wire order,
    /// to be moved into place when the struct ends. Any operation whose bytes would depend
    /// on that order (a new class definition or type name, a first enum constant, a
    /// back-reference to something allocated since `spec_ref_base`, a binary, whose
    /// chunking depends on the buffer position) writes nothing and sets `spec_failed`.
    pub(crate) spec: bool,
    pub(crate) spec_failed: bool,
    /// Reference count when segment mode began (references from there on are numbered
    /// in declaration order, not in wire order).
    spec_ref_base: u32,
    /// The tables, kept in a thread-local pool between writers (see [`Tables`]).
    t: Tables,
}

/// The stream's tables and the writer's work areas: their allocations are reused by
/// the next writer of the thread (a writer per message would otherwise allocate
/// several of them per message).
#[derive(Debug, Default)]
struct Tables {
    classes: HashMap<Cow<'static, str>, ClassEntry, FxBuildHasher>,
    types: HashMap<String, usize, FxBuildHasher>,
    enums: HashMap<String, HashMap<String, u32, FxBuildHasher>, FxBuildHasher>,
    /// JDK singletons (`Collections.emptyList()`...) already written: type -> ref.
    singletons: HashMap<&'static str, u32, FxBuildHasher>,
    /// Reference indexes of the containers `write_value` is inside of (for `Value::Ref`).
    ref_stack: Vec<u32>,
    /// Struct fields written out of wire order (see [`Slot`]), for all open structs.
    slots: Vec<Slot>,
    /// Scratch copy of a struct's segments while they are put in wire order.
    scratch: Vec<u8>,
    /// Per struct name (address and length of the serde name): its layout and its
    /// class-definition index in this stream, if written.
    structs: HashMap<(usize, usize), StructEntry, FxBuildHasher>,
}

thread_local! {
    static TABLES_POOL: std::cell::RefCell<Option<Tables>> = const { std::cell::RefCell::new(None) };
}

impl Tables {
    fn pooled() -> Tables {
        TABLES_POOL
            .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.take()))
            .ok()
            .flatten()
            .unwrap_or_default()
    }

    fn clear(&mut self) {
        self.classes.clear();
        self.types.clear();
        self.enums.clear();
        self.singletons.clear();
        self.ref_stack.clear();
        self.slots.clear();
        self.scratch.clear();
        self.structs.clear();
    }

    fn give_back(mut self) {
        // Bounded: do not keep what a huge message grew.
        if self.classes.capacity() > 4096
            || self.types.capacity() > 4096
            || self.enums.capacity() > 4096
            || self.ref_stack.capacity() > 4096
            || self.slots.capacity() > 4096
            || self.scratch.capacity() > 1 << 20
            || self.structs.capacity() > 4096
        {
            return;
        }
        self.clear();
        let _ = TABLES_POOL.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.is_none() {
                    *p = Some(self);
                }
            }
        });
    }
}

impl Drop for Hessian2Writer {
    fn drop(&mut self) {
        std::mem::take(&mut self.t).give_back();
    }
}

/// A serde struct's layout and its class-definition index in the stream (if written).
type StructEntry = (Rc<Layout>, Option<usize>);

/// A struct field written out of wire order.
#[derive(Debug, Default)]
pub(crate) enum Slot {
    /// Not written (yet): `N`.
    #[default]
    Empty,
    /// Bytes `start..end` of the buffer (inside the struct's segment area) that
    /// allocated `refs` references.
    Bytes { start: usize, end: usize, refs: u32 },
    /// A value to write when its turn comes (its bytes depend on the stream's tables).
    Value(Box<Value>),
}

/// Writer state saved when a struct starts writing segments.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SegState {
    base: usize,
    jbase: usize,
    slots: usize,
    spec: bool,
    spec_ref_base: u32,
}

/// Writer state saved at the start of one segment (one field).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldMark {
    start: usize,
    jbase: usize,
    refs: u32,
    ref_stack: usize,
    failed: bool,
}

impl Hessian2Writer {
    /// A writer with an empty buffer and empty tables.
    pub fn new() -> Self {
        Self::with_buffer(Vec::new())
    }

    /// A writer appending to `buf` (whose existing bytes are kept, e.g. a reserved
    /// protocol header), with empty tables.
    pub fn with_buffer(buf: Vec<u8>) -> Self {
        let jbase = buf.len();
        Hessian2Writer {
            buf,
            jbase,
            class_count: 0,
            ref_count: 0,
            spec: false,
            spec_failed: false,
            spec_ref_base: 0,
            t: Tables::pooled(),
        }
    }

    /// Starts a fresh stream: forgets class definitions, type names and references
    /// (as a new Java `Hessian2Output` would), keeping the bytes written so far.
    pub fn reset_tables(&mut self) {
        self.t.classes.clear();
        self.t.structs.clear();
        self.class_count = 0;
        self.t.types.clear();
        self.ref_count = 0;
        self.t.enums.clear();
        self.t.singletons.clear();
        self.t.ref_stack.clear();
        self.jbase = self.buf.len();
    }

    /// The bytes written so far (including any prefix given to [`with_buffer`](Self::with_buffer)).
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Consumes the writer and returns its buffer.
    pub fn into_bytes(mut self) -> Vec<u8> {
        std::mem::take(&mut self.buf)
    }

    /// Number of bytes in the buffer.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// `true` when the buffer is empty.
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Direct access to the buffer, e.g. to patch a length into a header reserved
    /// before the body. Bytes appended here are not Hessian values the tables know of.
    pub fn buffer_mut(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Number of references (lists, maps, objects) allocated so far in this stream.
    pub fn ref_count(&self) -> u32 {
        self.ref_count
    }

    // ----- hessian-lite buffer mirror -------------------------------------------

    #[inline]
    fn jo(&self) -> usize {
        self.buf.len().saturating_sub(self.jbase)
    }

    #[inline]
    fn jflush(&mut self) {
        self.jbase = self.buf.len();
    }

    /// `if (SIZE <= offset + k) flushBuffer();`
    #[inline]
    fn flush_le(&mut self, k: usize) {
        if JAVA_BUFFER_SIZE <= self.jo() + k {
            self.jflush();
        }
    }

    /// `if (SIZE < offset + k) flushBuffer();`
    #[inline]
    fn flush_lt(&mut self, k: usize) {
        if JAVA_BUFFER_SIZE < self.jo() + k {
            self.jflush();
        }
    }

    // ----- primitives --------------------------------------------------------------

    /// Writes `N`.
    pub fn write_null(&mut self) {
        self.flush_le(16);
        self.buf.push(BC_NULL);
    }

    /// Writes `T` or `F`.
    pub fn write_bool(&mut self, v: bool) {
        self.flush_lt(16);
        self.buf.push(if v { BC_TRUE } else { BC_FALSE });
    }

    /// Writes an int in its most compact form (1, 2, 3 or 5 bytes).
    pub fn write_int(&mut self, v: i32) {
        self.flush_le(16);
        self.put_int(v);
    }

    #[inline]
    fn put_int(&mut self, v: i32) {
        if (INT_DIRECT_MIN..=INT_DIRECT_MAX).contains(&v) {
            self.buf.push((v + BC_INT_ZERO as i32) as u8);
        } else if (INT_BYTE_MIN..=INT_BYTE_MAX).contains(&v) {
            self.buf
                .extend_from_slice(&[(BC_INT_BYTE_ZERO as i32 + (v >> 8)) as u8, v as u8]);
        } else if (INT_SHORT_MIN..=INT_SHORT_MAX).contains(&v) {
            self.buf.extend_from_slice(&[
                (BC_INT_SHORT_ZERO as i32 + (v >> 16)) as u8,
                (v >> 8) as u8,
                v as u8,
            ]);
        } else {
            self.buf.push(BC_INT);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// Writes a long in its most compact form (1, 2, 3, 5 or 9 bytes).
    pub fn write_long(&mut self, v: i64) {
        self.flush_le(16);
        if (LONG_DIRECT_MIN..=LONG_DIRECT_MAX).contains(&v) {
            self.buf.push((v + BC_LONG_ZERO as i64) as u8);
        } else if (LONG_BYTE_MIN..=LONG_BYTE_MAX).contains(&v) {
            self.buf
                .extend_from_slice(&[(BC_LONG_BYTE_ZERO as i64 + (v >> 8)) as u8, v as u8]);
        } else if (LONG_SHORT_MIN..=LONG_SHORT_MAX).contains(&v) {
            self.buf.extend_from_slice(&[
                (BC_LONG_SHORT_ZERO as i64 + (v >> 16)) as u8,
                (v >> 8) as u8,
                v as u8,
            ]);
        } else if i64::from(i32::MIN) <= v && v <= i64::from(i32::MAX) {
            self.buf.push(BC_LONG_INT);
            self.buf.extend_from_slice(&(v as i32).to_be_bytes());
        } else {
            self.buf.push(BC_LONG);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// Writes a double in hessian-lite's most compact form: `5b` (0.0, also -0.0),
    /// `5c` (1.0), byte, short, the 32-bit "mills" form (`0.001 * i32` exactly), or `D`.
    pub fn write_double(&mut self, v: f64) {
        self.flush_le(16);
        // Rust's `as` saturates and maps NaN to 0, exactly like Java's (int) cast.
        let iv = v as i32;
        if f64::from(iv) == v {
            if iv == 0 {
                self.buf.push(BC_DOUBLE_ZERO);
                return;
            } else if iv == 1 {
                self.buf.push(BC_DOUBLE_ONE);
                return;
            } else if (-0x80..0x80).contains(&iv) {
                self.buf.extend_from_slice(&[BC_DOUBLE_BYTE, iv as u8]);
                return;
            } else if (-0x8000..0x8000).contains(&iv) {
                self.buf
                    .extend_from_slice(&[BC_DOUBLE_SHORT, (iv >> 8) as u8, iv as u8]);
                return;
            }
        }
        let mills = (v * 1000.0) as i32;
        if 0.001 * f64::from(mills) == v {
            self.buf.push(BC_DOUBLE_MILL);
            self.buf.extend_from_slice(&mills.to_be_bytes());
            return;
        }
        self.buf.push(BC_DOUBLE);
        self.buf.extend_from_slice(&v.to_bits().to_be_bytes());
    }

    /// Writes a `java.util.Date`: `K` + minutes when `millis` is a whole minute, else `J` + millis.
    pub fn write_date(&mut self, millis: i64) {
        self.flush_lt(32);
        if millis % 60000 == 0 {
            let minutes = millis / 60000;
            if (minutes >> 31) == 0 || (minutes >> 31) == -1 {
                self.buf.push(BC_DATE_MINUTE);
                self.buf.extend_from_slice(&(minutes as i32).to_be_bytes());
                return;
            }
        }
        self.buf.push(BC_DATE);
        self.buf.extend_from_slice(&millis.to_be_bytes());
    }

    /// Writes a string: UTF-16 lengths, CESU-8 bytes (a supplementary character is two
    /// 3-byte surrogates), chunks of 0x8000 units marked `R`, never splitting a pair.
    #[inline]
    pub fn write_string(&mut self, v: &str) {
        let b = v.as_bytes();
        let n = b.len();
        // Fast path: a short ASCII string that fits in hessian-lite's buffer without a
        // flush (then the mirrored position needs no adjustment either).
        if n <= 16 && self.jo() + n + 2 + 16 <= JAVA_BUFFER_SIZE {
            if let Some(padded) = short_ascii(b) {
                let len = self.buf.len();
                self.buf.reserve(17);
                self.buf.push(BC_STRING_DIRECT + n as u8);
                self.buf.extend_from_slice(&padded);
                self.buf.truncate(len + 1 + n);
                return;
            }
        } else if n <= STRING_SHORT_MAX
            && self.jo() + n + 2 + 16 <= JAVA_BUFFER_SIZE
            && b.is_ascii()
        {
            if n <= STRING_DIRECT_MAX {
                self.buf.reserve(n + 1);
                self.buf.push(BC_STRING_DIRECT + n as u8);
            } else {
                self.buf.reserve(n + 2);
                self.buf
                    .extend_from_slice(&[BC_STRING_SHORT + (n >> 8) as u8, n as u8]);
            }
            crate::copy::extend(&mut self.buf, b);
            return;
        }
        self.write_string_slow(v);
    }

    #[inline(never)]
    fn write_string_slow(&mut self, v: &str) {
        self.flush_le(16);
        if v.is_ascii() {
            self.write_ascii_string(v.as_bytes());
        } else {
            self.write_unicode_string(v);
        }
    }

    fn string_header(&mut self, units: usize) {
        if units <= STRING_DIRECT_MAX {
            self.buf.push(BC_STRING_DIRECT + units as u8);
        } else if units <= STRING_SHORT_MAX {
            self.buf
                .extend_from_slice(&[BC_STRING_SHORT + (units >> 8) as u8, units as u8]);
        } else {
            self.buf
                .extend_from_slice(&[BC_STRING, (units >> 8) as u8, units as u8]);
        }
    }

    fn write_ascii_string(&mut self, mut rest: &[u8]) {
        while rest.len() > STRING_CHUNK_MAX {
            let (chunk, r) = rest.split_at(STRING_CHUNK_MAX);
            self.flush_le(16);
            self.buf.extend_from_slice(&[BC_STRING_CHUNK, 0x80, 0x00]);
            self.print_ascii(chunk);
            rest = r;
        }
        self.flush_le(16);
        self.string_header(rest.len());
        self.print_ascii(rest);
    }

    /// Appends ASCII chars, mirroring `printString`'s per-char flush check.
    fn print_ascii(&mut self, b: &[u8]) {
        const T: usize = JAVA_BUFFER_SIZE - 16;
        let o = self.jo();
        let n = b.len();
        crate::copy::extend(&mut self.buf, b);
        let new_o = if o + n <= T {
            o + n
        } else {
            let first = T.saturating_sub(o);
            let r = n - first;
            ((r - 1) % T) + 1
        };
        self.jbase = self.buf.len() - new_o;
    }

    /// Appends one UTF-16 unit's CESU-8 bytes, with `printString`'s flush check.
    #[inline]
    fn print_unit(&mut self, ch: u32) {
        self.flush_le(16);
        if ch < 0x80 {
            self.buf.push(ch as u8);
        } else if ch < 0x800 {
            self.buf
                .extend_from_slice(&[0xc0 | (ch >> 6) as u8, 0x80 | (ch & 0x3f) as u8]);
        } else {
            self.buf.extend_from_slice(&[
                0xe0 | ((ch >> 12) & 0xf) as u8,
                0x80 | ((ch >> 6) & 0x3f) as u8,
                0x80 | (ch & 0x3f) as u8,
            ]);
        }
    }

    #[inline]
    fn print_char(&mut self, c: char) {
        let cp = c as u32;
        if cp < 0x10000 {
            self.print_unit(cp);
        } else {
            let v = cp - 0x10000;
            self.print_unit(0xd800 | (v >> 10));
            self.print_unit(0xdc00 | (v & 0x3ff));
        }
    }

    fn write_unicode_string(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut chars_n = 0usize;
        let mut supp = 0usize;
        for &b in bytes {
            if (b & 0xc0) != 0x80 {
                chars_n += 1;
            }
            if b >= 0xf0 {
                supp += 1;
            }
        }
        let mut remaining = chars_n + supp;
        let mut it = s.chars().peekable();
        while remaining > STRING_CHUNK_MAX {
            self.flush_le(16);
            let hdr = self.buf.len();
            self.buf.extend_from_slice(&[BC_STRING_CHUNK, 0, 0]);
            let mut units = 0usize;
            while let Some(&c) = it.peek() {
                let w = c.len_utf16();
                if units + w > STRING_CHUNK_MAX {
                    break;
                }
                it.next();
                self.print_char(c);
                units += w;
            }
            self.buf[hdr + 1] = (units >> 8) as u8;
            self.buf[hdr + 2] = units as u8;
            remaining -= units;
        }
        self.flush_le(16);
        self.string_header(remaining);
        if supp == 0 && remaining == chars_n {
            // BMP only and not chunked: UTF-8 is CESU-8.
            const T: usize = JAVA_BUFFER_SIZE - 16;
            if self.jo() + bytes.len() <= T {
                crate::copy::extend(&mut self.buf, bytes);
                return;
            }
        }
        for c in it {
            self.print_char(c);
        }
    }

    /// Writes a `byte[]`: `0x20+len`, `0x34`-form, or `B`, split into `A` chunks at
    /// the same places hessian-lite's 8 KiB buffer splits them.
    pub fn write_binary(&mut self, v: &[u8]) {
        if self.spec {
            self.spec_failed = true;
            return;
        }
        self.buf
            .reserve(v.len() + 3 * (v.len() / (JAVA_BUFFER_SIZE - 3) + 2));
        let mut off = 0usize;
        let mut length = v.len();
        loop {
            let o = self.jo() as isize;
            let room = JAVA_BUFFER_SIZE as isize - o - 3;
            if room >= length as isize {
                break;
            }
            let mut sublen = room;
            if sublen < 16 {
                self.jflush();
                sublen = JAVA_BUFFER_SIZE as isize - 3;
                if (length as isize) < sublen {
                    sublen = length as isize;
                }
            }
            let sublen = sublen as usize;
            self.buf
                .extend_from_slice(&[BC_BINARY_CHUNK, (sublen >> 8) as u8, sublen as u8]);
            crate::copy::extend(&mut self.buf, &v[off..off + sublen]);
            length -= sublen;
            off += sublen;
            self.jflush();
        }
        self.flush_lt(16);
        if length <= BINARY_DIRECT_MAX {
            self.buf.push(BC_BINARY_DIRECT + length as u8);
        } else if length <= BINARY_SHORT_MAX {
            self.buf
                .extend_from_slice(&[BC_BINARY_SHORT + (length >> 8) as u8, length as u8]);
        } else {
            self.buf
                .extend_from_slice(&[BC_BINARY, (length >> 8) as u8, length as u8]);
        }
        crate::copy::extend(&mut self.buf, &v[off..]);
    }

    // ----- containers -------------------------------------------------------------

    /// Allocates the next reference index, as Java does at the start of every list,
    /// map, array, object, enum or `BigDecimal`.
    pub fn alloc_ref(&mut self) -> u32 {
        let r = self.ref_count;
        self.ref_count = self.ref_count.wrapping_add(1);
        r
    }

    /// Writes a back-reference `Q` to reference index `index`.
    pub fn write_ref(&mut self, index: u32) {
        if self.spec && index >= self.spec_ref_base {
            self.spec_failed = true;
            return;
        }
        self.flush_lt(16);
        self.buf.push(BC_REF);
        self.put_int(index as i32);
    }

    fn write_type(&mut self, type_name: &str) {
        self.flush_lt(32);
        if let Some(&idx) = self.t.types.get(type_name) {
            self.write_int(idx as i32);
        } else if self.spec {
            self.spec_failed = true;
        } else {
            let idx = self.t.types.len();
            self.t.types.insert(type_name.to_owned(), idx);
            self.write_string(type_name);
        }
    }

    /// Starts a fixed-length list and allocates its reference: `0x78+len`/`X len`
    /// when `type_name` is `None` (an `ArrayList`), `0x70+len type`/`V type len`
    /// otherwise. The caller then writes exactly `len` values; there is no end marker.
    /// Returns the list's reference index. An empty `type_name` counts as `None`.
    pub fn write_list_begin(&mut self, len: usize, type_name: Option<&str>) -> u32 {
        let r = self.alloc_ref();
        self.flush_lt(32);
        let type_name = type_name.filter(|t| !t.is_empty());
        if len <= LIST_DIRECT_MAX {
            match type_name {
                Some(t) => {
                    self.buf.push(BC_LIST_DIRECT + len as u8);
                    self.write_type(t);
                }
                None => self.buf.push(BC_LIST_DIRECT_UNTYPED + len as u8),
            }
        } else {
            match type_name {
                Some(t) => {
                    self.buf.push(BC_LIST_FIXED);
                    self.write_type(t);
                }
                None => self.buf.push(BC_LIST_FIXED_UNTYPED),
            }
            self.write_int(len as i32);
        }
        r
    }

    /// Starts a variable-length list (`W`, or `U type`) and allocates its reference;
    /// finish it with [`write_list_end`](Self::write_list_end).
    pub fn write_variable_list_begin(&mut self, type_name: Option<&str>) -> u32 {
        let r = self.alloc_ref();
        self.flush_lt(32);
        match type_name.filter(|t| !t.is_empty()) {
            Some(t) => {
                self.buf.push(BC_LIST_VARIABLE);
                self.write_type(t);
            }
            None => self.buf.push(BC_LIST_VARIABLE_UNTYPED),
        }
        r
    }

    /// Ends a variable-length list (`Z`).
    pub fn write_list_end(&mut self) {
        self.flush_lt(32);
        self.buf.push(BC_END);
    }

    /// Starts a map and allocates its reference: `H` for `None` (a `HashMap`), `M type`
    /// otherwise. Write key, value pairs, then [`write_map_end`](Self::write_map_end).
    pub fn write_map_begin(&mut self, type_name: Option<&str>) -> u32 {
        let r = self.alloc_ref();
        self.flush_lt(32);
        match type_name.filter(|t| !t.is_empty()) {
            Some(t) => {
                self.buf.push(BC_MAP);
                self.write_type(t);
            }
            None => self.buf.push(BC_MAP_UNTYPED),
        }
        r
    }

    /// Ends a map (`Z`).
    pub fn write_map_end(&mut self) {
        self.flush_lt(32);
        self.buf.push(BC_END);
    }

    /// Starts an object instance and allocates its reference: writes the class
    /// definition `C` the first time `class` is used in this stream (or when it is
    /// used with a different field list), then the instance tag (`0x60+def` or
    /// `O def`). The caller then writes one value per field, in `fields` order.
    /// Returns the object's reference index.
    pub fn write_object_begin(&mut self, class: &str, fields: &[&str]) -> u32 {
        let r = self.alloc_ref();
        self.object_header(class, fields.len(), || fields.iter().copied());
        r
    }

    /// Writes the class definition (if needed) and the instance tag, without
    /// allocating a reference.
    /// Returns the class-definition index, or `None` in segment mode when the
    /// definition would have to be written (nothing is written then).
    pub(crate) fn object_header<'a, I, F>(
        &mut self,
        class: &str,
        n: usize,
        fields: F,
    ) -> Option<usize>
    where
        I: Iterator<Item = &'a str>,
        F: Fn() -> I,
    {
        let idx = match self.t.classes.get(class) {
            Some(e) if e.fields.eq(n, fields()) => e.index,
            _ if self.spec => {
                self.spec_failed = true;
                return None;
            }
            _ => {
                let names = fields().map(str::to_owned).collect();
                self.write_class_def(
                    Cow::Owned(class.to_owned()),
                    n,
                    fields(),
                    ClassFields::Owned(names),
                )
            }
        };
        self.object_tag(idx);
        Some(idx)
    }

    /// [`object_header`](Self::object_header) for a serde struct: the class
    /// definition keeps the name and the layout instead of copies of them.
    pub(crate) fn object_header_layout(
        &mut self,
        class: &'static str,
        layout: &Rc<Layout>,
    ) -> Option<usize> {
        let wire = &layout.wire_names;
        let idx = match self.t.classes.get(class) {
            Some(e)
                if matches!(&e.fields, ClassFields::Layout(l) if Rc::ptr_eq(l, layout))
                    || e.fields.eq(wire.len(), wire.iter().copied()) =>
            {
                e.index
            }
            _ if self.spec => {
                self.spec_failed = true;
                return None;
            }
            _ => self.write_class_def(
                Cow::Borrowed(class),
                wire.len(),
                wire.iter().copied(),
                ClassFields::Layout(layout.clone()),
            ),
        };
        self.object_tag(idx);
        Some(idx)
    }

    /// Writes a class definition `C` and registers it; returns its index.
    fn write_class_def<'a>(
        &mut self,
        class: Cow<'static, str>,
        n: usize,
        names: impl Iterator<Item = &'a str>,
        fields: ClassFields,
    ) -> usize {
        let index = self.class_count;
        self.class_count += 1;
        self.flush_lt(32);
        self.buf.push(BC_CLASS_DEF);
        self.write_string(&class);
        self.write_int(n as i32);
        for f in names {
            self.write_string(f);
        }
        let old = self.t.classes.insert(class, ClassEntry { index, fields });
        if old.is_some() {
            // A class name redefined with other fields: forget cached indexes.
            self.t.structs.clear();
        }
        index
    }

    /// Writes the instance tag of class definition `idx` (`0x60+idx` or `O idx`).
    #[inline]
    pub(crate) fn object_tag(&mut self, idx: usize) {
        self.flush_lt(32);
        if idx <= OBJECT_DIRECT_MAX {
            self.buf.push(BC_OBJECT_DIRECT + idx as u8);
        } else {
            self.buf.push(BC_OBJECT);
            self.write_int(idx as i32);
        }
    }

    /// Writes a Java enum constant (`class` with the single field `name`). Like Java,
    /// which tracks enum constants by identity, the second write of the same
    /// (class, name) in a stream is a back-reference `Q`.
    pub fn write_enum(&mut self, class: &str, name: &str) {
        if let Some(&r) = self.t.enums.get(class).and_then(|m| m.get(name)) {
            self.write_ref(r);
            return;
        }
        if self.spec {
            self.spec_failed = true;
            return;
        }
        let r = self.alloc_ref();
        self.t
            .enums
            .entry(class.to_owned())
            .or_default()
            .insert(name.to_owned(), r);
        self.object_header(class, 1, || std::iter::once("name"));
        self.write_string(name);
    }

    // ----- dynamic values ------------------------------------------------------------

    /// Writes a [`Value`] tree. Lists with `type_name: None` use the untyped fixed
    /// form, typed lists the typed fixed form; maps use `H` or `M type`; objects get
    /// their class definition on first use. [`Value::Ref`]`(k)` becomes a `Q` to the
    /// k-th enclosing container (0 = innermost) and is an error outside one.
    pub fn write_value(&mut self, v: &Value) -> Result<(), Error> {
        let base = self.t.ref_stack.len();
        let res = self.write_value_inner(v, 0, false);
        self.t.ref_stack.truncate(base);
        res
    }

    fn write_value_inner(&mut self, v: &Value, depth: usize, marks: bool) -> Result<(), Error> {
        if depth > MAX_WRITE_DEPTH {
            return Err(Error::DepthExceeded {
                limit: MAX_WRITE_DEPTH,
            });
        }
        match v {
            Value::Null => self.write_null(),
            Value::Bool(b) => self.write_bool(*b),
            Value::Int(i) => self.write_int(*i),
            Value::Long(l) => self.write_long(*l),
            Value::Double(d) => self.write_double(*d),
            Value::String(s) => self.write_string(s),
            Value::Binary(b) => self.write_binary(b),
            Value::Date(d) => self.write_date(*d),
            Value::List(List { type_name, items }) => {
                if items.is_empty() {
                    if let Some(t) = type_name.as_deref().and_then(singleton_type) {
                        if let Some(&r) = self.t.singletons.get(t) {
                            self.write_ref(r);
                            return Ok(());
                        }
                        if self.spec {
                            self.spec_failed = true;
                            return Ok(());
                        }
                        let r = self.write_list_begin(0, Some(t));
                        self.t.singletons.insert(t, r);
                        return Ok(());
                    }
                }
                let r = self.write_list_begin(items.len(), type_name.as_deref());
                self.t.ref_stack.push(r);
                for item in items {
                    self.write_value_inner(item, depth + 1, marks)?;
                }
                self.t.ref_stack.pop();
            }
            Value::Map(Map { type_name, entries }) => {
                if entries.is_empty() {
                    if let Some(t) = type_name.as_deref().and_then(singleton_type) {
                        if let Some(&r) = self.t.singletons.get(t) {
                            self.write_ref(r);
                            return Ok(());
                        }
                        if self.spec {
                            self.spec_failed = true;
                            return Ok(());
                        }
                        let r = self.write_map_begin(Some(t));
                        self.write_map_end();
                        self.t.singletons.insert(t, r);
                        return Ok(());
                    }
                }
                let r = self.write_map_begin(type_name.as_deref());
                self.t.ref_stack.push(r);
                for (k, val) in entries {
                    self.write_value_inner(k, depth + 1, marks)?;
                    self.write_value_inner(val, depth + 1, marks)?;
                }
                self.t.ref_stack.pop();
                self.write_map_end();
            }
            Value::Object(Object { class, fields }) => {
                if marks && fields.len() == 1 && fields[0].0 == ENUM_MARK {
                    if let Value::String(name) = &fields[0].1 {
                        self.write_enum(class, name);
                        return Ok(());
                    }
                }
                let r = self.alloc_ref();
                self.object_header(class, fields.len(), || {
                    fields.iter().map(|(k, _)| k.as_str())
                });
                self.t.ref_stack.push(r);
                for (_, val) in fields {
                    self.write_value_inner(val, depth + 1, marks)?;
                }
                self.t.ref_stack.pop();
            }
            Value::Ref(k) => {
                let k = *k as usize;
                let n = self.t.ref_stack.len();
                if k >= n {
                    return Err(Error::InvalidRef {
                        index: k as i64,
                        position: self.buf.len(),
                    });
                }
                let r = self.t.ref_stack[n - 1 - k];
                self.write_ref(r);
            }
        }
        Ok(())
    }

    // ----- struct fields out of wire order (see ser.rs) ---------------------------------

    /// The cached layout and class index for struct name `name`.
    #[inline]
    pub(crate) fn struct_entry(&self, name: &'static str) -> Option<(&Rc<Layout>, Option<usize>)> {
        self.t
            .structs
            .get(&(name.as_ptr() as usize, name.len()))
            .map(|(l, i)| (l, *i))
    }

    pub(crate) fn set_struct_entry(
        &mut self,
        name: &'static str,
        layout: Rc<Layout>,
        idx: Option<usize>,
    ) {
        self.t
            .structs
            .insert((name.as_ptr() as usize, name.len()), (layout, idx));
    }

    /// Starts writing the fields of a struct with `n` wire positions out of order:
    /// from here on, fields are written as segments at the end of the buffer.
    pub(crate) fn seg_begin(&mut self, n: usize) -> SegState {
        let st = SegState {
            base: self.buf.len(),
            jbase: self.jbase,
            slots: self.t.slots.len(),
            spec: self.spec,
            spec_ref_base: self.spec_ref_base,
        };
        self.t.slots.resize_with(st.slots + n, Slot::default);
        if !self.spec {
            self.spec = true;
            self.spec_ref_base = self.ref_count;
        }
        st
    }

    /// Starts one segment.
    #[inline]
    pub(crate) fn seg_field_begin(&mut self) -> FieldMark {
        let m = FieldMark {
            start: self.buf.len(),
            jbase: self.jbase,
            refs: self.ref_count,
            ref_stack: self.t.ref_stack.len(),
            failed: self.spec_failed,
        };
        self.spec_failed = false;
        m
    }

    /// Ends one segment: `true` if its bytes are kept for wire slot `slot`; `false`
    /// if it depended on the order (its bytes are dropped: write it as a value).
    #[inline]
    pub(crate) fn seg_field_end(&mut self, st: &SegState, m: FieldMark, slot: usize) -> bool {
        let ok = !self.spec_failed;
        if ok {
            let refs = self.ref_count.wrapping_sub(m.refs);
            if let Some(s) = self.t.slots.get_mut(st.slots + slot) {
                *s = Slot::Bytes {
                    start: m.start,
                    end: self.buf.len(),
                    refs,
                };
            }
        } else {
            self.buf.truncate(m.start);
            self.t.ref_stack.truncate(m.ref_stack);
            self.jbase = m.jbase;
        }
        // References are counted when the bytes reach their wire position.
        self.ref_count = m.refs;
        self.spec_failed = m.failed;
        ok
    }

    /// Sets wire slot `slot` to a buffered value.
    pub(crate) fn seg_value(&mut self, st: &SegState, slot: usize, v: Value) {
        if let Some(s) = self.t.slots.get_mut(st.slots + slot) {
            *s = Slot::Value(Box::new(v));
        }
    }

    /// Ends segment mode: writes wire slots `from..n` in order (segments moved into
    /// place, buffered values written, missing ones as `N`).
    pub(crate) fn seg_finish(&mut self, st: SegState, from: usize, n: usize) -> Result<(), Error> {
        self.spec = st.spec;
        self.spec_ref_base = st.spec_ref_base;
        let mut scratch = std::mem::take(&mut self.t.scratch);
        scratch.clear();
        crate::copy::extend(&mut scratch, self.buf.get(st.base..).unwrap_or_default());
        self.buf.truncate(st.base);
        self.jbase = st.jbase;
        self.buf.reserve(scratch.len());
        // No struct starts while the slots are written: take them out.
        let mut slots = std::mem::take(&mut self.t.slots);
        let mut res = Ok(());
        for slot in slots.get(st.slots + from..st.slots + n).unwrap_or_default() {
            match slot {
                Slot::Empty => self.write_null(),
                Slot::Bytes { start, end, refs } => {
                    let bytes = scratch
                        .get(start - st.base..end - st.base)
                        .unwrap_or_default();
                    self.flush_le(16);
                    let o = self.jo();
                    if o + bytes.len() <= JAVA_BUFFER_SIZE - 16 {
                        crate::copy::extend(&mut self.buf, bytes);
                    } else {
                        self.print_ascii(bytes);
                    }
                    self.ref_count = self.ref_count.wrapping_add(*refs);
                }
                Slot::Value(v) => {
                    if let Err(e) = self.write_value_at_depth(v) {
                        res = Err(e);
                        break;
                    }
                }
            }
        }
        slots.truncate(st.slots);
        self.t.slots = slots;
        if scratch.capacity() <= 1 << 20 {
            self.t.scratch = scratch;
        }
        res
    }

    /// Clears segment state after a failed `serialize`.
    pub(crate) fn seg_reset(&mut self) {
        self.spec = false;
        self.spec_failed = false;
        self.t.slots.clear();
    }

    /// Pushes a container's reference on the stack used to resolve [`Value::Ref`].
    pub(crate) fn push_ref_scope(&mut self, r: u32) {
        self.t.ref_stack.push(r);
    }

    pub(crate) fn pop_ref_scope(&mut self) {
        self.t.ref_stack.pop();
    }

    pub(crate) fn write_value_at_depth(&mut self, v: &Value) -> Result<(), Error> {
        let depth = self.t.ref_stack.len();
        self.write_value_inner(v, depth, true)
    }
}

/// `b` (at most 16 bytes) padded to 16 bytes, if it is all ASCII: two overlapping
/// word loads check and copy it without a loop or a `memcpy` call.
#[inline(always)]
fn short_ascii(b: &[u8]) -> Option<[u8; 16]> {
    let n = b.len();
    let mut out = [0u8; 16];
    if (8..=16).contains(&n) {
        let lo = <[u8; 8]>::try_from(&b[..8]).unwrap_or([0x80; 8]);
        let hi = <[u8; 8]>::try_from(&b[n - 8..]).unwrap_or([0x80; 8]);
        if (u64::from_ne_bytes(lo) | u64::from_ne_bytes(hi)) & 0x8080_8080_8080_8080 != 0 {
            return None;
        }
        out[..8].copy_from_slice(&lo);
        out[n - 8..n].copy_from_slice(&hi);
    } else if (4..8).contains(&n) {
        let lo = <[u8; 4]>::try_from(&b[..4]).unwrap_or([0x80; 4]);
        let hi = <[u8; 4]>::try_from(&b[n - 4..]).unwrap_or([0x80; 4]);
        if (u32::from_ne_bytes(lo) | u32::from_ne_bytes(hi)) & 0x8080_8080 != 0 {
            return None;
        }
        out[..4].copy_from_slice(&lo);
        out[n - 4..n].copy_from_slice(&hi);
    } else if n < 4 {
        for (o, &c) in out.iter_mut().zip(b) {
            if c >= 0x80 {
                return None;
            }
            *o = c;
        }
    } else {
        return None;
    }
    Some(out)
}

/// JDK empty-collection singletons, which Java writes once per stream and then as `Q`
/// (e.g. `Throwable.suppressedExceptions`' sentinel `Collections.emptyList()`).
fn singleton_type(t: &str) -> Option<&'static str> {
    match t {
        "java.util.Collections$EmptyList" => Some("java.util.Collections$EmptyList"),
        "java.util.Collections$EmptySet" => Some("java.util.Collections$EmptySet"),
        "java.util.Collections$EmptyMap" => Some("java.util.Collections$EmptyMap"),
        _ => None,
    }
}
