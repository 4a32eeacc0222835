//! serde serialization: [`Ser`] streams into a [`Hessian2Writer`]; [`ValueSer`]
//! builds a [`Value`] (used by [`to_value`](crate::to_value) and to buffer struct
//! fields that must be written out of declaration order).
//!
//! ## Mapping
//!
//! | Rust (serde)                          | Hessian / Java                              |
//! |---------------------------------------|---------------------------------------------|
//! | `bool`                                | boolean                                     |
//! | `i8`, `i16`, `i32`, `u8`, `u16`       | int                                         |
//! | `i64`, `u32`, `u64` (≤ `i64::MAX`)    | long                                        |
//! | `f64`                                 | double                                      |
//! | `f32`                                 | double; a struct field of type `f32` is widened like Java's `float` field, any other `f32` (`Option<f32>`, in a `Vec`, top level) is converted through its decimal string like a boxed `Float` |
//! | `char`, `String`, `&str`              | string                                      |
//! | bytes (`serde_bytes::ByteBuf`)        | `byte[]` (binary)                           |
//! | `None`, `()`, unit struct             | null                                        |
//! | sequences, tuples                     | `ArrayList` (untyped fixed list)            |
//! | maps                                  | `HashMap` (`H`)                             |
//! | struct named `a.b.C` (via `#[serde(rename)]`) | object of class `a.b.C`, fields in hessian-lite's class-definition order |
//! | unit enum variant                     | Java enum constant (`name` field), ref-tracked |
//! | other enum variants                   | `HashMap` `{variant: content}`              |
//! | [`java::Date`](crate::java::Date)     | date                                        |
//! | [`Value`]                             | itself, class names and types kept          |

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::ser::{self, Serialize};

use crate::error::Error;
use crate::fxhash::FxBuildHasher;
use crate::value::{List, Object, Value};
use crate::writer::{Hessian2Writer, SegState, ENUM_MARK};

/// Newtype-struct name of [`java::Date`](crate::java::Date): the inner `i64` is epoch millis.
pub(crate) const MAGIC_DATE: &str = "$hessian2::Date";
/// Newtype-struct name used by `impl Serialize/Deserialize for Value`.
pub(crate) const MAGIC_VALUE: &str = "$hessian2::Value";
/// Newtype-struct name of typed lists: the inner value is a 2-tuple `(type_name, seq)`.
pub(crate) const MAGIC_TYPED_LIST: &str = "$hessian2::TypedList";
/// Newtype-struct name of typed maps: the inner value is a 2-tuple `(type_name, map)`.
pub(crate) const MAGIC_TYPED_MAP: &str = "$hessian2::TypedMap";

// ----- struct layouts ----------------------------------------------------------------

/// hessian-lite's field order for a class, computed from the Rust declaration order.
#[derive(Debug)]
pub(crate) struct Layout {
    names: Vec<&'static str>,
    /// Declared index -> wire position.
    wire_pos: Vec<usize>,
    /// Field names in wire order.
    pub(crate) wire_names: Vec<&'static str>,
    /// Declared index -> the field's Rust type is exactly `f32`.
    f32_prim: Vec<bool>,
}

thread_local! {
    static LAYOUTS: RefCell<HashMap<&'static str, Rc<Layout>, FxBuildHasher>> = RefCell::new(HashMap::default());
}

fn cached_layout(class: &'static str) -> Option<Rc<Layout>> {
    LAYOUTS.with(|l| l.borrow().get(class).cloned())
}

fn compute_layout(
    class: &'static str,
    names: Vec<&'static str>,
    prim: &[bool],
    f32_prim: Vec<bool>,
) -> Rc<Layout> {
    let n = names.len();
    let mut order: Vec<usize> = (0..n)
        .filter(|&i| prim[i])
        .chain((0..n).filter(|&i| !prim[i]))
        .collect();
    order.reverse();
    let mut wire_pos = vec![0; n];
    for (p, &i) in order.iter().enumerate() {
        wire_pos[i] = p;
    }
    let wire_names = order.iter().map(|&i| names[i]).collect();
    let layout = Rc::new(Layout {
        names,
        wire_pos,
        wire_names,
        f32_prim,
    });
    LAYOUTS.with(|l| l.borrow_mut().insert(class, layout.clone()));
    layout
}

