//! Request, response and event bodies (`DubboCodec`), in hessian2, and the choice between it
//! and fastjson2 ([`fastjson2`]) by a call's [`Serialization`] (the `*_in` functions).
//!
//! Every hessian2 body is **one** hessian2 stream: the class, type and reference tables are
//! shared by all the values it holds, so each body is written by one [`Hessian2Writer`] and
//! read by one [`Hessian2Reader`].

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use bytes::Bytes;
use dubbo_core::attachments::keys;
use dubbo_core::{
    Attachments, BusinessError, Invocation, MethodSignature, Payload, RpcError, RpcResponse, Value,
};
use dubbo_hessian2::constants::{
    BC_CLASS_DEF, BC_INT_ZERO, BC_LIST_DIRECT, BC_LIST_FIXED_UNTYPED, BC_LIST_VARIABLE, BC_MAP,
    BC_MAP_UNTYPED, BC_NULL, BC_OBJECT,
};
use dubbo_hessian2::{Encoded, Hessian2Reader, Hessian2Writer, Object};

use crate::codec::{finish_frame, frame_buffer};
use crate::error::BodyError;
use crate::header::{Header, FASTJSON2, HESSIAN2};
use crate::serialization::Serialization;
use crate::status::Status;

pub mod fastjson2;

/// The dubbo protocol version every request carries (`Version.DEFAULT_DUBBO_PROTOCOL_VERSION`).
pub const DUBBO_VERSION: &str = "2.0.2";

/// Response body type: an exception, no attachments.
pub const RESPONSE_WITH_EXCEPTION: i32 = 0;
/// Response body type: a value, no attachments.
pub const RESPONSE_VALUE: i32 = 1;
/// Response body type: null, no attachments.
pub const RESPONSE_NULL_VALUE: i32 = 2;
/// Response body type: an exception, then attachments.
pub const RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS: i32 = 3;
/// Response body type: a value, then attachments.
pub const RESPONSE_VALUE_WITH_ATTACHMENTS: i32 = 4;
/// Response body type: null, then attachments.
pub const RESPONSE_NULL_VALUE_WITH_ATTACHMENTS: i32 = 5;

/// Longest event body accepted (`deserialization.event.size`, default 15 bytes).
pub const MAX_EVENT_SIZE: usize = 15;

/// The readonly event's data.
pub const READONLY_EVENT: &str = "R";
/// The writable event's data.
pub const WRITABLE_EVENT: &str = "W";

/// The serialized `null` of a serialization: the body of heartbeats.
pub fn null_bytes(serialization: u8) -> &'static [u8] {
    match serialization {
        // fastjson2: a 4-byte big-endian length, then JSONB null (BC_NULL = -81).
        FASTJSON2 => &[0x00, 0x00, 0x00, 0x01, 0xaf],
        _ => &[0x4e],
    }
}

/// The int form of a dubbo version string (`Version.getIntVersion`): `"2.0.2"` → 2000200.
pub fn int_version(version: &str) -> Option<u64> {
    let parts: Vec<&str> = version.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut v: u64 = 0;
    for (i, p) in parts.iter().enumerate() {
        let digits: String = p.chars().take_while(|c| c.is_ascii_digit()).collect();
        if !digits.is_empty() {
            let n: u64 = digits.parse().ok()?;
            let exp = ((parts.len() - i - 1) * 2) as u32;
            v = v.checked_add(n.checked_mul(10u64.checked_pow(exp)?)?)?;
        }
    }
    if parts.len() == 3 {
        v = v.checked_mul(100)?;
    }
    Some(v)
}

