//! [`JsonbReader`]: decodes one JSONB value into the dynamic [`Value`], resolving type names,
//! symbols and references the way fastjson2's `JSONReaderJSONB` does.

use std::collections::HashMap;

use dubbo_hessian2::{List, Map, Object, Value};

use crate::constants::*;
use crate::decimal::{decimal_text, BigInt, MAX_BIGINT_BYTES};
use crate::error::{Error, Result};
use crate::typing::apply_type;

/// How deep lists, maps and objects may nest before decoding stops with
/// [`Error::DepthExceeded`]; deeper input is hostile, not a Java object graph.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// Values the reader may copy for references whatever the input's size, and per input byte
/// beyond that: enough for any real object graph, far too little for an exponential one.
const COPY_BUDGET_BASE: usize = 1 << 16;
const COPY_BUDGET_PER_BYTE: usize = 16;

/// A decoder of one JSONB stream: its symbol table (type and field names written once and
/// then referred to by id) and the values that references may point back to.
pub struct JsonbReader<'a> {
    buf: &'a [u8],
    pos: usize,
    max_depth: usize,
    /// Symbol id → name; ids come from the stream, so a map rather than a vector keeps a
    /// hostile id from making a large allocation.
    symbols: HashMap<i32, String>,
    /// JSONPaths of the containers being built, outermost first (only when references are
    /// possible, see `track`).
    open: Vec<String>,
    /// Completed containers by JSONPath, for references to values other than an enclosing one.
    done: HashMap<String, Value>,
    last_reference: Option<String>,
    /// Type names being applied (a type name may precede another), counted with `open`
    /// against the depth limit.
    typed: usize,
    /// Values still allowed to be copied for references (see [`Error::RefExpansion`]).
    copy_budget: usize,
    /// Whether paths are tracked at all: only when the input holds a byte equal to
    /// [`BC_REFERENCE`], since without one no reference can occur and the bookkeeping would
    /// be wasted.
    track: bool,
}

impl<'a> JsonbReader<'a> {
    /// A reader of `buf`, which holds JSONB (without Dubbo's length prefix).
    pub fn new(buf: &'a [u8]) -> Self {
        JsonbReader {
            buf,
            pos: 0,
            max_depth: DEFAULT_MAX_DEPTH,
            symbols: HashMap::new(),
            open: Vec::new(),
            done: HashMap::new(),
            last_reference: None,
            track: buf.contains(&(BC_REFERENCE as u8)),
            typed: 0,
            copy_budget: COPY_BUDGET_BASE
                .saturating_add(buf.len().saturating_mul(COPY_BUDGET_PER_BYTE)),
        }
    }

    /// Sets the nesting limit (default [`DEFAULT_MAX_DEPTH`]).
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Decodes the next value.
    pub fn read_value(&mut self) -> Result<Value> {
        self.value("$")
    }

    fn peek(&self) -> Result<i8> {
        self.buf
            .get(self.pos)
            .map(|&b| b as i8)
            .ok_or(Error::Truncated { position: self.pos })
    }

