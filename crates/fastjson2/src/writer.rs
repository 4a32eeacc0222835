//! [`JsonbWriter`]: encodes the dynamic [`Value`] as JSONB with the features Java Dubbo's
//! `FastJson2ObjectOutput` writes with: class names (`WriteClassName`), field names as
//! symbols (`WriteNameAsSymbol`), no names for `HashMap`/`ArrayList`, and references
//! (`ReferenceDetection`) for the tree's back-references to enclosing containers.

use std::collections::HashMap;

use dubbo_hessian2::{Object, Value};

use crate::constants::*;
use crate::decimal::{parse_decimal, BigInt};
use crate::error::{Error, Result};
use crate::typing::{PLAIN_LIST, PLAIN_MAP};

/// An encoder of one JSONB stream: the symbols (type and field names) it has defined so far
/// are referred to by id when they occur again.
#[derive(Default)]
pub struct JsonbWriter {
    buf: Vec<u8>,
    symbols: HashMap<String, i32>,
    next_symbol: i32,
}

/// One step of the JSONPath from the root to a container, for references.
#[derive(Clone, Copy)]
enum Seg<'v> {
    Root,
    Index(usize),
    Key(&'v str),
}

impl JsonbWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes written so far.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// Encodes `value`.
    pub fn write_value(&mut self, value: &Value) -> Result<()> {
        let mut open = Vec::new();
        self.value(value, Seg::Root, &mut open)
    }

    fn raw(&mut self, tag: i8) {
        self.buf.push(tag as u8);
    }

    /// An int in its shortest form.
    pub(crate) fn int32(&mut self, v: i32) {
        if (i32::from(BC_INT32_NUM_MIN)..=i32::from(BC_INT32_NUM_MAX)).contains(&v) {
            self.raw(v as i8);
        } else if (-2048..=2047).contains(&v) {
            self.raw((i32::from(BC_INT32_BYTE_ZERO) + (v >> 8)) as i8);
            self.buf.push(v as u8);
        } else if (-262_144..=262_143).contains(&v) {
            self.raw((i32::from(BC_INT32_SHORT_ZERO) + (v >> 16)) as i8);
            self.buf.push((v >> 8) as u8);
            self.buf.push(v as u8);
        } else {
            self.raw(BC_INT32);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// A long in its shortest form.
    pub(crate) fn int64(&mut self, v: i64) {
        if (INT64_NUM_LOW_VALUE..=INT64_NUM_HIGH_VALUE).contains(&v) {
            self.raw((i64::from(BC_INT64_NUM_MIN) + (v - INT64_NUM_LOW_VALUE)) as i8);
        } else if (-2048..=2047).contains(&v) {
            self.raw((i64::from(BC_INT64_BYTE_ZERO) + (v >> 8)) as i8);
            self.buf.push(v as u8);
        } else if (-262_144..=262_143).contains(&v) {
            self.raw((i64::from(BC_INT64_SHORT_ZERO) + (v >> 16)) as i8);
            self.buf.push((v >> 8) as u8);
            self.buf.push(v as u8);
        } else if let Ok(i) = i32::try_from(v) {
            self.raw(BC_INT64_INT);
            self.buf.extend_from_slice(&i.to_be_bytes());
        } else {
            self.raw(BC_INT64);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    fn double(&mut self, v: f64) {
        // Java's rule: 0 and 1 in the tag (−0.0 compares equal to 0 and is written as it),
        // integral values in int range as a long, everything else as 8 bytes.
        if v == 0.0 {
            self.raw(BC_DOUBLE_NUM_0);
        } else if v == 1.0 {
            self.raw(BC_DOUBLE_NUM_1);
        } else if v >= f64::from(i32::MIN) && v <= f64::from(i32::MAX) && v.fract() == 0.0 {
            self.raw(BC_DOUBLE_LONG);
            self.int64(v as i64);
        } else {
            self.raw(BC_DOUBLE);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// A string: ISO-8859-1 when every character fits one byte (as Java writes its compact
    /// strings), UTF-8 otherwise.
    fn string(&mut self, s: &str) {
        if s.chars().all(|c| u32::from(c) <= 0xff) {
            let n = s.chars().count();
            if n <= STR_ASCII_FIX_LEN {
                self.raw(BC_STR_ASCII_FIX_MIN + n as i8);
            } else {
                self.raw(BC_STR_ASCII);
                self.int32(n as i32);
            }
            self.buf.extend(s.chars().map(|c| u32::from(c) as u8));
        } else {
            self.raw(BC_STR_UTF8);
            self.int32(s.len() as i32);
            self.buf.extend_from_slice(s.as_bytes());
        }
    }

    fn check_len(what: &'static str, n: usize) -> Result<()> {
        if i32::try_from(n).is_err() {
            return Err(Error::Unencodable {
                what,
                reason: format!("{n} elements do not fit JSONB's int length"),
            });
        }
        Ok(())
    }

    /// A name defined once (string and new id) and referred to by id afterwards.
    fn symbol_body(&mut self, name: &str) {
        if let Some(&id) = self.symbols.get(name) {
            self.int32(id);
            return;
        }
        let id = self.next_symbol;
        self.next_symbol += 1;
        self.symbols.insert(name.to_owned(), id);
        self.string(name);
        self.int32(id);
    }

    fn type_name(&mut self, class: &str) {
        self.raw(BC_TYPED_ANY);
        self.symbol_body(class);
    }

    fn field_name(&mut self, name: &str) {
        self.raw(BC_SYMBOL);
        self.symbol_body(name);
    }

    fn value<'v>(&mut self, v: &'v Value, seg: Seg<'v>, open: &mut Vec<Seg<'v>>) -> Result<()> {
        match v {
            Value::Null => self.raw(BC_NULL),
            Value::Bool(b) => self.raw(if *b { BC_TRUE } else { BC_FALSE }),
            Value::Int(i) => self.int32(*i),
            Value::Long(l) => self.int64(*l),
            Value::Double(d) => self.double(*d),
            Value::String(s) => {
                Self::check_len("string", s.len())?;
                self.string(s)
            }
            Value::Binary(b) => {
                Self::check_len("byte[]", b.len())?;
                // Java names the class of a top-level byte[] (WriteClassName) and no other.
                if matches!(seg, Seg::Root) {
                    self.type_name("[B");
                }
                self.raw(BC_BINARY);
                self.int32(b.len() as i32);
                self.buf.extend_from_slice(b);
            }
            Value::Date(ms) => {
                self.raw(BC_TIMESTAMP_MILLIS);
                self.buf.extend_from_slice(&ms.to_be_bytes());
            }
            Value::List(list) => {
                Self::check_len("list", list.items.len())?;
                if let Some(t) = list.type_name.as_deref() {
                    // Hessian's array names ("[string", "[int") are no Java class names; such
                    // lists go untyped and Java converts them to the declared array type.
                    if t != PLAIN_LIST && !t.starts_with('[') {
                        self.type_name(t);
                    }
                }
                let n = list.items.len();
                if n <= 15 {
                    self.raw(BC_ARRAY_FIX_MIN + n as i8);
                } else {
                    self.raw(BC_ARRAY);
                    self.int32(n as i32);
                }
                open.push(seg);
                for (i, item) in list.items.iter().enumerate() {
                    self.value(item, Seg::Index(i), open)?;
                }
                open.pop();
            }
            Value::Map(map) => {
                if let Some(t) = map.type_name.as_deref() {
                    if t != PLAIN_MAP {
                        self.type_name(t);
                    }
                }
                self.raw(BC_OBJECT);
                open.push(seg);
                for (k, val) in &map.entries {
                    self.value(k, Seg::Key("?"), open)?;
                    let child = match k {
                        Value::String(s) => Seg::Key(s),
                        _ => Seg::Key("?"),
                    };
                    self.value(val, child, open)?;
                }
                open.pop();
                self.raw(BC_OBJECT_END);
            }
            Value::Object(obj) => self.object(obj, seg, open)?,
            Value::Ref(k) => {
                let k = *k as usize;
                if k >= open.len() {
                    return Err(Error::Unencodable {
                        what: "reference",
                        reason: format!("Ref({k}) but only {} enclosing containers", open.len()),
                    });
                }
                let path = json_path(&open[..open.len() - k]);
                self.raw(BC_REFERENCE);
                self.string(&path);
            }
        }
        Ok(())
    }

    fn object<'v>(&mut self, obj: &'v Object, seg: Seg<'v>, open: &mut Vec<Seg<'v>>) -> Result<()> {
        let text = || match obj.get("value") {
            Some(Value::String(s)) => Ok(s.as_str()),
            _ => Err(Error::Unencodable {
                what: "java.math value",
                reason: "no string field `value`".into(),
            }),
        };
        match obj.class.as_str() {
            "java.math.BigDecimal" => {
                let (unscaled, scale) = parse_decimal(text()?)?;
                match unscaled.to_i64() {
                    Some(u) if scale == 0 => {
                        self.raw(BC_DECIMAL_LONG);
                        self.int64(u);
                    }
                    Some(u) => {
                        self.raw(BC_DECIMAL);
                        self.int32(scale);
                        match i32::try_from(u) {
                            Ok(i) => self.int32(i),
                            Err(_) => self.int64(u),
                        }
                    }
                    None => {
                        self.raw(BC_DECIMAL);
                        self.int32(scale);
                        self.bigint(&unscaled);
                    }
                }
                return Ok(());
            }
            "java.math.BigInteger" => {
                let b = BigInt::parse(text()?)?;
                match b.to_i64() {
                    Some(l) => {
                        self.raw(BC_BIGINT_LONG);
                        self.int64(l);
                    }
                    None => self.bigint(&b),
                }
                return Ok(());
            }
            _ => {}
        }
        self.type_name(&obj.class);
        self.raw(BC_OBJECT);
        open.push(seg);
        for (name, val) in &obj.fields {
            self.field_name(name);
            self.value(val, Seg::Key(name), open)?;
        }
        open.pop();
        self.raw(BC_OBJECT_END);
        Ok(())
    }

    fn bigint(&mut self, b: &BigInt) {
        let bytes = b.to_twos_complement();
        self.raw(BC_BIGINT);
        self.int32(bytes.len() as i32);
        self.buf.extend_from_slice(&bytes);
    }
}

/// The JSONPath fastjson2 writes for a reference: `$`, then `.name` per field and `[i]` per
/// element.
fn json_path(segs: &[Seg<'_>]) -> String {
    let mut p = String::new();
    for s in segs {
        match s {
            Seg::Root => p.push('$'),
            Seg::Index(i) => p.push_str(&format!("[{i}]")),
            Seg::Key(k) => {
                p.push('.');
                p.push_str(k);
            }
        }
    }
    p
}
