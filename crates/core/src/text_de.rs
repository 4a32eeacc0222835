//! A serde deserializer over one text value of an HTTP request (a path variable, a query
//! parameter, a header...), parsing it as the callee's type asks: what Spring's and JAX-RS's
//! string converters do for a Java parameter.

use serde::de::{self, DeserializeSeed, IntoDeserializer, SeqAccess, Visitor};

use dubbo_hessian2::Error;

/// Deserializes one text value.
pub(crate) struct TextDeserializer<'a> {
    bytes: &'a [u8],
}

impl<'a> TextDeserializer<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    fn str(&self) -> Result<&'a str, Error> {
        std::str::from_utf8(self.bytes)
            .map_err(|_| Error::Custom("the value is not UTF-8 text".into()))
    }

    fn parse<T: std::str::FromStr>(&self, what: &str) -> Result<T, Error>
    where
        T::Err: std::fmt::Display,
    {
        let s = self.str()?;
        s.trim()
            .parse()
            .map_err(|e| Error::Custom(format!("{s:?} is not {what}: {e}")))
    }
}

macro_rules! parse_fn {
    ($name:ident, $visit:ident, $ty:ty, $what:literal) => {
        fn $name<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.$visit(self.parse::<$ty>($what)?)
        }
    };
}

impl<'de> de::Deserializer<'de> for TextDeserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match std::str::from_utf8(self.bytes) {
            Ok(s) => visitor.visit_borrowed_str(s),
            Err(_) => visitor.visit_borrowed_bytes(self.bytes),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let s = self.str()?.trim();
        if s.eq_ignore_ascii_case("true") || s == "1" {
            visitor.visit_bool(true)
        } else if s.eq_ignore_ascii_case("false") || s == "0" {
            visitor.visit_bool(false)
        } else {
            Err(Error::Custom(format!("{s:?} is not a boolean")))
        }
    }

    parse_fn!(deserialize_i8, visit_i8, i8, "a byte");
    parse_fn!(deserialize_i16, visit_i16, i16, "a short");
    parse_fn!(deserialize_i32, visit_i32, i32, "an int");
    parse_fn!(deserialize_i64, visit_i64, i64, "a long");
    parse_fn!(deserialize_i128, visit_i128, i128, "an integer");
    parse_fn!(deserialize_u8, visit_u8, u8, "an unsigned byte");
    parse_fn!(deserialize_u16, visit_u16, u16, "an unsigned short");
    parse_fn!(deserialize_u32, visit_u32, u32, "an unsigned int");
    parse_fn!(deserialize_u64, visit_u64, u64, "an unsigned long");
    parse_fn!(deserialize_u128, visit_u128, u128, "an unsigned integer");
    parse_fn!(deserialize_f32, visit_f32, f32, "a float");
    parse_fn!(deserialize_f64, visit_f64, f64, "a double");
    parse_fn!(deserialize_char, visit_char, char, "one character");

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.str()?)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_bytes(self.bytes)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_bytes(self.bytes)
    }

    /// A value that is there is `Some`; a missing one never reaches a deserializer (it is
    /// `null`).
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// Comma-separated items, as Spring converts `a,b` into a `List`.
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let s = self.str()?;
        let items: Vec<&'de str> = if s.is_empty() {
            Vec::new()
        } else {
            s.split(',').collect()
        };
        visitor.visit_seq(Items(items.into_iter()))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Error> {
        Err(not_text("a map"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        _fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Error> {
        Err(not_text(&format!("the object {name}")))
    }

    /// A unit variant by its name.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.str()?.into_deserializer())
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

fn not_text(what: &str) -> Error {
    Error::Custom(format!(
        "{what} cannot be read from one text value; send it as the JSON body"
    ))
}

/// The items of a comma-separated value.
struct Items<I>(I);

impl<'de, I: Iterator<Item = &'de str>> SeqAccess<'de> for Items<I> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.0.next() {
            Some(item) => seed
                .deserialize(TextDeserializer::new(item.as_bytes()))
                .map(Some),
            None => Ok(None),
        }
    }
}