/// Whether a Rust field type maps to a Java primitive or a `java.lang.*` class other
/// than `Object` — the first group of hessian-lite's field order.
pub(crate) fn is_java_lang_field(type_name: &str) -> bool {
    let mut t = type_name.trim();
    loop {
        let before = t;
        for prefix in ["&mut ", "&"] {
            if let Some(rest) = t.strip_prefix(prefix) {
                t = rest.trim_start();
            }
        }
        for wrapper in [
            "core::option::Option<",
            "std::option::Option<",
            "alloc::boxed::Box<",
            "std::boxed::Box<",
            "alloc::rc::Rc<",
            "alloc::sync::Arc<",
            "std::rc::Rc<",
            "std::sync::Arc<",
        ] {
            if let Some(rest) = t.strip_prefix(wrapper) {
                if let Some(inner) = rest.strip_suffix('>') {
                    t = inner.trim();
                }
            }
        }
        if t == before {
            break;
        }
    }
    matches!(
        t,
        "bool"
            | "i8"
            | "i16"
            | "i32"
            | "i64"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "f32"
            | "f64"
            | "char"
            | "str"
            | "alloc::string::String"
            | "std::string::String"
            | "alloc::borrow::Cow<str>"
            | "alloc::borrow::Cow<'_, str>"
            | "std::borrow::Cow<str>"
    )
}

/// Java's `Double.parseDouble(String.valueOf(float))`, which hessian-lite applies to
/// boxed `Float` values.
pub(crate) fn float_box(v: f32) -> f64 {
    if !v.is_finite() {
        return f64::from(v);
    }
    let s = v.to_string();
    s.parse::<f64>().unwrap_or(f64::from(v))
}

fn u64_to_i64(v: u64) -> Result<i64, Error> {
    i64::try_from(v).map_err(|_| Error::OutOfRange {
        value: v.to_string(),
        target: "long",
    })
}

// ----- hand-over of Value through serde --------------------------------------------------

enum HandOver {
    Writer(Box<Hessian2Writer>, Option<Error>),
    Clone(Option<Value>),
}

thread_local! {
    static HANDOVER: RefCell<Option<HandOver>> = const { RefCell::new(None) };
}

/// Called by `Serialize for Value`: if a hessian serializer is waiting for this value,
/// hand it over directly and return `true`.
pub(crate) fn hand_over(v: &Value) -> bool {
    // Out of the slot while writing: a typed value being written may hand over values of
    // its own.
    let Some(taken) = HANDOVER.with(|h| h.borrow_mut().take()) else {
        return false;
    };
    let back = match taken {
        HandOver::Writer(mut w, err) => {
            let err = match w.write_value_at_depth(v) {
                Err(e) => Some(e),
                Ok(()) => err,
            };
            HandOver::Writer(w, err)
        }
        HandOver::Clone(_) => HandOver::Clone(Some(v.clone())),
    };
    HANDOVER.with(|h| *h.borrow_mut() = Some(back));
    true
}

/// A serializer that only accepts `()`: what the hand-over shim returns into.
struct UnitSink;

macro_rules! reject {
    ($($f:ident($($t:ty),*)),* $(,)?) => {
        $(fn $f(self, $(_: $t),*) -> Result<Self::Ok, Self::Error> {
            Err(Error::Unsupported("value in a hessian2 special form".into()))
        })*
    };
}

impl ser::Serializer for UnitSink {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    reject!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(Error::Unsupported(
            "value in a hessian2 special form".into(),
        ))
    }
}

/// Extracts the payload of a special newtype (Date millis, typed collection name).
fn capture_value<T: ?Sized + Serialize>(v: &T) -> Result<Value, Error> {
    v.serialize(ValueSer::plain())
}

fn take_writer(w: &mut Hessian2Writer) -> Hessian2Writer {
    std::mem::take(w)
}

// ----- streaming serializer ---------------------------------------------------------------

