//! [`Payload`]: one value a call carries, an argument or its result, in whichever form the
//! side that holds it has it.

use dubbo_hessian2::{Encoded, Hessian2Writer, Typed, Value};

use crate::json_arg::JsonArg;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// One value of a call (an argument, or the result) as whoever holds it has it: the caller's
/// own Rust value, the bytes that came off the wire, or a dynamic [`Value`].
///
/// A typed call never goes through a `Value` tree: a generated client hands its arguments
/// over as [`Payload::Typed`], which the protocol writes straight from their `Serialize` impls,
/// and a provider's result comes back as [`Payload::Hessian2`], bytes that the generated
/// client decodes straight into the declared return type. The tree is made only for whoever
/// asks for it with [`to_value`](Self::to_value) or [`into_value`](Self::into_value):
/// generic calls, routers and filters that read arguments (`arguments[0]` in a condition
/// rule, consistent hashing, the access log), the QoS `invoke` command and the HTTP/1.1 JSON
/// form.
///
/// Cloning is cheap in every form (a shared value, shared bytes, or a tree the caller chose).
#[derive(Clone)]
pub enum Payload {
    /// A dynamic value.
    Value(Value),
    /// A Rust value, encoded straight from its `Serialize` impl.
    Typed(Typed),
    /// One value in its Hessian 2 encoding, a stream of its own.
    Hessian2(Encoded),
    /// One argument as an HTTP request carried it (JSON text, or a text value such as a path
    /// variable), decoded by serde_json or parsed straight into the callee's type.
    Json(JsonArg),
}

impl Payload {
    /// `value` as it is, to be encoded straight from its `Serialize` impl.
    pub fn typed<T: Serialize + Send + 'static>(value: T) -> Self {
        Payload::Typed(Typed::new(value))
    }

    /// Java's `null`.
    pub fn null() -> Self {
        Payload::Value(Value::Null)
    }

    /// Whether this is Java's `null` (without decoding anything that is not a tree).
    pub fn is_null(&self) -> bool {
        matches!(self, Payload::Value(Value::Null))
    }

    /// The tree, when the payload is one already (nothing is decoded).
    pub fn as_value(&self) -> Option<&Value> {
        match self {
            Payload::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The value as a dynamic tree, made now for the typed and encoded forms.
    pub fn to_value(&self) -> Result<Value, dubbo_hessian2::Error> {
        match self {
            Payload::Value(v) => Ok(v.clone()),
            Payload::Typed(t) => t.to_value(),
            Payload::Hessian2(e) => e.to_value(),
            Payload::Json(j) => j.to_value(),
        }
    }

    /// [`to_value`](Self::to_value), without a copy when it is a tree already.
    pub fn into_value(self) -> Result<Value, dubbo_hessian2::Error> {
        match self {
            Payload::Value(v) => Ok(v),
            other => other.to_value(),
        }
    }

    /// The value as a `T`: straight from the bytes when it came off the wire, through its
    /// tree otherwise.
    pub fn decode<T: DeserializeOwned>(self) -> Result<T, dubbo_hessian2::Error> {
        match self {
            Payload::Hessian2(e) => e.decode(),
            Payload::Value(v) => dubbo_hessian2::from_value(v),
            Payload::Typed(t) => dubbo_hessian2::from_value(t.to_value()?),
            Payload::Json(j) => j.decode(),
        }
    }

    /// Writes the value into `w`'s Hessian 2 stream. Bytes of their own stream cannot share
    /// this one's class and reference tables, so they are written again from their tree.
    pub fn write_hessian(&self, w: &mut Hessian2Writer) -> Result<(), dubbo_hessian2::Error> {
        match self {
            Payload::Value(v) => w.write_value(v),
            Payload::Typed(t) => t.write_to(w),
            Payload::Hessian2(e) => w.write_value(&e.to_value()?),
            Payload::Json(j) => w.write_value(&j.to_value()?),
        }
    }

    /// The value as JSON text, for the HTTP forms' answers: a typed value straight from its
    /// `Serialize` impl, JSON as it came, the other forms through their tree (as
    /// [`value_to_json`](dubbo_hessian2::json::value_to_json) writes it).
    pub fn to_json(&self) -> Result<Vec<u8>, dubbo_hessian2::Error> {
        let tree = match self {
            Payload::Typed(t) => return t.to_json(),
            Payload::Json(JsonArg::Json(b)) => return Ok(b.to_vec()),
            Payload::Value(v) => dubbo_hessian2::json::value_to_json(v),
            other => dubbo_hessian2::json::value_to_json(&other.to_value()?),
        };
        serde_json::to_vec(&tree).map_err(|e| dubbo_hessian2::Error::Custom(e.to_string()))
    }

    /// The value as a stream of its own: the encoded bytes as they are, else a fresh encoding
    /// (Triple's wrapper mode carries each argument and result this way).
    pub fn to_hessian_bytes(&self) -> Result<bytes::Bytes, dubbo_hessian2::Error> {
        match self {
            Payload::Hessian2(e) => Ok(e.bytes().clone()),
            other => {
                let mut w = Hessian2Writer::new();
                other.write_hessian(&mut w)?;
                Ok(bytes::Bytes::from(w.into_bytes()))
            }
        }
    }

    /// A short name of the form, for messages (`value`, `typed`, `hessian2`, `json`).
    pub fn form(&self) -> &'static str {
        match self {
            Payload::Value(_) => "value",
            Payload::Typed(_) => "typed",
            Payload::Hessian2(_) => "hessian2",
            Payload::Json(_) => "json",
        }
    }
}

