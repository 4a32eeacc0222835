//! Wrapper mode: `TripleRequestWrapper` and `TripleResponseWrapper`, Java Triple's envelope for
//! interface-style (non-protobuf) services.
//!
//! ```text
//! message TripleRequestWrapper  { string serializeType = 1; repeated bytes args = 2; repeated string argTypes = 3; }
//! message TripleResponseWrapper { string serializeType = 1; bytes data = 2; string type = 3; }
//! ```
//!
//! Java encodes them by hand, and so do we: field 1, then every field 2, then every field 3.
//! Java's hand-written parser rejects any field number other than 1–3 and any wire type other
//! than length-delimited; so does [`TripleRequestWrapper::decode`], so both sides agree on what
//! a valid wrapper is. Each argument is its own Hessian 2 stream (fresh reference tables).

use bytes::{Buf, BufMut, Bytes, BytesMut};
use dubbo_core::Payload;
use dubbo_hessian2::{Encoded, Hessian2Reader, Hessian2Writer, Value};
use prost::encoding::{decode_key, decode_varint, encode_key, encode_varint, WireType};

use crate::status::Status;

/// `serializeType` for Hessian 2 ("hessian4" is what Java Dubbo writes for hessian2).
pub const HESSIAN4: &str = "hessian4";

/// Why a wrapper could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WrapperError {
    /// A field number other than 1, 2 or 3.
    #[error("unexpected field number {0} in Triple wrapper")]
    UnknownField(u32),
    /// A wire type other than length-delimited.
    #[error("unexpected wire type {0:?} in Triple wrapper field {1}")]
    WireType(WireType, u32),
    /// Truncated or otherwise malformed protobuf.
    #[error("malformed Triple wrapper: {0}")]
    Malformed(String),
    /// A string field that is not UTF-8.
    #[error("Triple wrapper field {0} is not valid UTF-8")]
    Utf8(u32),
}

impl From<WrapperError> for Status {
    fn from(e: WrapperError) -> Self {
        Status::internal(e.to_string())
    }
}

/// The request envelope of a wrapper-mode call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TripleRequestWrapper {
    /// The serialization of every argument (`hessian4`).
    pub serialize_type: String,
    /// Each argument, serialized on its own.
    pub args: Vec<Bytes>,
    /// Each argument's Java type as `Class.getName()`.
    pub arg_types: Vec<String>,
}

/// The response envelope of a wrapper-mode call.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TripleResponseWrapper {
    /// The serialization of `data`, echoing the request's.
    pub serialize_type: String,
    /// The serialized return value, or the exception when `tri-exception-code` is set.
    pub data: Bytes,
    /// The Java type name of `data`.
    pub type_name: String,
}

fn put_bytes(out: &mut BytesMut, tag: u32, data: &[u8]) {
    encode_key(tag, WireType::LengthDelimited, out);
    encode_varint(data.len() as u64, out);
    out.put_slice(data);
}

/// Reads the fields of a wrapper, calling `f(tag, bytes)` for each.
fn read_fields(
    mut buf: Bytes,
    mut f: impl FnMut(u32, Bytes) -> Result<(), WrapperError>,
) -> Result<(), WrapperError> {
    while buf.has_remaining() {
        let (tag, wire_type) =
            decode_key(&mut buf).map_err(|e| WrapperError::Malformed(e.to_string()))?;
        if !(1..=3).contains(&tag) {
            return Err(WrapperError::UnknownField(tag));
        }
        if wire_type != WireType::LengthDelimited {
            return Err(WrapperError::WireType(wire_type, tag));
        }
        let len = decode_varint(&mut buf).map_err(|e| WrapperError::Malformed(e.to_string()))?;
        if len > buf.remaining() as u64 {
            return Err(WrapperError::Malformed(format!(
                "field {tag} declares {len} bytes, {} left",
                buf.remaining()
            )));
        }
        let value = buf.split_to(len as usize);
        f(tag, value)?;
    }
    Ok(())
}

fn utf8(tag: u32, b: Bytes) -> Result<String, WrapperError> {
    String::from_utf8(b.to_vec()).map_err(|_| WrapperError::Utf8(tag))
}

