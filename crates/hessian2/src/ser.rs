//! serde serialization: [`Ser`] streams into a [`Hessian2Writer`](crate::Hessian2Writer);
//! [`ValueSer`] builds a [`Value`](crate::Value) (used by [`to_value`](crate::to_value) and to buffer struct
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
//! | [`Value`](crate::Value)               | itself, class names and types kept          |
//!
//! One file per serializer: [`stream`] (into a writer) with [`structs`] (objects in
//! hessian-lite's field order, from the [`layout`] of their class), [`value_ser`] (into a
//! [`Value`](crate::Value)); [`handover`] passes a `Value` through serde whole, and
//! [`value_serialize`] is `Serialize for Value`.

/// The methods of a serializer that refuse every value (special forms take one shape only).
macro_rules! reject {
    ($($f:ident($($t:ty),*)),* $(,)?) => {
        $(fn $f(self, $(_: $t),*) -> Result<Self::Ok, Self::Error> {
            Err(Error::Unsupported("value in a hessian2 special form".into()))
        })*
    };
}

mod forms;
mod handover;
pub(crate) mod layout;
mod numbers;
mod stream;
mod structs;
mod value_ser;
mod value_serialize;

pub(crate) use forms::{MAGIC_DATE, MAGIC_TYPED_LIST, MAGIC_TYPED_MAP, MAGIC_VALUE};
pub(crate) use stream::Ser;
pub(crate) use value_ser::ValueSer;
