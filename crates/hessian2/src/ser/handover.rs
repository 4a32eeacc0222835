//! Hand-over of a [`Value`] through serde: `Serialize for Value` cannot tell which
//! serializer it is given, so a Hessian serializer parks itself (or a request for a clone)
//! in a thread-local slot that the value's serialization picks up.

use std::cell::RefCell;

use serde::ser::{self, Serialize};

use crate::error::Error;
use crate::value::Value;
use crate::writer::Hessian2Writer;

pub(super) enum HandOver {
    Writer(Box<Hessian2Writer>, Option<Error>),
    Clone(Option<Value>),
}

thread_local! {
    pub(super) static HANDOVER: RefCell<Option<HandOver>> = const { RefCell::new(None) };
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
pub(super) struct UnitSink;
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
