//! `Serialize for Value`: handed over whole to a Hessian serializer, mapped onto serde's
//! data model for any other format.

use serde::ser::{self, Serialize};

use super::forms::MAGIC_VALUE;
use super::handover::hand_over;
use crate::value::Value;

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
