//! Request, response and status bodies in fastjson2 (serialization id 23), as Java's
//! `DubboCodec` writes them through `FastJson2ObjectOutput`.
//!
//! The values are those of a Hessian 2 body, in the same order, but each one is a frame of its
//! own: a 4-byte big-endian length, then one JSONB stream (Java's `writeUTF`, `writeInt` and
//! `writeByte` all go through `writeObject`). Nothing is shared between frames, so every
//! argument decodes on its own; arguments and results are carried as trees
//! ([`Payload::Value`]), which typed services and clients decode as they decode any tree.

use bytes::Bytes;
use dubbo_core::attachments::keys;
use dubbo_core::{
    Attachments, BusinessError, ErrorCode, Invocation, Payload, RpcError, RpcResponse, Value,
};
use dubbo_fastjson2::{write_object, FrameReader};

use super::{
    attachments_from_value, business_error_from, supports_response_attachments, DecodedRequest,
    SignatureCache, DUBBO_VERSION, RESPONSE_NULL_VALUE, RESPONSE_NULL_VALUE_WITH_ATTACHMENTS,
    RESPONSE_VALUE, RESPONSE_VALUE_WITH_ATTACHMENTS, RESPONSE_WITH_EXCEPTION,
    RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS,
};
use crate::codec::{finish_frame, frame_buffer};
use crate::error::BodyError;
use crate::header::{Header, FASTJSON2};
use crate::status::Status;

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/// Encodes a whole request frame (header and body) for `invocation` in fastjson2, with the
/// attachments [`super::encode_request`] sends.
pub fn encode_request(
    id: i64,
    invocation: &Invocation,
    timeout_ms: Option<u64>,
    two_way: bool,
) -> Result<Bytes, RpcError> {
    let service = invocation.service();
    let method = invocation.method();
    let mut out = frame_buffer(256);
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        RpcError::framework(
            ErrorCode::Codec,
            format!(
                "failed to encode {what} of {}.{} in fastjson2: {e}",
                invocation.service(),
                invocation.method_name()
            ),
        )
    };
    for text in [
        DUBBO_VERSION,
        service.interface(),
        service.wire_version(),
        method.name(),
        method.descriptor(),
    ] {
        write_object(&mut out, &Value::string(text)).map_err(|e| fail("header", &e))?;
    }
    for arg in invocation.args() {
        let v = arg.to_value().map_err(|e| fail("argument", &e))?;
        write_object(&mut out, &v).map_err(|e| fail("argument", &e))?;
    }
    let mut entries = vec![
        (
            Value::string(keys::PATH),
            Value::string(service.interface()),
        ),
        (
            Value::string(keys::INTERFACE),
            Value::string(service.interface()),
        ),
        (
            Value::string(keys::VERSION),
            Value::string(service.wire_version()),
        ),
    ];
    if let Some(group) = service.group() {
        entries.push((Value::string(keys::GROUP), Value::string(group)));
    }
    if let Some(t) = timeout_ms {
        entries.push((Value::string(keys::TIMEOUT), Value::string(t.to_string())));
    }
    for (k, v) in invocation.attachments().iter() {
        if !matches!(
            k,
            keys::PATH | keys::INTERFACE | keys::VERSION | keys::GROUP | keys::TIMEOUT
        ) {
            entries.push((Value::string(k), v.clone()));
        }
    }
    write_object(&mut out, &Value::map(entries)).map_err(|e| fail("attachments", &e))?;
    let header = Header::request(id, FASTJSON2, two_way, false);
    finish_frame(out, header).map_err(|len| {
        RpcError::framework(
            ErrorCode::PayloadTooLarge,
            format!("Data length too large: {len}"),
        )
    })
}

/// Decodes a fastjson2 request body; every argument is a tree.
pub fn decode_request(
    body: &[u8],
    signatures: &SignatureCache,
) -> Result<DecodedRequest, BodyError> {
    let mut r = FrameReader::new(body);
    let mut text = || -> Result<String, BodyError> {
        match r.read_object()? {
            Value::Null => Ok(String::new()),
            Value::String(s) => Ok(s),
            other => Err(BodyError::invalid(format!(
                "expected a string in the request header, got {}",
                other.kind()
            ))),
        }
    };
    let dubbo_version = text()?;
    let path = text()?;
    let version = text()?;
    let method = text()?;
    let descriptor = text()?;
    if method.is_empty() {
        return Err(BodyError::invalid("request without a method name"));
    }
    let method = signatures.get(method, descriptor)?;
    let arity = method.parameter_types().len();
    let mut args = Vec::with_capacity(arity.min(64));
    for _ in 0..arity {
        args.push(Payload::Value(r.read_object()?));
    }
    // As with Hessian 2, a body may end after the arguments.
    let attachments = if r.is_empty() {
        Attachments::new()
    } else {
        attachments_from_value(r.read_object()?)?
    };
    Ok(DecodedRequest {
        dubbo_version,
        path,
        version,
        method,
        args,
        attachments,
    })
}

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