/// The serde serializer that streams into a [`Hessian2Writer`].
pub(crate) struct Ser<'a> {
    pub(crate) w: &'a mut Hessian2Writer,
    /// The value is a struct field declared `f32` (widened, not boxed).
    pub(crate) prim_f32: bool,
    /// Java type of the next list or map (typed collection helpers).
    pub(crate) type_hint: Option<String>,
}

impl<'a> Ser<'a> {
    pub(crate) fn new(w: &'a mut Hessian2Writer) -> Self {
        Ser {
            w,
            prim_f32: false,
            type_hint: None,
        }
    }
}

impl<'a> ser::Serializer for Ser<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = SeqSer<'a>;
    type SerializeTuple = SeqSer<'a>;
    type SerializeTupleStruct = SeqSer<'a>;
    type SerializeTupleVariant = SeqSer<'a>;
    type SerializeMap = MapSer<'a>;
    type SerializeStruct = StructSer<'a>;
    type SerializeStructVariant = MapSer<'a>;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.w.write_bool(v);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.w.write_int(i32::from(v));
        Ok(())
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.w.write_int(i32::from(v));
        Ok(())
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.w.write_int(v);
        Ok(())
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        self.w.write_long(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.w.write_int(i32::from(v));
        Ok(())
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.w.write_int(i32::from(v));
        Ok(())
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.w.write_long(i64::from(v));
        Ok(())
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.w.write_long(u64_to_i64(v)?);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.w.write_double(if self.prim_f32 {
            f64::from(v)
        } else {
            float_box(v)
        });
        Ok(())
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.w.write_double(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        let mut b = [0u8; 4];
        self.w.write_string(v.encode_utf8(&mut b));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.w.write_string(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        self.w.write_binary(v);
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.w.write_null();
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.w.write_null();
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.w.write_null();
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.w.write_enum(name, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        match name {
            MAGIC_DATE => match capture_value(value)? {
                Value::Long(ms) => {
                    self.w.write_date(ms);
                    Ok(())
                }
                other => Err(Error::mismatch("date millis", other.kind())),
            },
            MAGIC_VALUE => {
                let w = take_writer(self.w);
                HANDOVER.with(|h| *h.borrow_mut() = Some(HandOver::Writer(Box::new(w), None)));
                let res = value.serialize(UnitSink);
                let back = HANDOVER.with(|h| h.borrow_mut().take());
                match back {
                    Some(HandOver::Writer(w, err)) => {
                        *self.w = *w;
                        res?;
                        match err {
                            Some(e) => Err(e),
                            None => Ok(()),
                        }
                    }
                    _ => Err(Error::Custom(
                        "hessian2: lost writer during Value hand-over".into(),
                    )),
                }
            }
            MAGIC_TYPED_LIST | MAGIC_TYPED_MAP => value.serialize(TypedSer { w: self.w }),
            _ => value.serialize(self),
        }
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let r = self.w.write_map_begin(None);
        self.w.push_ref_scope(r);
        self.w.write_string(variant);
        value.serialize(Ser::new(self.w))?;
        self.w.pop_ref_scope();
        self.w.write_map_end();
        Ok(())
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer<'a>, Error> {
        let t = self.type_hint.as_deref();
        let r = match len {
            Some(n) => self.w.write_list_begin(n, t),
            None => self.w.write_variable_list_begin(t),
        };
        self.w.push_ref_scope(r);
        Ok(SeqSer {
            w: self.w,
            expected: len,
            count: 0,
            variant: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqSer<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<SeqSer<'a>, Error> {
        let r = self.w.write_map_begin(None);
        self.w.push_ref_scope(r);
        self.w.write_string(variant);
        let r = self.w.write_list_begin(len, None);
        self.w.push_ref_scope(r);
        Ok(SeqSer {
            w: self.w,
            expected: Some(len),
            count: 0,
            variant: true,
        })
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapSer<'a>, Error> {
        let r = self.w.write_map_begin(self.type_hint.as_deref());
        self.w.push_ref_scope(r);
        Ok(MapSer {
            w: self.w,
            variant: false,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructSer<'a>, Error> {
        StructSer::start(self.w, name, len)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<MapSer<'a>, Error> {
        let r = self.w.write_map_begin(None);
        self.w.push_ref_scope(r);
        self.w.write_string(variant);
        let r = self.w.write_map_begin(None);
        self.w.push_ref_scope(r);
        Ok(MapSer {
            w: self.w,
            variant: true,
        })
    }
}

/// Sequence, tuple and tuple-variant state of [`Ser`].
pub(crate) struct SeqSer<'a> {
    w: &'a mut Hessian2Writer,
    expected: Option<usize>,
    count: usize,
    variant: bool,
}

impl SeqSer<'_> {
    fn elem<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.count += 1;
        value.serialize(Ser::new(self.w))
    }
    fn finish(self) -> Result<(), Error> {
        self.w.pop_ref_scope();
        match self.expected {
            Some(n) if n != self.count => {
                return Err(Error::Custom(format!(
                    "sequence announced {n} elements but produced {}",
                    self.count
                )))
            }
            Some(_) => {}
            None => self.w.write_list_end(),
        }
        if self.variant {
            self.w.pop_ref_scope();
            self.w.write_map_end();
        }
        Ok(())
    }
}

impl ser::SerializeSeq for SeqSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.elem(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for SeqSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.elem(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for SeqSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.elem(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for SeqSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.elem(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// Map and struct-variant state of [`Ser`].
pub(crate) struct MapSer<'a> {
    w: &'a mut Hessian2Writer,
    variant: bool,
}

impl ser::SerializeMap for MapSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        key.serialize(Ser::new(self.w))
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        value.serialize(Ser::new(self.w))
    }
    fn end(self) -> Result<(), Error> {
        self.w.pop_ref_scope();
        self.w.write_map_end();
        Ok(())
    }
}

impl ser::SerializeStructVariant for MapSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.w.write_string(key);
        value.serialize(Ser::new(self.w))
    }
    fn end(self) -> Result<(), Error> {
        self.w.pop_ref_scope();
        self.w.write_map_end();
        if self.variant {
            self.w.pop_ref_scope();
            self.w.write_map_end();
        }
        Ok(())
    }
}

/// Struct (Java object) state of [`Ser`].
///
/// hessian-lite writes fields in its class-definition order, which is rarely the
/// Rust declaration order serde hands them in (usually its reverse). Fields whose wire
/// turn has come are written directly. From the first field that is early, every field
/// is written as a *segment* at the end of the buffer, in segment mode: anything whose
/// bytes would depend on the order (a new class definition or type name, a first enum
/// constant, a back-reference into the struct, a binary) fails the segment, and that
/// field is kept as a [`Value`] instead. When the struct ends, the segments are moved
/// into wire order (one copy of the struct's bytes) and the values written in turn.
pub(crate) struct StructSer<'a> {
    w: &'a mut Hessian2Writer,
    class: &'static str,
    mode: StructMode,
}

enum StructMode {
    /// Layout known.
    Known {
        layout: Rc<Layout>,
        next_decl: usize,
        /// Wire positions `0..next_wire` are written (directly, before any segment).
        next_wire: usize,
        seg: Option<SegState>,
    },
    /// First instance of the class in this thread: buffer everything, then learn the layout.
    Learn {
        names: Vec<&'static str>,
        prim: Vec<bool>,
        f32_prim: Vec<bool>,
        values: Vec<Value>,
    },
}

impl<'a> StructSer<'a> {
    fn start(w: &'a mut Hessian2Writer, class: &'static str, len: usize) -> Result<Self, Error> {
        let known = match w.struct_entry(class) {
            Some((l, idx)) if l.names.len() == len => Some((l.clone(), idx)),
            _ => cached_layout(class)
                .filter(|l| l.names.len() == len)
                .map(|l| (l, None)),
        };
        let mode = match known {
            Some((layout, idx)) => {
                let r = w.alloc_ref();
                match idx {
                    Some(idx) => w.object_tag(idx),
                    None => {
                        let idx = w.object_header_layout(class, &layout);
                        if idx.is_some() {
                            w.set_struct_entry(class, layout.clone(), idx);
                        }
                    }
                }
                w.push_ref_scope(r);
                StructMode::Known {
                    layout,
                    next_decl: 0,
                    next_wire: 0,
                    seg: None,
                }
            }
            None => StructMode::Learn {
                names: Vec::with_capacity(len),
                prim: Vec::with_capacity(len),
                f32_prim: Vec::with_capacity(len),
                values: Vec::with_capacity(len),
            },
        };
        Ok(StructSer { w, class, mode })
    }

    fn field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: Option<&T>,
    ) -> Result<(), Error> {
        let class = self.class;
        match &mut self.mode {
            StructMode::Known {
                layout,
                next_decl,
                next_wire,
                seg,
            } => {
                let names = &layout.names;
                let decl = match names.get(*next_decl) {
                    // serde hands the same `&'static str`s every time: compare addresses first.
                    Some(n) if std::ptr::eq(n.as_ptr(), key.as_ptr()) && n.len() == key.len() => {
                        *next_decl
                    }
                    Some(n) if *n == key => *next_decl,
                    _ => match names.iter().position(|n| *n == key) {
                        Some(i) => i,
                        None => {
                            return Err(Error::Custom(format!(
                                "class {class}: field {key} is not in the layout learned for this class name \
                                 (two Rust types serialize with the same class name?)"
                            )))
                        }
                    },
                };
                *next_decl = decl + 1;
                let p = layout.wire_pos[decl];
                let prim_f32 = layout.f32_prim[decl];
                if seg.is_none() && p == *next_wire {
                    write_field(self.w, value, prim_f32)?;
                    *next_wire += 1;
                    return Ok(());
                }
                let st = *seg.get_or_insert_with(|| self.w.seg_begin(layout.names.len()));
                let mark = self.w.seg_field_begin();
                write_field(self.w, value, prim_f32)?;
                if !self.w.seg_field_end(&st, mark, p) {
                    let v = match value {
                        Some(v) => v.serialize(ValueSer::buffer(prim_f32))?,
                        None => Value::Null,
                    };
                    self.w.seg_value(&st, p, v);
                }
                Ok(())
            }
            StructMode::Learn {
                names,
                prim,
                f32_prim,
                values,
            } => {
                let tn = std::any::type_name::<T>();
                let is_f32 = value.is_some() && tn == "f32";
                names.push(key);
                prim.push(value.is_some() && is_java_lang_field(tn));
                f32_prim.push(is_f32);
                values.push(match value {
                    Some(v) => v.serialize(ValueSer::buffer(is_f32))?,
                    None => Value::Null,
                });
                Ok(())
            }
        }
    }

    fn finish(self) -> Result<(), Error> {
        let StructSer { w, class, mode } = self;
        match mode {
            StructMode::Known {
                layout,
                mut next_wire,
                seg,
                ..
            } => {
                let n = layout.names.len();
                match seg {
                    Some(st) => w.seg_finish(st, next_wire, n)?,
                    None => {
                        while next_wire < n {
                            w.write_null();
                            next_wire += 1;
                        }
                    }
                }
                w.pop_ref_scope();
                Ok(())
            }
            StructMode::Learn {
                names,
                prim,
                f32_prim,
                values,
            } => {
                let layout = compute_layout(class, names, &prim, f32_prim);
                let r = w.alloc_ref();
                let idx = w.object_header_layout(class, &layout);
                if idx.is_some() {
                    w.set_struct_entry(class, layout.clone(), idx);
                }
                w.push_ref_scope(r);
                let mut ordered: Vec<Option<Value>> = vec![None; values.len()];
                for (i, v) in values.into_iter().enumerate() {
                    ordered[layout.wire_pos[i]] = Some(v);
                }
                for v in ordered {
                    match v {
                        Some(v) => w.write_value_at_depth(&v)?,
                        None => w.write_null(),
                    }
                }
                w.pop_ref_scope();
                Ok(())
            }
        }
    }
}