impl TripleRequestWrapper {
    /// Encodes in Java's field order.
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(
            16 + self.serialize_type.len()
                + self.args.iter().map(|a| a.len() + 5).sum::<usize>()
                + self.arg_types.iter().map(|a| a.len() + 3).sum::<usize>(),
        );
        put_bytes(&mut out, 1, self.serialize_type.as_bytes());
        for a in &self.args {
            put_bytes(&mut out, 2, a);
        }
        for t in &self.arg_types {
            put_bytes(&mut out, 3, t.as_bytes());
        }
        out.freeze()
    }

    /// Decodes, rejecting unknown fields and wire types as Java does.
    pub fn decode(buf: Bytes) -> Result<Self, WrapperError> {
        let mut w = TripleRequestWrapper::default();
        read_fields(buf, |tag, v| {
            match tag {
                1 => w.serialize_type = utf8(1, v)?,
                2 => w.args.push(v),
                _ => w.arg_types.push(utf8(3, v)?),
            }
            Ok(())
        })?;
        Ok(w)
    }

    /// A Hessian 2 request with each argument in its own stream.
    pub fn hessian(args: &[Payload], arg_types: &[impl AsRef<str>]) -> Result<Self, Status> {
        Ok(Self {
            serialize_type: HESSIAN4.to_owned(),
            args: args.iter().map(encode_payload).collect::<Result<_, _>>()?,
            arg_types: arg_types.iter().map(|t| t.as_ref().to_owned()).collect(),
        })
    }
}

impl TripleResponseWrapper {
    /// Encodes in Java's field order.
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(
            16 + self.serialize_type.len() + self.data.len() + self.type_name.len(),
        );
        put_bytes(&mut out, 1, self.serialize_type.as_bytes());
        put_bytes(&mut out, 2, &self.data);
        put_bytes(&mut out, 3, self.type_name.as_bytes());
        out.freeze()
    }

    /// Decodes, rejecting unknown fields and wire types as Java does.
    pub fn decode(buf: Bytes) -> Result<Self, WrapperError> {
        let mut w = TripleResponseWrapper::default();
        read_fields(buf, |tag, v| {
            match tag {
                1 => w.serialize_type = utf8(1, v)?,
                2 => w.data = v,
                _ => w.type_name = utf8(3, v)?,
            }
            Ok(())
        })?;
        Ok(w)
    }
}

/// Whether `serialize_type` names Hessian 2.
pub fn is_hessian(serialize_type: &str) -> bool {
    matches!(serialize_type, "hessian4" | "hessian2" | "")
}

/// One value as its own Hessian 2 stream.
pub fn encode_hessian(v: &Value) -> Result<Bytes, Status> {
    let mut w = Hessian2Writer::new();
    w.write_value(v)
        .map_err(|e| Status::internal(format!("hessian2 encoding failed: {e}")))?;
    Ok(Bytes::from(w.into_bytes()))
}

/// One payload as its own Hessian 2 stream: encoded bytes as they are, anything else encoded now.
pub fn encode_payload(p: &Payload) -> Result<Bytes, Status> {
    p.to_hessian_bytes()
        .map_err(|e| Status::internal(format!("hessian2 encoding failed: {e}")))
}

/// One value's own Hessian 2 stream as a payload, left encoded for whoever decodes it into its
/// type; empty data is Java's `null`.
pub fn decode_payload(b: Bytes) -> Payload {
    if b.is_empty() {
        return Payload::null();
    }
    Payload::Hessian2(Encoded::new(b))
}

/// One value from its own Hessian 2 stream.
pub fn decode_hessian(b: &[u8]) -> Result<Value, Status> {
    if b.is_empty() {
        return Ok(Value::Null);
    }
    Hessian2Reader::new(b)
        .read_value()
        .map_err(|e| Status::internal(format!("hessian2 decoding failed: {e}")))
}

/// The Java type name Java would put in `type` for a value, when the declared return type is
/// not known: the runtime class.
pub fn java_type_of(v: &Value) -> String {
    match v {
        Value::Null | Value::Ref(_) => "java.lang.Object".into(),
        Value::Bool(_) => "java.lang.Boolean".into(),
        Value::Int(_) => "java.lang.Integer".into(),
        Value::Long(_) => "java.lang.Long".into(),
        Value::Double(_) => "java.lang.Double".into(),
        Value::String(_) => "java.lang.String".into(),
        Value::Binary(_) => "[B".into(),
        Value::Date(_) => "java.util.Date".into(),
        Value::List(l) => match l.type_name.as_deref() {
            Some(t) if !t.starts_with('[') => t.to_owned(),
            _ => "java.util.List".into(),
        },
        Value::Map(m) => m
            .type_name
            .clone()
            .unwrap_or_else(|| "java.util.Map".into()),
        Value::Object(o) => o.class.clone(),
    }
}

