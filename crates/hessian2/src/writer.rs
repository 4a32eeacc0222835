//! [`Hessian2Writer`]: the encoder, with the class-definition, type and reference
//! tables of one Hessian 2 stream.
//!
//! Here: the writer's state and tables. Writing, one file per kind of value: [`scalars`],
//! [`strings`], [`containers`] (references, lists, maps, objects, enums), [`dynamic`] (a
//! [`Value`] tree); [`segments`] puts struct fields written out of wire order in place.

use std::borrow::Cow;
use std::collections::HashMap;
use std::rc::Rc;

use crate::constants::*;
use crate::fxhash::FxBuildHasher;
use crate::ser::layout::Layout;
use crate::value::Value;

mod containers;
mod dynamic;
mod scalars;
mod segments;
mod strings;

/// Field name that marks an enum constant inside values buffered by the serde
/// serializer (see `ser/value_ser.rs`); such objects are ref-tracked per (class, name).
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
    /// Segment mode (see `ser/structs.rs`): struct fields are being written out of wire order,
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
}
