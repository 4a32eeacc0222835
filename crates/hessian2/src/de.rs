//! serde deserialization: from a [`Value`] ([`from_value`](crate::from_value)) and
//! `impl Deserialize for Value`.
//!
//! Objects deserialize like maps of their fields, so `#[derive(Deserialize)]` structs
//! match fields by name and skip unknown ones (unless `deny_unknown_fields`); `H`/`M`
//! maps deserialize into structs too (Java generic calls send POJOs as maps with an
//! extra `"class"` key, which is simply an unknown field). Enums accept a Java enum
//! object (its `name` field), a plain string, or a one-entry map `{variant: content}`.
//! Dates deserialize as `i64` millis (or [`java::Date`](crate::java::Date)); a
//! [`Value::Ref`] (a cycle) deserializes as `None`/unit.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::Deserialize;

use crate::error::Error;
use crate::ser::{MAGIC_TYPED_LIST, MAGIC_TYPED_MAP, MAGIC_VALUE};
use crate::value::{List, Map, Object, Value};

thread_local! {
    /// A decoded [`Value`] waiting for `Value::deserialize` (hessian deserializers
    /// hand values over whole instead of re-describing them through serde).
    static STASH: RefCell<Option<Value>> = const { RefCell::new(None) };
}

/// Hands `v` to a `Value` visitor through the stash, or lets `visitor` deserialize it.
pub(crate) fn visit_stashed<'de, V: Visitor<'de>>(v: Value, visitor: V) -> Result<V::Value, Error> {
    STASH.with(|s| *s.borrow_mut() = Some(v));
    let res = visitor.visit_newtype_struct(StashProbe);
    STASH.with(|s| s.borrow_mut().take());
    res
}

/// The deserializer passed with a stashed value; a `Value` visitor never calls it.
struct StashProbe;

impl<'de> de::Deserializer<'de> for StashProbe {
    type Error = Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match STASH.with(|s| s.borrow_mut().take()) {
            Some(v) => ValueDeserializer(v).deserialize_any(visitor),
            None => visitor.visit_unit(),
        }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

// ----- Deserialize for Value --------------------------------------------------------------

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_newtype_struct(MAGIC_VALUE, ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i32<E>(self, v: i32) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(match i32::try_from(v) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Long(v),
        })
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        match i64::try_from(v) {
            Ok(i) => self.visit_i64(i),
            Err(_) => Ok(Value::Double(v as f64)),
        }
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Double(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Binary(v.to_vec()))
    }
    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Value, E> {
        Ok(Value::Binary(v))
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }
    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        if let Some(v) = STASH.with(|s| s.borrow_mut().take()) {
            return Ok(v);
        }
        d.deserialize_any(ValueVisitor)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element::<Value>()? {
            items.push(v);
        }
        Ok(Value::list(items))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = map.next_entry::<Value, Value>()? {
            entries.push((k, v));
        }
        Ok(Value::map(entries))
    }
}

// ----- Deserializer for Value ----------------------------------------------------------------

/// A serde `Deserializer` over an owned [`Value`].
#[derive(Debug, Clone)]
pub struct ValueDeserializer(pub Value);

impl<'de> IntoDeserializer<'de, Error> for Value {
    type Deserializer = ValueDeserializer;
    fn into_deserializer(self) -> ValueDeserializer {
        ValueDeserializer(self)
    }
}

struct SeqDe {
    iter: std::vec::IntoIter<Value>,
}

