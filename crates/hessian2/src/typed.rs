//! [`Typed`] and [`Encoded`]: one value kept as a Rust value or as its Hessian 2 bytes, so that
//! it goes from a caller's type to the wire, or from the wire to a callee's type, without a
//! [`Value`] tree in between.

use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

use crate::error::Error;
use crate::value::Value;
use crate::writer::Hessian2Writer;

/// A serializable Rust value held as is, shared and type-erased.
///
/// Converting a value to a [`Value`] tree first (an allocation per object, field name, string
/// and element) and then encoding the tree costs several times what encoding the value
/// directly does. A `Typed` is encoded straight from its `Serialize` impl
/// ([`write_to`](Self::write_to)), and converted to a tree only when something asks to look
/// inside it ([`to_value`](Self::to_value)).
#[derive(Clone)]
pub struct Typed(Arc<dyn ErasedValue>);

impl Typed {
    /// Wraps `value`.
    pub fn new<T: Serialize + Send + 'static>(value: T) -> Self {
        Typed(Arc::new(Holder(Mutex::new(value))))
    }

    /// The Rust type name of the value (for messages only).
    pub fn rust_type(&self) -> &'static str {
        self.0.rust_type()
    }

    /// The value converted to a [`Value`] tree (as [`to_value`](crate::to_value) does).
    pub fn to_value(&self) -> Result<Value, Error> {
        self.0.to_value()
    }

    /// Writes the value into `w`'s stream, straight from its `Serialize` impl.
    pub fn write_to(&self, w: &mut Hessian2Writer) -> Result<(), Error> {
        self.0.write(w)
    }

    /// The value as JSON text, straight from its `Serialize` impl (the REST form answers
    /// with it; no [`Value`] tree is made).
    #[cfg(feature = "json")]
    pub fn to_json(&self) -> Result<Vec<u8>, Error> {
        self.0.to_json()
    }
}

impl fmt::Debug for Typed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Typed({})", self.rust_type())
    }
}

/// Two typed values are equal when their trees are.
impl PartialEq for Typed {
    fn eq(&self, other: &Self) -> bool {
        matches!((self.to_value(), other.to_value()), (Ok(a), Ok(b)) if a == b)
    }
}

trait ErasedValue: Send + Sync {
    fn write(&self, w: &mut Hessian2Writer) -> Result<(), Error>;
    fn to_value(&self) -> Result<Value, Error>;
    fn rust_type(&self) -> &'static str;
    #[cfg(feature = "json")]
    fn to_json(&self) -> Result<Vec<u8>, Error>;
}

/// The mutex makes any `Send` value shareable (a `Value` is `Sync`); it is only ever
/// locked by the thread encoding the value, so it never waits.
struct Holder<T>(Mutex<T>);

impl<T: Serialize + Send + 'static> ErasedValue for Holder<T> {
    fn write(&self, w: &mut Hessian2Writer) -> Result<(), Error> {
        let v = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        w.serialize(&*v)
    }
    fn to_value(&self) -> Result<Value, Error> {
        let v = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        crate::to_value(&*v)
    }
    fn rust_type(&self) -> &'static str {
        std::any::type_name::<T>()
    }
    #[cfg(feature = "json")]
    fn to_json(&self) -> Result<Vec<u8>, Error> {
        let v = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        serde_json::to_vec(&*v).map_err(|e| Error::Custom(format!("to JSON: {e}")))
    }
}

/// A value still in its Hessian 2 encoding.
///
/// The bytes are a stream of their own (fresh class, type and reference tables) holding
/// exactly one value, as a dubbo:// response body holds its result right after the flag.
/// [`decode`](Self::decode) reads them straight into the caller's type, which skips building
/// a [`Value`] tree first; [`to_value`](Self::to_value) makes the tree for whoever asks.
#[derive(Clone, PartialEq, Eq)]
pub struct Encoded(bytes::Bytes);

impl Encoded {
    /// Wraps the encoding of one value (not checked until it is decoded).
    pub fn new(bytes: bytes::Bytes) -> Self {
        Encoded(bytes)
    }

    /// The encoded bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The encoded bytes, shared.
    pub fn bytes(&self) -> &bytes::Bytes {
        &self.0
    }

    /// Decodes the value into `T`, which may borrow from these bytes (e.g. a struct of
    /// [`CowStr`](crate::CowStr)s, see the crate docs on borrowing).
    pub fn decode<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, Error> {
        crate::from_slice(&self.0)
    }

    /// Decodes the value into a [`Value`] tree.
    pub fn to_value(&self) -> Result<Value, Error> {
        crate::from_slice(&self.0)
    }
}

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Encoded({} bytes)", self.0.len())
    }
}
