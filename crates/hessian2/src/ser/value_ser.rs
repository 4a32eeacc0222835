//! The serde serializer that builds a [`Value`], with its sequence, map and struct
//! states.

use serde::ser::{self, Serialize};

use super::forms::{MAGIC_DATE, MAGIC_TYPED_LIST, MAGIC_TYPED_MAP, MAGIC_VALUE};
use super::handover::{HandOver, UnitSink, HANDOVER};
use super::layout::{cached_layout, compute_layout, is_java_lang_field};
use super::numbers::{float_box, u64_to_i64};
use crate::error::Error;
use crate::value::{List, Object, Value};
use crate::writer::ENUM_MARK;

/// Extracts the payload of a special newtype (Date millis, typed collection name).
pub(super) fn capture_value<T: ?Sized + Serialize>(v: &T) -> Result<Value, Error> {
    v.serialize(ValueSer::plain())
}

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

    pub(super) fn buffer(prim_f32: bool) -> Self {
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