impl<'de> de::SeqAccess<'de> for SeqDe {
    type Error = Error;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.iter.next() {
            Some(v) => seed.deserialize(ValueDeserializer(v)).map(Some),
            None => Ok(None),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct MapDe {
    iter: std::vec::IntoIter<(Value, Value)>,
    value: Option<Value>,
}

impl<'de> de::MapAccess<'de> for MapDe {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(ValueDeserializer(k)).map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(ValueDeserializer(self.value.take().unwrap_or(Value::Null)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct FieldsDe {
    iter: std::vec::IntoIter<(String, Value)>,
    value: Option<Value>,
}

impl<'de> de::MapAccess<'de> for FieldsDe {
    type Error = Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(de::value::StringDeserializer::<Error>::new(k))
                    .map(Some)
            }
            None => Ok(None),
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(ValueDeserializer(self.value.take().unwrap_or(Value::Null)))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

struct EnumDe {
    variant: Value,
    content: Option<Value>,
}

impl<'de> de::EnumAccess<'de> for EnumDe {
    type Error = Error;
    type Variant = VariantDe;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, VariantDe), Error> {
        let v = seed.deserialize(ValueDeserializer(self.variant))?;
        Ok((v, VariantDe(self.content)))
    }
}

struct VariantDe(Option<Value>);

impl<'de> de::VariantAccess<'de> for VariantDe {
    type Error = Error;
    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(ValueDeserializer(self.0.unwrap_or(Value::Null)))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(ValueDeserializer(self.0.unwrap_or(Value::Null)), visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(ValueDeserializer(self.0.unwrap_or(Value::Null)), visitor)
    }
}

impl<'de> de::Deserializer<'de> for ValueDeserializer {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null | Value::Ref(_) => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Int(i) => visitor.visit_i32(i),
            Value::Long(l) => visitor.visit_i64(l),
            Value::Double(d) => visitor.visit_f64(d),
            Value::String(s) => visitor.visit_string(s),
            Value::Binary(b) => visitor.visit_byte_buf(b),
            Value::Date(d) => visitor.visit_i64(d),
            Value::List(List { items, .. }) => visitor.visit_seq(SeqDe {
                iter: items.into_iter(),
            }),
            Value::Map(Map { entries, .. }) => visitor.visit_map(MapDe {
                iter: entries.into_iter(),
                value: None,
            }),
            Value::Object(Object { fields, .. }) => visitor.visit_map(FieldsDe {
                iter: fields.into_iter(),
                value: None,
            }),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null | Value::Ref(_) => visitor.visit_none(),
            v => visitor.visit_some(ValueDeserializer(v)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match (name, self.0) {
            (MAGIC_VALUE, v) => visit_stashed(v, visitor),
            (MAGIC_TYPED_LIST, Value::List(List { type_name, items })) => {
                visitor.visit_seq(SeqDe {
                    iter: vec![
                        Value::String(type_name.unwrap_or_default()),
                        Value::list(items),
                    ]
                    .into_iter(),
                })
            }
            (MAGIC_TYPED_MAP, Value::Map(Map { type_name, entries })) => visitor.visit_seq(SeqDe {
                iter: vec![
                    Value::String(type_name.unwrap_or_default()),
                    Value::map(entries),
                ]
                .into_iter(),
            }),
            (_, v) => visitor.visit_newtype_struct(ValueDeserializer(v)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(EnumDe {
                variant: Value::String(s),
                content: None,
            }),
            Value::Object(mut o) => {
                let name = o
                    .fields
                    .iter_mut()
                    .find(|(k, _)| k == "name")
                    .map(|(_, v)| std::mem::replace(v, Value::Null));
                match name {
                    Some(n @ Value::String(_)) => visitor.visit_enum(EnumDe {
                        variant: n,
                        content: None,
                    }),
                    _ => Err(Error::mismatch(
                        "enum",
                        format!("object of class {}", o.class),
                    )),
                }
            }
            Value::Map(m) if m.entries.len() == 1 => {
                let mut it = m.entries.into_iter();
                match it.next() {
                    Some((k, v)) => visitor.visit_enum(EnumDe {
                        variant: k,
                        content: Some(v),
                    }),
                    None => Err(Error::mismatch("enum", "empty map")),
                }
            }
            other => Err(Error::mismatch("enum", other.kind())),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null | Value::Ref(_) => visitor.visit_unit(),
            other => Err(Error::mismatch("null", other.kind())),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        drop(self);
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit_struct seq tuple
        tuple_struct map struct identifier
    }
}