/// Whether a consumer speaking `dubbo_version` understands response attachments (types 3–5):
/// `Version.isSupportResponseAttachment`, versions 2.0.2 to 2.0.99.
pub fn supports_response_attachments(dubbo_version: &str) -> bool {
    // What every current consumer sends; spares the parse on each response.
    if dubbo_version == DUBBO_VERSION {
        return true;
    }
    matches!(int_version(dubbo_version), Some(v) if (2_000_200..=2_009_900).contains(&v))
}

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/// About how many bytes a request's body takes, so that its buffer is allocated once: growing
/// it copies the body written so far and costs more than the arithmetic here. Strings and
/// byte arrays count at their length, anything else at a guess; a short guess only means the
/// buffer grows as it would have anyway.
fn request_size_hint(invocation: &Invocation) -> usize {
    let service = invocation.service();
    let method = invocation.method();
    // The interface is written three times (itself, `path`, `interface`), the version twice,
    // plus the fixed strings, the attachment keys and the timeout.
    let mut n = 96
        + 3 * service.interface().len()
        + 2 * service.wire_version().len()
        + service.group().map_or(0, |g| g.len() + 8)
        + method.name().len()
        + method.descriptor().len();
    for arg in invocation.args() {
        n += match arg {
            Payload::Value(v) => value_size_hint(v),
            Payload::Hessian2(e) => e.as_bytes().len(),
            Payload::Typed(_) => 64,
            Payload::Json(j) => j.as_bytes().len(),
        };
    }
    for (k, v) in invocation.attachments().iter() {
        n += k.len() + 3 + value_size_hint(v);
    }
    n
}

fn value_size_hint(v: &dubbo_core::Value) -> usize {
    use dubbo_core::Value;
    match v {
        Value::String(s) => s.len() + 3,
        Value::Binary(b) => b.len() + 3,
        Value::List(_) | Value::Map(_) | Value::Object(_) => 64,
        _ => 9,
    }
}

/// Encodes a whole request frame (header and body) for `invocation`.
///
/// The attachments map starts with `path`, `interface`, `version`, `group` (when set) and
/// `timeout` (when given), in the order a Java consumer's map usually iterates them, followed
/// by the invocation's own attachments (which cannot override those keys).
pub fn encode_request(
    id: i64,
    invocation: &Invocation,
    timeout_ms: Option<u64>,
    two_way: bool,
) -> Result<Bytes, RpcError> {
    let service = invocation.service();
    let method = invocation.method();
    let mut w = Hessian2Writer::with_buffer(frame_buffer(request_size_hint(invocation)));
    w.write_string(DUBBO_VERSION);
    w.write_string(service.interface());
    w.write_string(service.wire_version());
    w.write_string(method.name());
    w.write_string(method.descriptor());
    for arg in invocation.args() {
        arg.write_hessian(&mut w)
            .map_err(|e| encode_error(invocation, "argument", &e))?;
    }
    w.write_map_begin(None);
    w.write_string(keys::PATH);
    w.write_string(service.interface());
    w.write_string(keys::INTERFACE);
    w.write_string(service.interface());
    w.write_string(keys::VERSION);
    w.write_string(service.wire_version());
    if let Some(group) = service.group() {
        w.write_string(keys::GROUP);
        w.write_string(group);
    }
    if let Some(t) = timeout_ms {
        w.write_string(keys::TIMEOUT);
        w.write_string(&t.to_string());
    }
    for (k, v) in invocation.attachments().iter() {
        if matches!(
            k,
            keys::PATH | keys::INTERFACE | keys::VERSION | keys::GROUP | keys::TIMEOUT
        ) {
            continue;
        }
        w.write_string(k);
        w.write_value(v)
            .map_err(|e| encode_error(invocation, "attachment", &e))?;
    }
    w.write_map_end();
    let header = Header::request(id, HESSIAN2, two_way, false);
    finish_frame(w.into_bytes(), header).map_err(|len| {
        RpcError::framework(
            dubbo_core::ErrorCode::PayloadTooLarge,
            format!("Data length too large: {len}"),
        )
    })
}

fn encode_error(invocation: &Invocation, what: &str, e: &dubbo_hessian2::Error) -> RpcError {
    RpcError::framework(
        dubbo_core::ErrorCode::Codec,
        format!(
            "failed to encode {what} of {}.{}: {e}",
            invocation.service(),
            invocation.method_name()
        ),
    )
}