impl Default for Payload {
    fn default() -> Self {
        Payload::null()
    }
}

impl From<Value> for Payload {
    fn from(v: Value) -> Self {
        Payload::Value(v)
    }
}

impl From<&str> for Payload {
    fn from(s: &str) -> Self {
        Payload::Value(Value::String(s.to_owned()))
    }
}

impl From<String> for Payload {
    fn from(s: String) -> Self {
        Payload::Value(Value::String(s))
    }
}

/// Shows the contents whatever the form (decoding encoded bytes to do so), since a payload is
/// printed for a person: in a log line, a test failure, an error message.
impl std::fmt::Debug for Payload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Payload::Value(v) => f.debug_tuple("Value").field(v).finish(),
            Payload::Typed(t) => match t.to_value() {
                Ok(v) => f.debug_tuple(t.rust_type()).field(&v).finish(),
                Err(_) => std::fmt::Debug::fmt(t, f),
            },
            Payload::Hessian2(e) => match e.to_value() {
                Ok(v) => f.debug_tuple("Hessian2").field(&v).finish(),
                Err(_) => std::fmt::Debug::fmt(e, f),
            },
            Payload::Json(j) => std::fmt::Debug::fmt(j, f),
        }
    }
}

/// Equal when the trees are: a payload equals a value, or another payload, of the same
/// contents whatever the forms. Meant for tests and checks, as it may decode.
impl PartialEq for Payload {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Payload::Value(a), Payload::Value(b)) => a == b,
            _ => matches!((self.to_value(), other.to_value()), (Ok(a), Ok(b)) if a == b),
        }
    }
}

impl PartialEq<Value> for Payload {
    fn eq(&self, other: &Value) -> bool {
        match self {
            Payload::Value(v) => v == other,
            _ => matches!(self.to_value(), Ok(v) if v == *other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename = "a.User")]
    struct User {
        id: i64,
        name: String,
    }

    fn user() -> User {
        User {
            id: 7,
            name: "u".into(),
        }
    }

    #[test]
    fn every_form_decodes_to_the_same_value_and_tree() {
        let tree = dubbo_hessian2::to_value(&user()).unwrap();
        let bytes = bytes::Bytes::from(dubbo_hessian2::to_vec(&user()).unwrap());
        let forms = [
            Payload::typed(user()),
            Payload::Value(tree.clone()),
            Payload::Hessian2(Encoded::new(bytes.clone())),
        ];
        for p in forms {
            assert_eq!(p.to_value().unwrap(), tree, "{}", p.form());
            assert_eq!(p, tree, "{}", p.form());
            assert_eq!(p.to_hessian_bytes().unwrap(), bytes, "{}", p.form());
            assert_eq!(p.clone().decode::<User>().unwrap(), user(), "{}", p.form());
        }
    }

    #[test]
    fn null_and_garbage() {
        assert!(Payload::default().is_null());
        assert!(!Payload::typed(()).is_null());
        let garbage = Payload::Hessian2(Encoded::new(bytes::Bytes::from_static(b"S\x00\x09ab")));
        assert!(garbage.to_value().is_err());
        assert!(garbage.clone().decode::<User>().is_err());
        assert_ne!(garbage, Value::Null);
    }
}
