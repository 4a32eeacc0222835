//! What the values inside a wrapper-mode envelope are written in: Hessian 2 (`serializeType`
//! `hessian4`) or fastjson2 (`fastjson2`), as Java's `ReflectionPackableMethod` writes each
//! argument, result and exception through the Dubbo serialization of the call.
//!
//! A fastjson2 value is what `FastJson2ObjectOutput.writeObject` writes: a 4-byte big-endian
//! length, then one JSONB stream. A consumer picks the serialization as on dubbo:// (the URL's
//! first known `prefer.serialization`, then `serialization`, else Hessian 2); a provider
//! answers in the request's.

use bytes::Bytes;
use dubbo_core::Payload;
use dubbo_hessian2::Value;
use dubbo_url::Url;

use crate::status::Status;
use crate::wrapper::{self, HESSIAN4};

/// `serializeType` for fastjson2.
pub const FASTJSON2: &str = "fastjson2";

/// The serialization of a wrapper's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WrapperSerialization {
    /// Hessian 2, each value its own stream (`hessian4`; also `hessian2` or empty).
    #[default]
    Hessian2,
    /// fastjson2 JSONB, each value a length-prefixed frame.
    Fastjson2,
}

impl WrapperSerialization {
    /// The serialization a `serializeType` names, if this side speaks it.
    pub fn from_serialize_type(t: &str) -> Option<Self> {
        if wrapper::is_hessian(t) {
            Some(WrapperSerialization::Hessian2)
        } else if t == FASTJSON2 {
            Some(WrapperSerialization::Fastjson2)
        } else {
            None
        }
    }

    /// What a consumer writes to the provider of `url`: the first of `prefer.serialization`
    /// then `serialization` that this side speaks, else Hessian 2.
    pub fn for_consumer(url: &Url) -> Self {
        let prefer = url.parameter("prefer.serialization").unwrap_or_default();
        let plain = url.parameter("serialization").unwrap_or_default();
        prefer
            .split(',')
            .chain(std::iter::once(plain))
            .map(str::trim)
            .find_map(|n| match n {
                "hessian2" => Some(WrapperSerialization::Hessian2),
                FASTJSON2 => Some(WrapperSerialization::Fastjson2),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The `serializeType` Java writes for it.
    pub fn serialize_type(self) -> &'static str {
        match self {
            WrapperSerialization::Hessian2 => HESSIAN4,
            WrapperSerialization::Fastjson2 => FASTJSON2,
        }
    }

    /// One payload as its own value: Hessian 2 bytes as they are, anything else encoded now.
    pub fn encode_payload(self, p: &Payload) -> Result<Bytes, Status> {
        match self {
            WrapperSerialization::Hessian2 => wrapper::encode_payload(p),
            WrapperSerialization::Fastjson2 => {
                let v = p
                    .to_value()
                    .map_err(|e| Status::internal(format!("fastjson2 encoding failed: {e}")))?;
                self.encode_value(&v)
            }
        }
    }

    /// One value as its own value.
    pub fn encode_value(self, v: &Value) -> Result<Bytes, Status> {
        match self {
            WrapperSerialization::Hessian2 => wrapper::encode_hessian(v),
            WrapperSerialization::Fastjson2 => {
                let mut out = Vec::new();
                dubbo_fastjson2::write_object(&mut out, v)
                    .map_err(|e| Status::internal(format!("fastjson2 encoding failed: {e}")))?;
                Ok(Bytes::from(out))
            }
        }
    }

    /// One value's bytes as a payload: Hessian 2 left encoded for whoever decodes it into its
    /// type, fastjson2 read into a tree now; empty data is Java's `null`.
    pub fn decode_payload(self, b: Bytes) -> Result<Payload, Status> {
        match self {
            WrapperSerialization::Hessian2 => Ok(wrapper::decode_payload(b)),
            WrapperSerialization::Fastjson2 => self.decode_value(&b).map(Payload::Value),
        }
    }

    /// One value's bytes as a tree; empty data is Java's `null`.
    pub fn decode_value(self, b: &[u8]) -> Result<Value, Status> {
        match self {
            WrapperSerialization::Hessian2 => wrapper::decode_hessian(b),
            WrapperSerialization::Fastjson2 if b.is_empty() => Ok(Value::Null),
            WrapperSerialization::Fastjson2 => {
                let mut r = dubbo_fastjson2::FrameReader::new(b);
                let v = r
                    .read_object()
                    .map_err(|e| Status::internal(format!("fastjson2 decoding failed: {e}")))?;
                if !r.is_empty() {
                    return Err(Status::internal(
                        "fastjson2 decoding failed: bytes after the value",
                    ));
                }
                Ok(v)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_in_both_and_fastjson2_is_framed() {
        let user = Value::object("a.User", vec![("id", Value::Long(7))]);
        for s in [
            WrapperSerialization::Hessian2,
            WrapperSerialization::Fastjson2,
        ] {
            let b = s.encode_value(&user).unwrap();
            assert_eq!(s.decode_value(&b).unwrap(), user);
            assert_eq!(s.decode_payload(b).unwrap(), user);
            assert_eq!(s.decode_value(&[]).unwrap(), Value::Null);
            assert_eq!(
                WrapperSerialization::from_serialize_type(s.serialize_type()),
                Some(s)
            );
        }
        let b = WrapperSerialization::Fastjson2
            .encode_value(&Value::Int(1))
            .unwrap();
        assert_eq!(&b[..4], &[0, 0, 0, 1]);
        assert!(WrapperSerialization::Fastjson2
            .decode_value(&[0, 0, 0, 9, 1])
            .is_err());
        assert_eq!(WrapperSerialization::from_serialize_type("kryo"), None);
    }

    #[test]
    fn a_consumer_picks_the_first_it_speaks() {
        let pick = |q: &str| {
            WrapperSerialization::for_consumer(
                &Url::parse(&format!("tri://127.0.0.1:50051/a.B?{q}")).unwrap(),
            )
        };
        assert_eq!(
            pick("prefer.serialization=fastjson2,hessian2"),
            WrapperSerialization::Fastjson2
        );
        assert_eq!(
            pick("prefer.serialization=hessian2,fastjson2"),
            WrapperSerialization::Hessian2
        );
        assert_eq!(
            pick("serialization=fastjson2"),
            WrapperSerialization::Fastjson2
        );
        assert_eq!(pick(""), WrapperSerialization::Hessian2);
    }
}
