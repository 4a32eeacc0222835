//! Hessian 2 serialization for dubbo-rs, byte-for-byte compatible with the
//! `com.alibaba:hessian-lite` 4.0.x codec that Java Dubbo 3.3 uses.
//!
//! Placeholder docs; see the full crate documentation below.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod constants;
mod de;
mod error;
mod fxhash;
pub mod java;
mod reader;
mod ser;
mod value;
mod writer;

pub use de::ValueDeserializer;
pub use error::Error;
pub use reader::{Hessian2Reader, Limits};
pub use value::{List, Map, Object, Value};
pub use writer::Hessian2Writer;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// Serializes `v` as one Hessian 2 stream (fresh tables).
pub fn to_vec<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, Error> {
    let mut w = Hessian2Writer::new();
    w.serialize(v)?;
    Ok(w.into_bytes())
}

/// Deserializes one value from `bytes`, which must hold exactly that value.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    let mut r = Hessian2Reader::new(bytes);
    let v = r.deserialize()?;
    if r.remaining() > 0 {
        return Err(Error::TrailingBytes {
            count: r.remaining(),
        });
    }
    Ok(v)
}

/// Converts any `Serialize` value into a [`Value`], with the same mapping (class
/// names, field order, enum objects...) the writer uses.
pub fn to_value<T: Serialize + ?Sized>(v: &T) -> Result<Value, Error> {
    v.serialize(ser::ValueSer::plain())
}

/// Deserializes a `T` from a [`Value`].
pub fn from_value<T: DeserializeOwned>(v: Value) -> Result<T, Error> {
    T::deserialize(ValueDeserializer(v))
}

/// Deserializes a `T` from a borrowed [`Value`] (clones it).
pub fn from_value_ref<T: DeserializeOwned>(v: &Value) -> Result<T, Error> {
    from_value(v.clone())
}

impl Hessian2Writer {
    /// Serializes any `Serialize` value into this stream (see the crate docs for the
    /// Rust to Java mapping).
    pub fn serialize<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        v.serialize(ser::Ser::new(self))
    }
}

impl Hessian2Reader<'_> {
    /// Deserializes the next value of the stream into `T`.
    pub fn deserialize<T: DeserializeOwned>(&mut self) -> Result<T, Error> {
        let v = self.read_value()?;
        from_value(v)
    }
}