/// Encodes an OK response frame in fastjson2, with the flags and attachments
/// [`super::encode_ok_response`] uses.
pub fn encode_ok_response(
    id: i64,
    result: Result<&RpcResponse, &BusinessError>,
    dubbo_version: &str,
) -> Result<Bytes, BodyError> {
    let with = supports_response_attachments(dubbo_version);
    let mut out = frame_buffer(64);
    let empty = Attachments::new();
    // The Hessian 2 body's flags: 2 / 1 / 0 (null, value, exception), plus 3 when
    // attachments follow.
    let flag = |base: i32| Value::Int(if with { base + 3 } else { base });
    let attachments = match result {
        Ok(resp) => {
            // A typed result that turns out null (`()`, `None`) is sent as Java sends a void
            // method's or a null return: the null flag and no value.
            let value = resp.value.to_value()?;
            let null = value.is_null();
            let base = if null {
                RESPONSE_NULL_VALUE
            } else {
                RESPONSE_VALUE
            };
            write_object(&mut out, &flag(base))?;
            if !null {
                write_object(&mut out, &value)?;
            }
            &resp.attachments
        }
        Err(b) => {
            write_object(&mut out, &flag(RESPONSE_WITH_EXCEPTION))?;
            write_object(&mut out, &b.to_value())?;
            &empty
        }
    };
    if with {
        let mut entries: Vec<(Value, Value)> = attachments
            .iter()
            .filter(|(k, _)| *k != keys::DUBBO_VERSION)
            .map(|(k, v)| (Value::string(k), v.clone()))
            .collect();
        entries.push((
            Value::string(keys::DUBBO_VERSION),
            Value::string(DUBBO_VERSION),
        ));
        write_object(&mut out, &Value::map(entries))?;
    }
    finish_frame(
        out,
        Header::response(id, FASTJSON2, Status::Ok.as_u8(), false),
    )
    .map_err(|len| BodyError::invalid(format!("response of {len} bytes")))
}

/// Encodes a non-OK response frame in fastjson2: the body is the single string `message`.
pub fn encode_status_response(id: i64, status: Status, message: &str) -> Bytes {
    let mut out = frame_buffer(message.len() + 8);
    if write_object(&mut out, &Value::string(message)).is_ok() {
        if let Ok(b) = finish_frame(out, Header::response(id, FASTJSON2, status.as_u8(), false)) {
            return b;
        }
    }
    // Only a message of more than 2 GiB gets here; send a short one instead.
    encode_status_response(
        id,
        status,
        &format!("error message of {} bytes", message.len()),
    )
}

/// A one-way event request carrying the string `data` (the readonly event's `"R"`), as Java
/// writes an event in fastjson2.
pub fn encode_event_request(id: i64, data: &str) -> Bytes {
    let mut out = frame_buffer(data.len() + 8);
    let header = Header::request(id, FASTJSON2, false, true);
    match write_object(&mut out, &Value::string(data)) {
        Ok(()) => finish_frame(out, header).unwrap_or_default(),
        // Only a string of more than 2 GiB fails; events are one letter.
        Err(_) => Bytes::new(),
    }
}

/// Decodes the body of a fastjson2 OK response into the call's outcome, as
/// [`super::decode_ok_response`] does for Hessian 2.
pub fn decode_ok_response(body: &[u8]) -> Result<Result<RpcResponse, RpcError>, BodyError> {
    let mut r = FrameReader::new(body);
    let kind = match r.read_object()? {
        Value::Int(i) => i,
        Value::Long(l) => i32::try_from(l).unwrap_or(-1),
        other => {
            return Err(BodyError::invalid(format!(
                "response flag must be a number, got {}",
                other.kind()
            )))
        }
    };
    let (value, exception, has_attachments) = match kind {
        RESPONSE_NULL_VALUE => (Value::Null, None, false),
        RESPONSE_VALUE => (r.read_object()?, None, false),
        RESPONSE_WITH_EXCEPTION => (Value::Null, Some(r.read_object()?), false),
        RESPONSE_NULL_VALUE_WITH_ATTACHMENTS => (Value::Null, None, true),
        RESPONSE_VALUE_WITH_ATTACHMENTS => (r.read_object()?, None, true),
        RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS => (Value::Null, Some(r.read_object()?), true),
        other => {
            return Err(BodyError::invalid(format!(
                "Unknown result flag, expect '0' '1' '2' '3' '4' '5', but received: {other}"
            )))
        }
    };
    let attachments = if has_attachments && !r.is_empty() {
        attachments_from_value(r.read_object()?)?
    } else {
        Attachments::new()
    };
    if let Some(ex) = exception {
        return Ok(Err(RpcError::Business(business_error_from(ex))));
    }
    Ok(Ok(RpcResponse {
        value: Payload::Value(value),
        attachments,
    }))
}