/// Writes one struct field's value (`None`: a skipped field, written as null).
fn write_field<T: ?Sized + Serialize>(
    w: &mut Hessian2Writer,
    value: Option<&T>,
    prim_f32: bool,
) -> Result<(), Error> {
    match value {
        Some(v) => v.serialize(Ser {
            w,
            prim_f32,
            type_hint: None,
        }),
        None => {
            w.write_null();
            Ok(())
        }
    }
}

impl ser::SerializeStruct for StructSer<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, Some(value))
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), Error> {
        self.field::<()>(key, None)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// Serializer for the `(type_name, collection)` payload of typed collections.
struct TypedSer<'a> {
    w: &'a mut Hessian2Writer,
}

struct TypedTuple<'a> {
    w: &'a mut Hessian2Writer,
    type_name: Option<String>,
}

impl ser::SerializeTuple for TypedTuple<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        match self.type_name.take() {
            None => {
                // first element: the type name
                match capture_value(value)? {
                    Value::String(s) => {
                        self.type_name = Some(s);
                        Ok(())
                    }
                    Value::Null => {
                        self.type_name = Some(String::new());
                        Ok(())
                    }
                    other => Err(Error::mismatch("type name", other.kind())),
                }
            }
            Some(t) => value.serialize(Ser {
                w: self.w,
                prim_f32: false,
                type_hint: Some(t),
            }),
        }
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl<'a> ser::Serializer for TypedSer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = TypedTuple<'a>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;
    fn serialize_tuple(self, _: usize) -> Result<TypedTuple<'a>, Error> {
        Ok(TypedTuple {
            w: self.w,
            type_name: None,
        })
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    reject!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );
    fn serialize_some<T: ?Sized + Serialize>(self, _: &T) -> Result<(), Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(Error::Unsupported("typed collection payload".into()))
    }
}

