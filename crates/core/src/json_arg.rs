//! [`JsonArg`]: an argument as an HTTP request carries it (the REST form and the JSON form of
//! Triple), kept as it came and decoded straight into the callee's type.
//!
//! Why a form of its own rather than a [`Value`] tree: a JSON body read into a tree first
//! (objects as untyped maps, numbers guessed as `int`/`long`/`double`) and then into the
//! callee's type costs an allocation per field and loses what the text said (`"007"` and `7`
//! differ in JSON, not once guessed). serde_json reads the text straight into the parameter's
//! type, as the Hessian bytes of the other protocols are read; the tree is made only for
//! whoever asks to look inside ([`to_value`](JsonArg::to_value): filters, routers, generic
//! calls).

use bytes::Bytes;
use dubbo_hessian2::Value;
use serde::de::DeserializeOwned;

use crate::text_de::TextDeserializer;

/// One argument taken from an HTTP request.
#[derive(Clone, PartialEq, Eq)]
pub enum JsonArg {
    /// One JSON text: a request body, or one element (or named member) of a JSON array
    /// (object) body. Decoded by serde_json.
    Json(Bytes),
    /// A value from a place where HTTP has text, not JSON: a path variable, query parameter,
    /// header, cookie or form field, or a `text/plain` or `application/octet-stream` body.
    /// Decoded by parsing the text as the callee's type asks (`"42"` into an `i64`, `"true"`
    /// into a `bool`, comma-separated items into a `Vec`; raw bytes into a `ByteBuf`).
    Text(Bytes),
}

impl JsonArg {
    /// A JSON text.
    pub fn json(text: impl Into<Bytes>) -> Self {
        JsonArg::Json(text.into())
    }

    /// A text value.
    pub fn text(text: impl Into<Bytes>) -> Self {
        JsonArg::Text(text.into())
    }

    /// The bytes as they came.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            JsonArg::Json(b) | JsonArg::Text(b) => b,
        }
    }

    /// Decodes the argument into `T`.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, dubbo_hessian2::Error> {
        match self {
            JsonArg::Json(b) => serde_json::from_slice(b).map_err(|e| {
                dubbo_hessian2::Error::Custom(format!("invalid JSON for this parameter: {e}"))
            }),
            JsonArg::Text(b) => T::deserialize(TextDeserializer::new(b)),
        }
    }

    /// The argument as a dynamic tree: JSON as
    /// [`json_to_value`](dubbo_hessian2::json::json_to_value) reads it, text as a string
    /// (binary when it is not UTF-8).
    pub fn to_value(&self) -> Result<Value, dubbo_hessian2::Error> {
        match self {
            JsonArg::Json(b) => {
                let json: serde_json::Value = serde_json::from_slice(b)
                    .map_err(|e| dubbo_hessian2::Error::Custom(format!("invalid JSON: {e}")))?;
                Ok(dubbo_hessian2::json::json_to_value(&json))
            }
            JsonArg::Text(b) => Ok(match std::str::from_utf8(b) {
                Ok(s) => Value::String(s.to_owned()),
                Err(_) => Value::Binary(b.to_vec()),
            }),
        }
    }
}

impl std::fmt::Debug for JsonArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (form, b) = match self {
            JsonArg::Json(b) => ("Json", b),
            JsonArg::Text(b) => ("Text", b),
        };
        write!(f, "{form}({:?})", String::from_utf8_lossy(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct User {
        id: i64,
        name: String,
        tags: Option<Vec<String>>,
    }

    #[test]
    fn json_decodes_straight_into_the_type() {
        let a = JsonArg::json(r#"{"id": 7, "name": "007", "tags": ["x"]}"#);
        assert_eq!(
            a.decode::<User>().unwrap(),
            User {
                id: 7,
                name: "007".into(),
                tags: Some(vec!["x".into()])
            }
        );
        // A string where a number is wanted is refused, not guessed.
        assert!(JsonArg::json(r#"{"id": "7", "name": "a"}"#)
            .decode::<User>()
            .is_err());
        assert!(JsonArg::json("{oops").decode::<User>().is_err());
    }

    #[test]
    fn text_is_parsed_as_the_type_asks() {
        assert_eq!(JsonArg::text("42").decode::<i64>().unwrap(), 42);
        assert_eq!(JsonArg::text("007").decode::<String>().unwrap(), "007");
        assert!(JsonArg::text("true").decode::<bool>().unwrap());
        assert_eq!(JsonArg::text("2.5").decode::<f64>().unwrap(), 2.5);
        assert_eq!(JsonArg::text("5").decode::<Option<u8>>().unwrap(), Some(5));
        assert_eq!(
            JsonArg::text("a,b").decode::<Vec<String>>().unwrap(),
            vec!["a".to_owned(), "b".to_owned()]
        );
        assert!(JsonArg::text("abc").decode::<i32>().is_err());
        assert!(JsonArg::text("300").decode::<u8>().is_err());
        assert!(JsonArg::text("x").decode::<User>().is_err());
    }

    #[test]
    fn trees_for_whoever_looks_inside() {
        assert_eq!(
            JsonArg::json("[1, \"a\"]").to_value().unwrap(),
            Value::list(vec![Value::Int(1), Value::String("a".into())])
        );
        assert_eq!(
            JsonArg::text("hi").to_value().unwrap(),
            Value::String("hi".into())
        );
        assert_eq!(
            JsonArg::text(vec![0xffu8]).to_value().unwrap(),
            Value::Binary(vec![0xff])
        );
    }
}