/// [`java_type_of`] for a value given as its own Hessian 2 stream (as [`encode_hessian`]
/// writes it): the same answer, read from the first tag and, for objects and typed
/// collections, the class or type name that follows.
pub fn java_type_of_encoded(b: &[u8]) -> String {
    use dubbo_hessian2::constants::*;
    let Some(&tag) = b.first() else {
        return "java.lang.Object".into();
    };
    let name_after = |at: usize| {
        b.get(at..)
            .and_then(|rest| Hessian2Reader::new(rest).read_string().ok())
    };
    match tag {
        BC_TRUE | BC_FALSE => "java.lang.Boolean".into(),
        0x80..=0xbf | 0xc0..=0xcf | 0xd0..=0xd7 | BC_INT => "java.lang.Integer".into(),
        0xd8..=0xef | 0xf0..=0xff | 0x38..=0x3f | BC_LONG_INT | BC_LONG => "java.lang.Long".into(),
        BC_DOUBLE_ZERO..=BC_DOUBLE_MILL | BC_DOUBLE => "java.lang.Double".into(),
        0x00..=0x1f | 0x30..=0x33 | BC_STRING | BC_STRING_CHUNK => "java.lang.String".into(),
        0x20..=0x2f | 0x34..=0x37 | BC_BINARY | BC_BINARY_CHUNK => "[B".into(),
        BC_DATE | BC_DATE_MINUTE => "java.util.Date".into(),
        BC_CLASS_DEF => name_after(1).unwrap_or_else(|| "java.lang.Object".into()),
        BC_LIST_DIRECT..=0x77 | BC_LIST_FIXED | BC_LIST_VARIABLE => match name_after(1) {
            Some(t) if !t.is_empty() && !t.starts_with('[') => t,
            _ => "java.util.List".into(),
        },
        0x78..=0x7f | BC_LIST_FIXED_UNTYPED | BC_LIST_VARIABLE_UNTYPED => "java.util.List".into(),
        BC_MAP => match name_after(1) {
            Some(t) if !t.is_empty() => t,
            _ => "java.util.Map".into(),
        },
        BC_MAP_UNTYPED => "java.util.Map".into(),
        _ => "java.lang.Object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_hessian2::Object;

    /// The type read off the encoded bytes is the one `java_type_of` gives for the tree.
    #[test]
    fn java_type_of_encoded_agrees_with_the_tree() {
        let samples = vec![
            Value::Null,
            Value::Bool(true),
            Value::Int(-3),
            Value::Int(100_000),
            Value::Long(1 << 40),
            Value::Long(3),
            Value::Double(0.5),
            Value::String("x".repeat(70_000)),
            Value::Binary(vec![1, 2, 3]),
            Value::Date(1_700_000_000_000),
            Value::list(vec![Value::Int(1)]),
            Value::typed_list("java.util.HashSet", vec![Value::Int(1)]),
            Value::typed_list("[string", vec!["a".into()]),
            Value::map(vec![("k".into(), "v".into())]),
            Value::typed_map("java.util.LinkedHashMap", vec![("k".into(), "v".into())]),
            Value::Object(Object::new("a.B", [("x", Value::Int(1))])),
        ];
        for v in samples {
            let bytes = encode_hessian(&v).unwrap();
            assert_eq!(java_type_of_encoded(&bytes), java_type_of(&v), "{v:?}");
            let typed = encode_payload(&Payload::typed(v.clone())).unwrap();
            assert_eq!(java_type_of_encoded(&typed), java_type_of(&v), "{v:?}");
        }
        assert_eq!(java_type_of_encoded(&[]), "java.lang.Object");
    }

    #[test]
    fn request_round_trip_and_byte_order() {
        let w = TripleRequestWrapper {
            serialize_type: "hessian4".into(),
            args: vec![
                Bytes::from_static(b"\x05world"),
                Bytes::from_static(b"\x91"),
            ],
            arg_types: vec!["java.lang.String".into(), "int".into()],
        };
        let b = w.encode();
        assert_eq!(&b[..10], b"\x0a\x08hessian4");
        assert_eq!(&b[10..18], b"\x12\x06\x05world");
        assert_eq!(b[18..21], [0x12, 0x01, 0x91]);
        assert_eq!(b[21], 0x1a);
        assert_eq!(TripleRequestWrapper::decode(b).unwrap(), w);
    }

    #[test]
    fn rejects_unknown_fields_and_wire_types() {
        // field 4, length-delimited
        let e = TripleRequestWrapper::decode(Bytes::from_static(b"\x22\x00")).unwrap_err();
        assert_eq!(e, WrapperError::UnknownField(4));
        // field 1 as varint
        let e = TripleRequestWrapper::decode(Bytes::from_static(b"\x08\x01")).unwrap_err();
        assert!(matches!(e, WrapperError::WireType(WireType::Varint, 1)));
        // truncated
        assert!(TripleResponseWrapper::decode(Bytes::from_static(b"\x12\x05ab")).is_err());
        // invalid UTF-8 in a string field
        let e = TripleResponseWrapper::decode(Bytes::from_static(b"\x0a\x01\xff")).unwrap_err();
        assert_eq!(e, WrapperError::Utf8(1));
    }

    #[test]
    fn hessian_args() {
        let w = TripleRequestWrapper::hessian(
            &[Value::String("x".into()).into(), Value::Int(3).into()],
            &["java.lang.String", "int"],
        )
        .unwrap();
        assert_eq!(
            decode_hessian(&w.args[0]).unwrap(),
            Value::String("x".into())
        );
        assert_eq!(decode_hessian(&w.args[1]).unwrap(), Value::Int(3));
    }
}