// ----- Value serializer ---------------------------------------------------------------------

/// The serde serializer that builds a [`Value`].
#[derive(Clone, Copy)]
pub(crate) struct ValueSer {
    /// Mark enum constants so the writer can ref-track them (internal buffering only).
    mark_enums: bool,
    prim_f32: bool,
}

impl ValueSer {
    /// For [`to_value`](crate::to_value): clean values.
    pub(crate) fn plain() -> Self {
        ValueSer {
            mark_enums: false,
            prim_f32: false,
        }
    }

    fn buffer(prim_f32: bool) -> Self {
        ValueSer {
            mark_enums: true,
            prim_f32,
        }
    }

    fn child(self) -> Self {
        ValueSer {
            mark_enums: self.mark_enums,
            prim_f32: false,
        }
    }
}

impl ser::Serializer for ValueSer {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = ValueSeq;
    type SerializeTuple = ValueSeq;
    type SerializeTupleStruct = ValueSeq;
    type SerializeTupleVariant = ValueSeq;
    type SerializeMap = ValueMap;
    type SerializeStruct = ValueStruct;
    type SerializeStructVariant = ValueMap;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        Ok(Value::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> Result<Value, Error> {
        Ok(Value::Int(i32::from(v)))
    }
    fn serialize_i16(self, v: i16) -> Result<Value, Error> {
        Ok(Value::Int(i32::from(v)))
    }
    fn serialize_i32(self, v: i32) -> Result<Value, Error> {
        Ok(Value::Int(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, Error> {
        Ok(Value::Long(v))
    }
    fn serialize_u8(self, v: u8) -> Result<Value, Error> {
        Ok(Value::Int(i32::from(v)))
    }
    fn serialize_u16(self, v: u16) -> Result<Value, Error> {
        Ok(Value::Int(i32::from(v)))
    }
    fn serialize_u32(self, v: u32) -> Result<Value, Error> {
        Ok(Value::Long(i64::from(v)))
    }
    fn serialize_u64(self, v: u64) -> Result<Value, Error> {
        Ok(Value::Long(u64_to_i64(v)?))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, Error> {
        Ok(Value::Double(if self.prim_f32 {
            f64::from(v)
        } else {
            float_box(v)
        }))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, Error> {
        Ok(Value::Double(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, Error> {
        Ok(Value::String(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        Ok(Value::String(v.to_owned()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, Error> {
        Ok(Value::Binary(v.to_vec()))
    }
    fn serialize_none(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Value, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Value, Error> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Value, Error> {
        let field = if self.mark_enums { ENUM_MARK } else { "name" };
        Ok(Value::Object(Object {
            class: name.to_owned(),
            fields: vec![(field.to_owned(), Value::String(variant.to_owned()))],
        }))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        match name {
            MAGIC_DATE => match capture_value(value)? {
                Value::Long(ms) => Ok(Value::Date(ms)),
                other => Err(Error::mismatch("date millis", other.kind())),
            },
            MAGIC_VALUE => {
                HANDOVER.with(|h| *h.borrow_mut() = Some(HandOver::Clone(None)));
                let res = value.serialize(UnitSink);
                let back = HANDOVER.with(|h| h.borrow_mut().take());
                res?;
                match back {
                    Some(HandOver::Clone(Some(v))) => Ok(v),
                    _ => Err(Error::Custom("hessian2: Value hand-over failed".into())),
                }
            }
            MAGIC_TYPED_LIST | MAGIC_TYPED_MAP => match value.serialize(self.child())? {
                Value::List(List { items, .. }) if items.len() == 2 => {
                    let mut it = items.into_iter();
                    let t = it.next().and_then(|t| match t {
                        Value::String(s) if !s.is_empty() => Some(s),
                        _ => None,
                    });
                    match it.next() {
                        Some(Value::List(mut l)) => {
                            l.type_name = t;
                            Ok(Value::List(l))
                        }
                        Some(Value::Map(mut m)) => {
                            m.type_name = t;
                            Ok(Value::Map(m))
                        }
                        Some(other) => Ok(other),
                        None => Ok(Value::Null),
                    }
                }
                other => Err(Error::mismatch("typed collection payload", other.kind())),
            },
            _ => value.serialize(self),
        }
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        let v = value.serialize(self.child())?;
        Ok(Value::map(vec![(Value::String(variant.to_owned()), v)]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<ValueSeq, Error> {
        Ok(ValueSeq {
            ser: self.child(),
            items: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            variant: None,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<ValueSeq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<ValueSeq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<ValueSeq, Error> {
        let mut s = self.serialize_seq(Some(len))?;
        s.variant = Some(variant);
        Ok(s)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<ValueMap, Error> {
        Ok(ValueMap {
            ser: self.child(),
            entries: Vec::with_capacity(len.unwrap_or(0).min(4096)),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<ValueStruct, Error> {
        Ok(ValueStruct {
            ser: self.child(),
            class: name,
            names: Vec::with_capacity(len),
            prim: Vec::with_capacity(len),
            f32_prim: Vec::with_capacity(len),
            values: Vec::with_capacity(len),
        })
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<ValueMap, Error> {
        let mut m = self.serialize_map(Some(len))?;
        m.variant = Some(variant);
        Ok(m)
    }
}

/// Sequence state of [`ValueSer`].
pub(crate) struct ValueSeq {
    ser: ValueSer,
    items: Vec<Value>,
    variant: Option<&'static str>,
}

impl ValueSeq {
    fn finish(self) -> Value {
        let list = Value::list(self.items);
        match self.variant {
            Some(v) => Value::map(vec![(Value::String(v.to_owned()), list)]),
            None => list,
        }
    }
}

impl ser::SerializeSeq for ValueSeq {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.ser)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTuple for ValueSeq {
    type Ok = Value;
    type Error = Error;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.ser)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTupleStruct for ValueSeq {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.ser)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTupleVariant for ValueSeq {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(value.serialize(self.ser)?);
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

/// Map state of [`ValueSer`].
pub(crate) struct ValueMap {
    ser: ValueSer,
    entries: Vec<(Value, Value)>,
    key: Option<Value>,
    variant: Option<&'static str>,
}

impl ValueMap {
    fn finish(self) -> Value {
        let map = Value::map(self.entries);
        match self.variant {
            Some(v) => Value::map(vec![(Value::String(v.to_owned()), map)]),
            None => map,
        }
    }
}

impl ser::SerializeMap for ValueMap {
    type Ok = Value;
    type Error = Error;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(self.ser)?);
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Error> {
        let k = self.key.take().unwrap_or(Value::Null);
        self.entries.push((k, value.serialize(self.ser)?));
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for ValueMap {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.entries
            .push((Value::String(key.to_owned()), value.serialize(self.ser)?));
        Ok(())
    }
    fn end(self) -> Result<Value, Error> {
        Ok(self.finish())
    }
}

/// Struct state of [`ValueSer`].
pub(crate) struct ValueStruct {
    ser: ValueSer,
    class: &'static str,
    names: Vec<&'static str>,
    prim: Vec<bool>,
    f32_prim: Vec<bool>,
    values: Vec<Value>,
}

impl ValueStruct {
    fn push<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: Option<&T>,
    ) -> Result<(), Error> {
        let tn = std::any::type_name::<T>();
        let is_f32 = value.is_some() && tn == "f32";
        self.names.push(key);
        self.prim.push(value.is_some() && is_java_lang_field(tn));
        self.f32_prim.push(is_f32);
        self.values.push(match value {
            Some(v) => v.serialize(ValueSer {
                mark_enums: self.ser.mark_enums,
                prim_f32: is_f32,
            })?,
            None => Value::Null,
        });
        Ok(())
    }
}

impl ser::SerializeStruct for ValueStruct {
    type Ok = Value;
    type Error = Error;
    fn serialize_field<T: ?Sized + Serialize>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.push(key, Some(value))
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), Error> {
        self.push::<()>(key, None)
    }
    fn end(self) -> Result<Value, Error> {
        let layout = match cached_layout(self.class) {
            Some(l) if l.names == self.names => l,
            _ => compute_layout(self.class, self.names, &self.prim, self.f32_prim),
        };
        let mut ordered: Vec<(String, Value)> = layout
            .wire_names
            .iter()
            .map(|n| ((*n).to_owned(), Value::Null))
            .collect();
        for (i, v) in self.values.into_iter().enumerate() {
            if let Some(slot) = layout.wire_pos.get(i).and_then(|&p| ordered.get_mut(p)) {
                slot.1 = v;
            }
        }
        Ok(Value::Object(Object {
            class: self.class.to_owned(),
            fields: ordered,
        }))
    }
}

// ----- Serialize for Value --------------------------------------------------------------------

impl Serialize for Value {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(MAGIC_VALUE, &ValueShim(self))
    }
}

struct ValueShim<'a>(&'a Value);

impl Serialize for ValueShim<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if hand_over(self.0) {
            return s.serialize_unit();
        }
        generic_serialize(self.0, s)
    }
}

struct Generic<'a>(&'a Value);

impl Serialize for Generic<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        generic_serialize(self.0, s)
    }
}

/// Serializes a [`Value`] for formats other than Hessian (e.g. JSON): objects become
/// maps of their fields, dates their millis, references `null`.
fn generic_serialize<S: ser::Serializer>(v: &Value, s: S) -> Result<S::Ok, S::Error> {
    use ser::{SerializeMap, SerializeSeq};
    match v {
        Value::Null | Value::Ref(_) => s.serialize_unit(),
        Value::Bool(b) => s.serialize_bool(*b),
        Value::Int(i) => s.serialize_i32(*i),
        Value::Long(l) => s.serialize_i64(*l),
        Value::Double(d) => s.serialize_f64(*d),
        Value::String(st) => s.serialize_str(st),
        Value::Binary(b) => s.serialize_bytes(b),
        Value::Date(d) => s.serialize_i64(*d),
        Value::List(l) => {
            let mut seq = s.serialize_seq(Some(l.items.len()))?;
            for i in &l.items {
                seq.serialize_element(&Generic(i))?;
            }
            seq.end()
        }
        Value::Map(m) => {
            let mut map = s.serialize_map(Some(m.entries.len()))?;
            for (k, val) in &m.entries {
                map.serialize_entry(&Generic(k), &Generic(val))?;
            }
            map.end()
        }
        Value::Object(o) => {
            let mut map = s.serialize_map(Some(o.fields.len()))?;
            for (k, val) in &o.fields {
                map.serialize_entry(k, &Generic(val))?;
            }
            map.end()
        }
    }
}