/// The single string of a fastjson2 non-OK response body; anything unreadable gives `None`.
pub fn decode_status_message(body: &[u8]) -> Option<String> {
    match FrameReader::new(body).read_object().ok()? {
        Value::String(s) => Some(s),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use dubbo_core::{MethodSignature, ServiceKey};

    use super::*;
    use crate::header::HEADER_LEN;

    fn user() -> Value {
        Value::object(
            "org.apache.dubbo.interop.User",
            vec![("id", Value::Long(7)), ("name", Value::string("alice"))],
        )
    }

    #[test]
    fn a_request_reads_back_with_its_arguments_and_attachments() {
        let sig = Arc::new(MethodSignature::new(
            "echoUser",
            &["org.apache.dubbo.interop.User", "int"],
            "org.apache.dubbo.interop.User",
        ));
        let inv = Invocation::new(
            ServiceKey::new(
                "org.apache.dubbo.interop.InteropService",
                Some("g"),
                Some("1.0.0"),
            ),
            sig,
            vec![user(), Value::Int(3)],
        )
        .with_attachment("k", "v");
        let frame = encode_request(9, &inv, Some(1500), true).unwrap();
        let header = Header::decode(&frame[..HEADER_LEN]).unwrap();
        assert_eq!(header.serialization_id(), FASTJSON2);
        // Every value is a frame: the first is the dubbo version, a 4-byte length then JSONB.
        let body = &frame[HEADER_LEN..];
        assert_eq!(&body[..4], &[0, 0, 0, 6]);
        let req = decode_request(body, &SignatureCache::new()).unwrap();
        assert_eq!(req.dubbo_version, DUBBO_VERSION);
        assert_eq!(req.path, "org.apache.dubbo.interop.InteropService");
        assert_eq!(req.version, "1.0.0");
        assert_eq!(req.method.name(), "echoUser");
        assert_eq!(
            req.args,
            vec![Payload::Value(user()), Payload::Value(Value::Int(3))]
        );
        assert_eq!(req.attachments.get_str("k"), Some("v"));
        assert_eq!(req.attachments.get_str(keys::GROUP), Some("g"));
        assert_eq!(req.timeout_ms(), Some(1500));
    }

    #[test]
    fn responses_read_back_as_values_nulls_and_exceptions() {
        let mut resp = RpcResponse::new(user());
        resp.attachments.insert("a", "b");
        let frame = encode_ok_response(1, Ok(&resp), DUBBO_VERSION).unwrap();
        let back = decode_ok_response(&frame[HEADER_LEN..]).unwrap().unwrap();
        assert_eq!(back.value, user());
        assert_eq!(back.attachments.get_str("a"), Some("b"));
        assert_eq!(
            back.attachments.get_str(keys::DUBBO_VERSION),
            Some(DUBBO_VERSION)
        );

        let null = RpcResponse::new(Value::Null);
        let frame = encode_ok_response(1, Ok(&null), DUBBO_VERSION).unwrap();
        // Flag 5 (null, with attachments): one frame holding JSONB int 5.
        assert_eq!(&frame[HEADER_LEN..HEADER_LEN + 5], &[0, 0, 0, 1, 5]);
        assert!(decode_ok_response(&frame[HEADER_LEN..])
            .unwrap()
            .unwrap()
            .value
            .is_null());

        let ex = BusinessError::new("java.lang.IllegalStateException", "boom");
        let frame = encode_ok_response(1, Err(&ex), "2.0.1").unwrap();
        match decode_ok_response(&frame[HEADER_LEN..]).unwrap() {
            Err(RpcError::Business(b)) => {
                assert_eq!(b.class_name, "java.lang.IllegalStateException");
                assert_eq!(b.message.as_deref(), Some("boom"));
            }
            other => panic!("expected a business error, got {other:?}"),
        }
    }

    #[test]
    fn status_messages_and_garbage() {
        let frame = encode_status_response(3, Status::BadRequest, "no");
        assert_eq!(
            decode_status_message(&frame[HEADER_LEN..]).as_deref(),
            Some("no")
        );
        assert!(decode_ok_response(&[0, 0, 0, 9, 1]).is_err());
        assert!(decode_ok_response(&[0, 0, 0, 1, 9]).is_err());
        assert!(decode_request(&[0xff; 3], &SignatureCache::new()).is_err());
        assert!(decode_status_message(&[1, 2]).is_none());
    }
}
