//! serde deserialization: from a [`Value`](crate::Value) ([`from_value`](crate::from_value)) and
//! `impl Deserialize for Value`.
//!
//! Objects deserialize like maps of their fields, so `#[derive(Deserialize)]` structs
//! match fields by name and skip unknown ones (unless `deny_unknown_fields`); `H`/`M`
//! maps deserialize into structs too (Java generic calls send POJOs as maps with an
//! extra `"class"` key, which is simply an unknown field). Enums accept a Java enum
//! object (its `name` field), a plain string, or a one-entry map `{variant: content}`.
//! Dates deserialize as `i64` millis (or [`java::Date`](crate::java::Date)); a
//! [`Value::Ref`](crate::Value::Ref) (a cycle) deserializes as `None`/unit.
//!
//! One file per deserializer: [`from_value`] (a [`Value`](crate::Value) tree), [`stream`]
//! (straight from a [`Hessian2Reader`](crate::Hessian2Reader)); [`value_visitor`] is
//! `Deserialize for Value`, which takes values handed over whole through [`stash`].

mod from_value;
mod java_default;
mod stash;
mod stream;
mod value_visitor;

pub use from_value::ValueDeserializer;
