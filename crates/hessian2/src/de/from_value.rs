//! [`ValueDeserializer`]: deserializing from a [`Value`] tree ([`from_value`](crate::from_value)).

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use super::java_default::JavaDefault;
use super::stash::visit_stashed;
use crate::error::Error;
use crate::ser::{MAGIC_TYPED_LIST, MAGIC_TYPED_MAP, MAGIC_VALUE};
use crate::value::{List, Map, Object, Value};

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

/// Visits `value` (an object, or a map keyed by strings) as the struct whose fields are
/// `fields`, adding the fields it lacks with their Java default. Any other value is visited as
/// it is.
fn visit_struct<'de, V: Visitor<'de>>(
    value: Value,
    fields: &'static [&'static str],
    visitor: V,
) -> Result<V::Value, Error> {
    let given: Vec<(String, Value)> = match value {
        Value::Object(Object { fields: f, .. }) => f,
        Value::Map(Map { entries, .. })
            if entries.iter().all(|(k, _)| matches!(k, Value::String(_))) =>
        {
            entries
                .into_iter()
                .filter_map(|(k, v)| match k {
                    Value::String(k) => Some((k, v)),
                    _ => None,
                })
                .collect()
        }
        other => return de::Deserializer::deserialize_any(ValueDeserializer(other), visitor),
    };
    let absent: Vec<(String, Option<Value>)> = fields
        .iter()
        .filter(|f| !given.iter().any(|(k, _)| k == *f))
        .map(|f| ((*f).to_owned(), None))
        .collect();
    let iter = given
        .into_iter()
        .map(|(k, v)| (k, Some(v)))
        .chain(absent)
        .collect::<Vec<_>>()
        .into_iter();
    visitor.visit_map(StructDe { iter, value: None })
}

struct StructDe {
    iter: std::vec::IntoIter<(String, Option<Value>)>,
    /// The value of the key just read; `Some(None)` for a field the tree lacks.
    value: Option<Option<Value>>,
}

impl<'de> de::MapAccess<'de> for StructDe {
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
        match self.value.take().flatten() {
            Some(v) => seed.deserialize(ValueDeserializer(v)),
            None => seed.deserialize(JavaDefault),
        }
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// Enum state of [`ValueDeserializer`] (also used by the streaming deserializer for a
/// variant sent as a plain string).
pub(super) struct EnumDe {
    pub(super) variant: Value,
    pub(super) content: Option<Value>,
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

pub(super) struct VariantDe(Option<Value>);

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
        if name == MAGIC_VALUE {
            // A `Value` asked of a typed value gets its tree: what it would have decoded to.
            return visit_stashed(self.0, visitor);
        }
        match (name, self.0) {
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

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visit_struct(self.0, fields, visitor)
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
        tuple_struct map identifier
    }
}