/// A request body as the provider decodes it.
#[derive(Debug)]
pub struct DecodedRequest {
    /// The consumer's dubbo protocol version (`"2.0.2"`).
    pub dubbo_version: String,
    /// The service path from the body (usually the interface name).
    pub path: String,
    /// The service version from the body (`"0.0.0"` for none).
    pub version: String,
    /// The method, built from its name and parameter descriptor.
    pub method: Arc<MethodSignature>,
    /// The arguments, one per parameter in the descriptor: left encoded
    /// ([`Payload::Hessian2`]) when read by [`decode_request_shared`] and their bytes stand on
    /// their own, trees otherwise.
    pub args: Vec<Payload>,
    /// The attachments map.
    pub attachments: Attachments,
}

impl DecodedRequest {
    /// The key to look the exporter up by: `path`, `version` and `group` from the attachments,
    /// falling back to the body's path and version (Java's `DubboProtocol.getInvoker`).
    pub fn service_key(&self) -> dubbo_core::ServiceKey {
        let path = self
            .attachments
            .get_str(keys::PATH)
            .unwrap_or(self.path.as_str());
        let version = self
            .attachments
            .get_str(keys::VERSION)
            .unwrap_or(self.version.as_str());
        let group = self.attachments.get_str(keys::GROUP);
        dubbo_core::ServiceKey::new(path, group, Some(version))
    }

    /// The `timeout` attachment in milliseconds, whether sent as a string or a number.
    pub fn timeout_ms(&self) -> Option<u64> {
        match self.attachments.get(keys::TIMEOUT)? {
            Value::String(s) => s.trim().parse().ok(),
            Value::Int(i) => u64::try_from(*i).ok(),
            Value::Long(l) => u64::try_from(*l).ok(),
            _ => None,
        }
    }
}

/// Most distinct (method, descriptor) pairs a [`SignatureCache`] keeps.
const SIGNATURE_CACHE_CAPACITY: usize = 4096;

/// Parsed method signatures by (method name, descriptor), so a provider parses each
/// descriptor once. Bounded: past its capacity, new pairs are parsed on every call.
#[derive(Debug, Default)]
pub struct SignatureCache {
    map: RwLock<HashMap<(String, String), Arc<MethodSignature>>>,
}

impl SignatureCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The signature of `method` with parameter `descriptor`.
    pub fn get(
        &self,
        method: String,
        descriptor: String,
    ) -> Result<Arc<MethodSignature>, BodyError> {
        let key = (method, descriptor);
        if let Ok(map) = self.map.read() {
            if let Some(sig) = map.get(&key) {
                return Ok(sig.clone());
            }
        }
        let sig = MethodSignature::from_descriptor(&key.0, &key.1)
            .map_err(|e| BodyError::invalid(e.message().to_owned()))?;
        let sig = Arc::new(sig);
        if let Ok(mut map) = self.map.write() {
            if map.len() < SIGNATURE_CACHE_CAPACITY {
                map.insert(key, sig.clone());
            }
        }
        Ok(sig)
    }

    /// Number of cached signatures.
    pub fn len(&self) -> usize {
        self.map.read().map(|m| m.len()).unwrap_or(0)
    }

    /// Whether nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Decodes a hessian2 request body, its arguments into trees ([`Payload::Value`]).
pub fn decode_request(
    body: &[u8],
    signatures: &SignatureCache,
) -> Result<DecodedRequest, BodyError> {
    decode_request_from(body, None, signatures)
}

/// [`decode_request`] for a body the caller holds as `Bytes`: an argument that is a list, map or
/// object (scalars, strings and binaries are read as they are: their tree is the value itself)
/// is left encoded ([`Payload::Hessian2`], a slice of `body`, no copy) after checking
/// it is well formed, so that a typed service decodes it straight into its parameter type and
/// only whoever asks for a tree (a generic service, a router or filter reading arguments)
/// builds one.
///
/// All arguments and the attachments share one Hessian stream: a later argument may use a
/// class definition, type name or object an earlier one brought, which its bytes alone cannot
/// resolve. An argument that uses only class definitions of earlier ones is kept with those
/// definitions put before its bytes (a copy); one that refers back to an earlier object or
/// type name (`Q`, a type index) is read into a tree as [`decode_request`] does.
pub fn decode_request_shared(
    body: &Bytes,
    signatures: &SignatureCache,
) -> Result<DecodedRequest, BodyError> {
    decode_request_from(body, Some(body), signatures)
}