    fn byte(&mut self) -> Result<i8> {
        let b = self.peek()?;
        self.pos += 1;
        Ok(b)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or(Error::Truncated {
                position: self.buf.len(),
            })?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn unexpected(&self, tag: i8, at: usize, expected: &'static str) -> Error {
        Error::UnexpectedTag {
            tag: tag as u8,
            position: at,
            expected,
        }
    }

    /// An int in any of its four forms (value in the tag, 2, 3 or 5 bytes).
    fn int32(&mut self) -> Result<i32> {
        let at = self.pos;
        let tag = self.byte()?;
        self.int32_after(tag)
            .ok_or_else(|| self.unexpected(tag, at, "an int"))?
    }

    fn int32_after(&mut self, tag: i8) -> Option<Result<i32>> {
        Some(match tag {
            BC_INT32_NUM_MIN..=BC_INT32_NUM_MAX => Ok(i32::from(tag)),
            BC_INT32_BYTE_MIN..=BC_INT32_BYTE_MAX => self
                .array::<1>()
                .map(|[b]| ((i32::from(tag) - i32::from(BC_INT32_BYTE_ZERO)) << 8) | i32::from(b)),
            BC_INT32_SHORT_MIN..=BC_INT32_SHORT_MAX => self.array::<2>().map(|[a, b]| {
                ((i32::from(tag) - i32::from(BC_INT32_SHORT_ZERO)) << 16)
                    | (i32::from(a) << 8)
                    | i32::from(b)
            }),
            BC_INT32 => self.array::<4>().map(i32::from_be_bytes),
            _ => return None,
        })
    }

    fn int64_after(&mut self, tag: i8) -> Option<Result<i64>> {
        Some(match tag {
            BC_INT64_NUM_MIN..=BC_INT64_NUM_MAX => {
                Ok(i64::from(tag) - i64::from(BC_INT64_NUM_MIN) + INT64_NUM_LOW_VALUE)
            }
            BC_INT64_BYTE_MIN..=BC_INT64_BYTE_MAX => self
                .array::<1>()
                .map(|[b]| ((i64::from(tag) - i64::from(BC_INT64_BYTE_ZERO)) << 8) | i64::from(b)),
            BC_INT64_SHORT_MIN..=BC_INT64_SHORT_MAX => self.array::<2>().map(|[a, b]| {
                ((i64::from(tag) - i64::from(BC_INT64_SHORT_ZERO)) << 16)
                    | (i64::from(a) << 8)
                    | i64::from(b)
            }),
            BC_INT64_INT => self.array::<4>().map(|b| i64::from(i32::from_be_bytes(b))),
            BC_INT64 => self.array::<8>().map(i64::from_be_bytes),
            _ => return None,
        })
    }

    /// Any integer form (int, long, byte, short) as an `i64`, for counts and decimal parts.
    fn integer(&mut self) -> Result<i64> {
        let at = self.pos;
        let tag = self.byte()?;
        if let Some(v) = self.int32_after(tag) {
            return v.map(i64::from);
        }
        if let Some(v) = self.int64_after(tag) {
            return v;
        }
        match tag {
            BC_INT8 => self.array::<1>().map(|[b]| i64::from(b as i8)),
            BC_INT16 => self.array::<2>().map(|b| i64::from(i16::from_be_bytes(b))),
            _ => Err(self.unexpected(tag, at, "an integer")),
        }
    }

    /// A length: an int that is not negative and not more than the bytes that remain times
    /// `min_bytes_per_item`'s inverse (every item takes at least one byte), so that no
    /// allocation is larger than the input could fill.
    fn length(&mut self, what: &'static str) -> Result<usize> {
        let at = self.pos;
        let len = self.int32()?;
        match usize::try_from(len) {
            Ok(n) if n <= self.remaining() => Ok(n),
            _ => Err(Error::InvalidLength {
                what,
                len: i64::from(len),
                position: at,
                remaining: self.remaining(),
            }),
        }
    }

    fn is_string_tag(tag: i8) -> bool {
        matches!(tag, BC_STR_ASCII_FIX_MIN..=BC_STR_UTF16BE)
    }

    /// A string after its tag.
    fn string_after(&mut self, tag: i8, at: usize) -> Result<String> {
        let bad = || Error::InvalidString { position: at };
        match tag {
            BC_STR_ASCII_FIX_MIN..=BC_STR_ASCII_FIX_MAX => {
                let n = (tag - BC_STR_ASCII_FIX_MIN) as usize;
                Ok(latin1(self.take(n)?))
            }
            BC_STR_ASCII => {
                let n = self.length("string")?;
                Ok(latin1(self.take(n)?))
            }
            BC_STR_UTF8 => {
                let n = self.length("string")?;
                std::str::from_utf8(self.take(n)?)
                    .map(str::to_owned)
                    .map_err(|_| bad())
            }
            BC_STR_UTF16 | BC_STR_UTF16LE | BC_STR_UTF16BE => {
                let n = self.length("string")?;
                let mut bytes = self.take(n)?;
                if n % 2 != 0 {
                    return Err(bad());
                }
                // BC_STR_UTF16 is read as Java's "UTF-16" charset: a byte-order mark decides,
                // big-endian without one.
                let mut little = tag == BC_STR_UTF16LE;
                if tag == BC_STR_UTF16 && bytes.len() >= 2 {
                    match (bytes[0], bytes[1]) {
                        (0xff, 0xfe) => {
                            little = true;
                            bytes = &bytes[2..];
                        }
                        (0xfe, 0xff) => bytes = &bytes[2..],
                        _ => {}
                    }
                }
                let units = bytes.chunks_exact(2).map(|c| {
                    if little {
                        u16::from_le_bytes([c[0], c[1]])
                    } else {
                        u16::from_be_bytes([c[0], c[1]])
                    }
                });
                char::decode_utf16(units)
                    .collect::<std::result::Result<String, _>>()
                    .map_err(|_| bad())
            }
            _ => Err(self.unexpected(tag, at, "a string")),
        }
    }

    /// A symbol after `BC_SYMBOL` (field names) or a type name after `BC_TYPED_ANY`: either a
    /// string followed by its new id, or an id defined earlier.
    fn symbol(&mut self) -> Result<String> {
        let mut at = self.pos;
        let mut tag = self.byte()?;
        // A type name may itself be written as a symbol; one marker, never a chain.
        if tag == BC_SYMBOL {
            at = self.pos;
            tag = self.byte()?;
        }
        if let Some(id) = self.int32_after(tag) {
            let id = id?;
            return self.symbols.get(&id).cloned().ok_or(Error::UnknownSymbol {
                symbol: i64::from(id),
                position: at,
            });
        }
        let name = self.string_after(tag, at)?;
        let id = self.int32()?;
        self.symbols.insert(id, name.clone());
        Ok(name)
    }

    fn enter(&mut self, path: &str) -> Result<()> {
        if self.open.len() + self.typed >= self.max_depth {
            return Err(Error::DepthExceeded {
                limit: self.max_depth,
            });
        }
        // The path is only needed when references are possible; the depth count is not.
        self.open.push(if self.track {
            path.to_owned()
        } else {
            String::new()
        });
        Ok(())
    }

    fn leave(&mut self, v: &Value) -> Result<()> {
        if let Some(path) = self.open.pop() {
            if self.track {
                self.charge(v)?;
                self.done.insert(path, v.clone());
            }
        }
        Ok(())
    }

    /// Takes the size of `v` (in values) from the copy budget.
    fn charge(&mut self, v: &Value) -> Result<()> {
        let n = count(v, self.copy_budget.saturating_add(1));
        self.copy_budget = self.copy_budget.checked_sub(n).ok_or(Error::RefExpansion {
            limit: COPY_BUDGET_BASE
                .saturating_add(self.buf.len().saturating_mul(COPY_BUDGET_PER_BYTE)),
        })?;
        Ok(())
    }

    fn child_path(&self, parent: &str, seg: Seg<'_>) -> String {
        if !self.track {
            return String::new();
        }
        match seg {
            Seg::Index(i) => format!("{parent}[{i}]"),
            Seg::Key(k) => format!("{parent}.{k}"),
        }
    }

    fn value(&mut self, path: &str) -> Result<Value> {
        let at = self.pos;
        let tag = self.byte()?;
        if let Some(v) = self.int32_after(tag) {
            return v.map(Value::Int);
        }
        if let Some(v) = self.int64_after(tag) {
            return v.map(Value::Long);
        }
        if Self::is_string_tag(tag) {
            return self.string_after(tag, at).map(Value::String);
        }
        Ok(match tag {
            BC_NULL => Value::Null,
            BC_TRUE => Value::Bool(true),
            BC_FALSE => Value::Bool(false),
            BC_INT8 => Value::Int(i32::from(self.array::<1>()?[0] as i8)),
            BC_INT16 => Value::Int(i32::from(i16::from_be_bytes(self.array::<2>()?))),
            BC_DOUBLE_NUM_0 => Value::Double(0.0),
            BC_DOUBLE_NUM_1 => Value::Double(1.0),
            BC_DOUBLE_LONG => Value::Double(self.integer()? as f64),
            BC_DOUBLE => Value::Double(f64::from_be_bytes(self.array::<8>()?)),
            BC_FLOAT_INT => Value::Double(f64::from(self.int32()? as f32)),
            BC_FLOAT => Value::Double(f64::from(f32::from_be_bytes(self.array::<4>()?))),
            BC_CHAR => {
                let c = self.int32()?;
                let c = u32::try_from(c)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or(Error::InvalidString { position: at })?;
                Value::String(c.to_string())
            }
            BC_SYMBOL => Value::String(self.symbol()?),
            BC_BINARY => {
                let n = self.length("binary")?;
                Value::Binary(self.take(n)?.to_vec())
            }
            BC_TIMESTAMP_MILLIS => Value::Date(i64::from_be_bytes(self.array::<8>()?)),
            BC_TIMESTAMP_SECONDS => {
                Value::Date(i64::from(i32::from_be_bytes(self.array::<4>()?)) * 1000)
            }
            BC_TIMESTAMP_MINUTES => {
                Value::Date(i64::from(i32::from_be_bytes(self.array::<4>()?)) * 60_000)
            }
            BC_TIMESTAMP => {
                let secs = self.integer()?;
                let nanos = self.int32()?;
                Value::Date(
                    secs.saturating_mul(1000)
                        .saturating_add(i64::from(nanos) / 1_000_000),
                )
            }
            BC_DECIMAL_LONG => bigdecimal(decimal_text(&BigInt::from_i64(self.integer()?), 0)),
            BC_DECIMAL => {
                let scale = self.int32()?;
                let unscaled = if self.peek()? == BC_BIGINT {
                    self.pos += 1;
                    self.bigint_bytes()?
                } else if self.peek()? == BC_BIGINT_LONG {
                    self.pos += 1;
                    BigInt::from_i64(self.integer()?)
                } else {
                    BigInt::from_i64(self.integer()?)
                };
                bigdecimal(decimal_text(&unscaled, scale))
            }
            BC_BIGINT_LONG => biginteger(BigInt::from_i64(self.integer()?).to_text()),
            BC_BIGINT => biginteger(self.bigint_bytes()?.to_text()),
            BC_ARRAY_FIX_MIN..=BC_ARRAY_FIX_MAX | BC_ARRAY => {
                let n = if tag == BC_ARRAY {
                    self.length("array")?
                } else {
                    (tag - BC_ARRAY_FIX_MIN) as usize
                };
                self.enter(path)?;
                // Every item takes at least one byte, so `n` is bounded by the input.
                let mut items = Vec::with_capacity(n);
                for i in 0..n {
                    let child = self.child_path(path, Seg::Index(i));
                    items.push(self.value(&child)?);
                }
                let v = Value::List(List::new(items));
                self.leave(&v)?;
                v
            }
            BC_OBJECT => {
                self.enter(path)?;
                let mut entries = Vec::new();
                loop {
                    if self.peek()? == BC_OBJECT_END {
                        self.pos += 1;
                        break;
                    }
                    let key = if self.peek()? == BC_SYMBOL {
                        self.pos += 1;
                        Value::String(self.symbol()?)
                    } else {
                        let key_path = self.child_path(path, Seg::Key("?"));
                        self.value(&key_path)?
                    };
                    let child = match &key {
                        Value::String(k) => self.child_path(path, Seg::Key(k)),
                        Value::Int(k) => self.child_path(path, Seg::Key(&k.to_string())),
                        Value::Long(k) => self.child_path(path, Seg::Key(&k.to_string())),
                        _ => self.child_path(path, Seg::Key("?")),
                    };
                    let value = self.value(&child)?;
                    entries.push((key, value));
                }
                let v = Value::Map(Map::new(entries));
                self.leave(&v)?;
                v
            }
            BC_TYPED_ANY => {
                let type_name = self.symbol()?;
                if self.open.len() + self.typed >= self.max_depth {
                    return Err(Error::DepthExceeded {
                        limit: self.max_depth,
                    });
                }
                self.typed += 1;
                let inner = self.value(path);
                self.typed -= 1;
                let inner = inner?;
                let v = apply_type(type_name, inner);
                if self.track && matches!(v, Value::Object(_) | Value::Map(_) | Value::List(_)) {
                    // The typed form replaces the untyped one recorded for the same path.
                    self.charge(&v)?;
                    self.done.insert(path.to_owned(), v.clone());
                }
                v
            }
            BC_REFERENCE => self.reference(at)?,
            _ => return Err(self.unexpected(tag, at, "a value")),
        })
    }

    fn bigint_bytes(&mut self) -> Result<BigInt> {
        let at = self.pos;
        let n = self.length("big integer")?;
        if n > MAX_BIGINT_BYTES {
            return Err(Error::InvalidLength {
                what: "big integer",
                len: n as i64,
                position: at,
                remaining: self.remaining(),
            });
        }
        Ok(BigInt::from_twos_complement(self.take(n)?))
    }

    fn reference(&mut self, at: usize) -> Result<Value> {
        let tag_at = self.pos;
        let tag = self.byte()?;
        let mut path = self.string_after(tag, tag_at)?;
        if path == "#-1" {
            path = self
                .last_reference
                .clone()
                .ok_or_else(|| Error::UnresolvedReference {
                    path: path.clone(),
                    position: at,
                })?;
        }
        self.last_reference = Some(path.clone());
        // A container still being built (a cycle) becomes a relative reference; a completed
        // one is copied, as the tree has no sharing.
        if let Some(i) = self.open.iter().rposition(|p| *p == path) {
            let k = self.open.len() - 1 - i;
            return Ok(Value::Ref(k as u32));
        }
        let v = self
            .done
            .get(&path)
            .cloned()
            .ok_or(Error::UnresolvedReference { path, position: at })?;
        self.charge(&v)?;
        Ok(v)
    }
}

#[derive(Clone, Copy)]
enum Seg<'k> {
    Index(usize),
    Key(&'k str),
}

/// The number of values in `v` (itself and everything inside), counting no further than `cap`.
fn count(v: &Value, cap: usize) -> usize {
    let mut n = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        n += 1;
        if n >= cap {
            return n;
        }
        match v {
            Value::List(l) => stack.extend(l.items.iter()),
            Value::Map(m) => stack.extend(m.entries.iter().flat_map(|(k, v)| [k, v])),
            Value::Object(o) => stack.extend(o.fields.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    n
}

/// ISO-8859-1 bytes to a string: each byte is the code point of the same value.
fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn bigdecimal(text: String) -> Value {
    Value::Object(Object::new(
        "java.math.BigDecimal",
        [("value", Value::String(text))],
    ))
}

fn biginteger(text: String) -> Value {
    Value::Object(Object::new(
        "java.math.BigInteger",
        [("value", Value::String(text))],
    ))
}
