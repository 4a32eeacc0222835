//! The serde serializer that streams into a [`Hessian2Writer`], with its sequence, map
//! and typed-collection states (structs: [`super::structs`]).

use serde::ser::{self, Serialize};

use super::forms::{MAGIC_DATE, MAGIC_TYPED_LIST, MAGIC_TYPED_MAP, MAGIC_VALUE};
use super::handover::{HandOver, UnitSink, HANDOVER};
use super::numbers::{float_box, u64_to_i64};
use super::structs::StructSer;
use super::value_ser::capture_value;
use crate::error::Error;
use crate::value::Value;
use crate::writer::Hessian2Writer;

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