fn decode_request_from(
    body: &[u8],
    shared: Option<&Bytes>,
    signatures: &SignatureCache,
) -> Result<DecodedRequest, BodyError> {
    let mut r = Hessian2Reader::new(body);
    let dubbo_version = r.read_nullable_string()?.unwrap_or_default();
    let path = r.read_nullable_string()?.unwrap_or_default();
    let version = r.read_nullable_string()?.unwrap_or_default();
    let method = r.read_nullable_string()?.unwrap_or_default();
    let descriptor = r.read_nullable_string()?.unwrap_or_default();
    if method.is_empty() {
        return Err(BodyError::invalid("request without a method name"));
    }
    let method = signatures.get(method, descriptor)?;
    let arity = method.parameter_types().len();
    let mut args = Vec::with_capacity(arity.min(64));
    for i in 0..arity {
        let Some(bytes) = shared.filter(|_| r.peek().is_some_and(starts_container)) else {
            args.push(Payload::Value(r.read_value()?));
            continue;
        };
        let fresh = r.tables_are_empty();
        let (classes, instances) = (r.class_count(), r.object_instances());
        let (back_refs, start) = (r.back_references(), r.position());
        // Skipping checks the bytes and keeps the stream's tables as reading would, for the
        // values after it.
        r.skip_value()?;
        let own = bytes.slice(start..r.position());
        let refers_back = r.back_references() != back_refs;
        let uses_classes = classes > 0 && r.object_instances() != instances;
        args.push(if fresh || !refers_back && !uses_classes {
            Payload::Hessian2(Encoded::new(own))
        } else if !refers_back {
            // Only the class definitions of earlier arguments are needed: they go first.
            let mut with_classes = r.class_definitions(classes);
            with_classes.extend_from_slice(&own);
            Payload::Hessian2(Encoded::new(Bytes::from(with_classes)))
        } else {
            // It refers to an object or type name an earlier argument brought: read it again
            // as a tree, with the tables as they were before it (rare: Java sends one object
            // passed twice this way).
            r = reader_before_argument(body, i)?;
            Payload::Value(r.read_value()?)
        });
    }
    // Java tolerates a body that ends after the arguments (no attachments map).
    let attachments = if r.is_empty() {
        Attachments::new()
    } else {
        attachments_from_value(r.read_value()?)?
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

/// Whether a value starting with `tag` is a list, map or object (or a class definition before
/// one). Any other value (null, a number, a string, a binary, a back-reference) is its own tree:
/// reading it builds no nodes, and is cheaper than cutting its bytes out and decoding them
/// later.
fn starts_container(tag: u8) -> bool {
    matches!(
        tag,
        BC_CLASS_DEF
            | BC_MAP
            | BC_MAP_UNTYPED
            | BC_OBJECT
            | BC_LIST_VARIABLE..=BC_LIST_FIXED_UNTYPED
            | 0x60..=0x6f
            | BC_LIST_DIRECT..=0x7f
    )
}

/// A reader of request `body` positioned at argument `index`, with the stream's tables as they
/// are there.
fn reader_before_argument(body: &[u8], index: usize) -> Result<Hessian2Reader<'_>, BodyError> {
    let mut r = Hessian2Reader::new(body);
    for _ in 0..5 {
        r.read_nullable_string()?;
    }
    for _ in 0..index {
        r.skip_value()?;
    }
    Ok(r)
}

fn attachments_from_value(v: Value) -> Result<Attachments, BodyError> {
    match v {
        Value::Null => Ok(Attachments::new()),
        Value::Map(m) => Ok(m
            .entries
            .into_iter()
            .filter_map(|(k, v)| match k {
                Value::String(k) => Some((k, v)),
                _ => None,
            })
            .collect()),
        other => Err(BodyError::invalid(format!(
            "attachments must be a map, got {}",
            other.kind()
        ))),
    }
}

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

/// Encodes an OK (status 20) response frame carrying `result`, which must be a value or a
/// business exception. For consumers that speak 2.0.2 the body uses types 3/4/5 and the
/// attachments include `{"dubbo": "2.0.2"}`, as Java providers send.
pub fn encode_ok_response(
    id: i64,
    result: Result<&RpcResponse, &BusinessError>,
    dubbo_version: &str,
) -> Result<Bytes, BodyError> {
    let with_attachments = supports_response_attachments(dubbo_version);
    let mut w = Hessian2Writer::with_buffer(frame_buffer(64));
    let empty = Attachments::new();
    let attachments = match result {
        Ok(resp) => {
            match (&resp.value, with_attachments) {
                (v, true) if v.is_null() => w.write_int(RESPONSE_NULL_VALUE_WITH_ATTACHMENTS),
                (v, false) if v.is_null() => w.write_int(RESPONSE_NULL_VALUE),
                (v, with) => {
                    let flag_at = w.len();
                    w.write_int(if with {
                        RESPONSE_VALUE_WITH_ATTACHMENTS
                    } else {
                        RESPONSE_VALUE
                    });
                    v.write_hessian(&mut w)?;
                    // A typed result that turned out null (`()`, `None`) gets the null-value
                    // flag and no value, as Java sends for void methods and null returns.
                    if w.as_bytes().get(flag_at + 1..) == Some(&[BC_NULL][..]) {
                        let null_flag = if with {
                            RESPONSE_NULL_VALUE_WITH_ATTACHMENTS
                        } else {
                            RESPONSE_NULL_VALUE
                        };
                        let buf = w.buffer_mut();
                        buf.truncate(flag_at);
                        buf.push(BC_INT_ZERO + null_flag as u8);
                    }
                }
            }
            &resp.attachments
        }
        Err(b) => {
            w.write_int(if with_attachments {
                RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS
            } else {
                RESPONSE_WITH_EXCEPTION
            });
            w.write_value(&b.to_value())?;
            &empty
        }
    };
    if with_attachments {
        w.write_map_begin(None);
        for (k, v) in attachments.iter() {
            if k == keys::DUBBO_VERSION {
                continue;
            }
            w.write_string(k);
            w.write_value(v)?;
        }
        w.write_string(keys::DUBBO_VERSION);
        w.write_string(DUBBO_VERSION);
        w.write_map_end();
    }
    finish_frame(
        w.into_bytes(),
        Header::response(id, HESSIAN2, Status::Ok.as_u8(), false),
    )
    .map_err(|len| BodyError::invalid(format!("response of {len} bytes")))
}

/// Encodes a non-OK response frame: the body is the single string `message`.
pub fn encode_status_response(id: i64, status: Status, message: &str) -> Bytes {
    let mut w = Hessian2Writer::with_buffer(frame_buffer(message.len() + 4));
    w.write_string(message);
    match finish_frame(
        w.into_bytes(),
        Header::response(id, HESSIAN2, status.as_u8(), false),
    ) {
        Ok(b) => b,
        // Only a message of more than 2 GiB gets here; send a short one instead.
        Err(len) => encode_status_response(id, status, &format!("error message of {len} bytes")),
    }
}

/// Decodes the body of an OK response into the call's outcome: a value with attachments, or
/// the provider's exception as [`RpcError::Business`].
pub fn decode_ok_response(body: &[u8]) -> Result<Result<RpcResponse, RpcError>, BodyError> {
    decode_ok_response_from(body, None)
}

/// [`decode_ok_response`] for a body the caller holds as `Bytes`: the returned value is left
/// encoded ([`Payload::Hessian2`], a slice of `body`, no copy) after checking it is well
/// formed, so that a typed consumer decodes it straight into its return type and a generic one
/// into a tree.
pub fn decode_ok_response_shared(body: &Bytes) -> Result<Result<RpcResponse, RpcError>, BodyError> {
    decode_ok_response_from(body, Some(body))
}

fn decode_ok_response_from(
    body: &[u8],
    shared: Option<&Bytes>,
) -> Result<Result<RpcResponse, RpcError>, BodyError> {
    let mut r = Hessian2Reader::new(body);
    let kind = r.read_int()?;
    // The value is the first thing in the stream after the flag (an int, which touches no
    // table), so its bytes decode on their own with fresh tables.
    let read_result = |r: &mut Hessian2Reader| -> Result<Payload, BodyError> {
        match shared {
            Some(bytes) => {
                let start = r.position();
                r.skip_value()?;
                Ok(Payload::Hessian2(Encoded::new(
                    bytes.slice(start..r.position()),
                )))
            }
            None => Ok(Payload::Value(r.read_value()?)),
        }
    };
    let (value, exception, has_attachments) = match kind {
        RESPONSE_NULL_VALUE => (Payload::null(), None, false),
        RESPONSE_VALUE => (read_result(&mut r)?, None, false),
        RESPONSE_WITH_EXCEPTION => (Payload::null(), Some(r.read_value()?), false),
        RESPONSE_NULL_VALUE_WITH_ATTACHMENTS => (Payload::null(), None, true),
        RESPONSE_VALUE_WITH_ATTACHMENTS => (read_result(&mut r)?, None, true),
        RESPONSE_WITH_EXCEPTION_WITH_ATTACHMENTS => (Payload::null(), Some(r.read_value()?), true),
        other => {
            return Err(BodyError::invalid(format!(
                "Unknown result flag, expect '0' '1' '2' '3' '4' '5', but received: {other}"
            )))
        }
    };
    let attachments = if has_attachments {
        attachments_from_value(r.read_value()?)?
    } else {
        Attachments::new()
    };
    if let Some(ex) = exception {
        return Ok(Err(RpcError::Business(business_error_from(ex))));
    }
    Ok(Ok(RpcResponse { value, attachments }))
}

/// The business error for an exception object off the wire. An object that is not a Java
/// exception still fails the call as a business error, named after its class.
pub fn business_error_from(v: Value) -> BusinessError {
    let v = match BusinessError::from_value(v) {
        Ok(b) => return b,
        Err(v) => v,
    };
    let class_name = match &v {
        Value::Object(Object { class, .. }) => class.clone(),
        _ => "java.lang.RuntimeException".to_owned(),
    };
    BusinessError {
        class_name,
        message: Some(format!(
            "provider answered with a non-exception {}",
            v.kind()
        )),
        raw: Some(v),
    }
}

/// Decodes the single string of a non-OK response body; anything unreadable gives `None`.
pub fn decode_status_message(serialization: u8, body: &[u8]) -> Option<String> {
    if serialization == FASTJSON2 {
        return fastjson2::decode_status_message(body);
    }
    if serialization != HESSIAN2 {
        return Some(String::from_utf8_lossy(body).into_owned());
    }
    Hessian2Reader::new(body)
        .read_nullable_string()
        .ok()
        .flatten()
}

// ---------------------------------------------------------------------------------------------
// By serialization
// ---------------------------------------------------------------------------------------------

/// [`encode_request`] in `serialization`.
pub fn encode_request_in(
    serialization: Serialization,
    id: i64,
    invocation: &Invocation,
    timeout_ms: Option<u64>,
    two_way: bool,
) -> Result<Bytes, RpcError> {
    match serialization {
        Serialization::Hessian2 => encode_request(id, invocation, timeout_ms, two_way),
        Serialization::Fastjson2 => fastjson2::encode_request(id, invocation, timeout_ms, two_way),
    }
}

/// [`decode_request_shared`] for a body in `serialization`.
pub fn decode_request_in(
    serialization: Serialization,
    body: &Bytes,
    signatures: &SignatureCache,
) -> Result<DecodedRequest, BodyError> {
    match serialization {
        Serialization::Hessian2 => decode_request_shared(body, signatures),
        Serialization::Fastjson2 => fastjson2::decode_request(body, signatures),
    }
}

/// [`encode_ok_response`] in `serialization`.
pub fn encode_ok_response_in(
    serialization: Serialization,
    id: i64,
    result: Result<&RpcResponse, &BusinessError>,
    dubbo_version: &str,
) -> Result<Bytes, BodyError> {
    match serialization {
        Serialization::Hessian2 => encode_ok_response(id, result, dubbo_version),
        Serialization::Fastjson2 => fastjson2::encode_ok_response(id, result, dubbo_version),
    }
}

/// [`encode_status_response`] in `serialization`.
pub fn encode_status_response_in(
    serialization: Serialization,
    id: i64,
    status: Status,
    message: &str,
) -> Bytes {
    match serialization {
        Serialization::Hessian2 => encode_status_response(id, status, message),
        Serialization::Fastjson2 => fastjson2::encode_status_response(id, status, message),
    }
}

/// [`decode_ok_response_shared`] for a body in `serialization`.
pub fn decode_ok_response_in(
    serialization: Serialization,
    body: &Bytes,
) -> Result<Result<RpcResponse, RpcError>, BodyError> {
    match serialization {
        Serialization::Hessian2 => decode_ok_response_shared(body),
        Serialization::Fastjson2 => fastjson2::decode_ok_response(body),
    }
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

/// The data of an event frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventData {
    /// A heartbeat (the serialized null).
    Heartbeat,
    /// `"R"`: the provider is shutting down; stop sending it new calls.
    ReadOnly,
    /// `"W"`: the provider takes calls again.
    Writable,
    /// Any other string.
    Other(String),
}

/// Decodes an event body of the given serialization. Hessian2 is decoded exactly; other
/// serializations (fastjson2 from Java 3.2 peers) are read leniently: their null bytes are a
/// heartbeat, a body ending in `R` or `W` the readonly or writable event.
pub fn decode_event(serialization: u8, body: &[u8]) -> Result<EventData, BodyError> {
    if body.len() > MAX_EVENT_SIZE {
        return Err(BodyError::invalid(format!(
            "Event data too long, actual size {}, threshold {MAX_EVENT_SIZE} rejected for security consideration.",
            body.len()
        )));
    }
    if body.is_empty() || body == null_bytes(serialization) {
        return Ok(EventData::Heartbeat);
    }
    if serialization == HESSIAN2 {
        return Ok(match Hessian2Reader::new(body).read_value()? {
            Value::Null => EventData::Heartbeat,
            Value::String(s) if s == READONLY_EVENT => EventData::ReadOnly,
            Value::String(s) if s == WRITABLE_EVENT => EventData::Writable,
            Value::String(s) => EventData::Other(s),
            other => EventData::Other(other.kind().to_owned()),
        });
    }
    Ok(match body.last() {
        Some(b'R') => EventData::ReadOnly,
        Some(b'W') => EventData::Writable,
        _ => EventData::Other(String::from_utf8_lossy(body).into_owned()),
    })
}

/// A heartbeat request frame (`0xE2` for hessian2, body = the serialized null).
pub fn heartbeat_request(id: i64, serialization: u8) -> Bytes {
    crate::codec::encode_frame(
        Header::request(id, serialization, true, true),
        null_bytes(serialization),
    )
}

/// A heartbeat response frame: flag `0x20 | ser`, status 20, the request's id, null body.
pub fn heartbeat_response(id: i64, serialization: u8) -> Bytes {
    crate::codec::encode_frame(
        Header::response(id, serialization, Status::Ok.as_u8(), true),
        null_bytes(serialization),
    )
}

/// The one-way readonly event a provider sends on shutdown, in `serialization` (Java: the
/// channel's first preference). In Hessian 2: `da bb a2 00 <id> 00 00 00 02 01 52`.
pub fn readonly_event(id: i64, serialization: u8) -> Bytes {
    event_request(id, READONLY_EVENT, serialization)
}

/// A one-way event request carrying a string, in `serialization` (Hessian 2 for any id but
/// fastjson2's).
pub fn event_request(id: i64, data: &str, serialization: u8) -> Bytes {
    if serialization == FASTJSON2 {
        return fastjson2::encode_event_request(id, data);
    }
    let mut w = Hessian2Writer::new();
    w.write_string(data);
    crate::codec::encode_frame(Header::request(id, HESSIAN2, false, true), w.as_bytes())
}

#[cfg(test)]
mod tests;
