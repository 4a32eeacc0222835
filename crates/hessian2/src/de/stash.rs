//! Hand-over of a decoded [`Value`] to `Value::deserialize` whole, through a thread-local
//! slot, instead of re-describing it through serde's data model.

use std::cell::RefCell;

use serde::de::{self, Visitor};

use super::from_value::ValueDeserializer;
use crate::error::Error;
use crate::value::Value;

thread_local! {
    /// A decoded [`Value`] waiting for `Value::deserialize` (hessian deserializers
    /// hand values over whole instead of re-describing them through serde).
    pub(super) static STASH: RefCell<Option<Value>> = const { RefCell::new(None) };
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
