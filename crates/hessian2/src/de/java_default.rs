//! [`JavaDefault`]: the value of a field a tree lacks. A struct read from a tree that lacks
//! some of the struct's fields gets Java's default for each of them (`0`, `false`, `null`), as a Java deserializer leaves a field the bytes do not
//! carry. fastjson2 relies on it: Java writes with `NotWriteDefaultValue`, so an `int` field
//! holding 0 is not in the bytes at all.

use serde::de::{self, Visitor};

use crate::error::Error;

/// The value of a field the bytes did not carry: zero for numbers, `false`, `'\0'`, and
/// `null` (`None`, unit) for everything else.
pub(super) struct JavaDefault;

macro_rules! zero {
    ($($method:ident => $visit:ident($zero:expr)),* $(,)?) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            visitor.$visit($zero)
        })*
    };
}

impl<'de> de::Deserializer<'de> for JavaDefault {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_none()
    }

    zero! {
        deserialize_bool => visit_bool(false),
        deserialize_i8 => visit_i8(0),
        deserialize_i16 => visit_i16(0),
        deserialize_i32 => visit_i32(0),
        deserialize_i64 => visit_i64(0),
        deserialize_u8 => visit_u8(0),
        deserialize_u16 => visit_u16(0),
        deserialize_u32 => visit_u32(0),
        deserialize_u64 => visit_u64(0),
        deserialize_f32 => visit_f32(0.0),
        deserialize_f64 => visit_f64(0.0),
        deserialize_char => visit_char('\0'),
    }

    serde::forward_to_deserialize_any! {
        i128 u128 str string bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use crate::value::Value;

    #[derive(Debug, PartialEq, Deserialize)]
    struct User {
        id: i64,
        age: i32,
        vip: bool,
        score: f64,
        name: Option<String>,
    }

    #[test]
    fn absent_fields_get_java_defaults_from_objects_and_maps() {
        let want = User {
            id: 7,
            age: 0,
            vip: false,
            score: 0.0,
            name: None,
        };
        let obj = Value::object("a.User", vec![("id", Value::Long(7))]);
        assert_eq!(crate::from_value::<User>(obj).unwrap(), want);
        let map = Value::map(vec![(Value::string("id"), Value::Long(7))]);
        assert_eq!(crate::from_value::<User>(map).unwrap(), want);
    }

    #[test]
    fn a_null_for_a_number_is_still_refused() {
        let obj = Value::object("a.User", vec![("id", Value::Null)]);
        assert!(crate::from_value::<User>(obj).is_err());
    }
}
