//! One message of an interface-mode stream: each request message is a `TripleRequestWrapper`
//! holding one Hessian 2 argument, each response message a `TripleResponseWrapper` holding one
//! value, as Java Dubbo 3.3 sends them for methods that take or return a `StreamObserver`.
//!
//! What Java puts in a wrapper depends on the method's shape (Java's
//! `ReflectionMethodDescriptor` decides it from the signature, nothing on the wire says it):
//!
//! - `void m(Req, StreamObserver<Resp>)`, a server stream: one request message with one
//!   argument, and `argTypes` naming both declared parameters: `Req`'s class and
//!   `org.apache.dubbo.common.stream.StreamObserver` ([`STREAM_OBSERVER`]).
//! - `void m(StreamObserver<Resp>)`: a server stream with no request value (no argument, no
//!   argument type).
//! - `StreamObserver<Req> m(StreamObserver<Resp>)`: a bidirectional stream, and the only shape
//!   Java has for a client stream too; each request message holds one argument whose type is
//!   `Req`'s class.
//!
//! Every response message's `type` is the declared `Resp` class name, whatever the runtime
//! class of the value. A type argument is never primitive: an `i32` element is
//! `java.lang.Integer` ([`boxed_java_type`]), while the request parameter of a server stream
//! keeps its declared type (`int` stays `int`).

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::status::Status;
use crate::wrapper::{
    decode_payload, is_hessian, TripleRequestWrapper, TripleResponseWrapper, HESSIAN4,
};

/// The Java type name of Dubbo's `StreamObserver`, as the last `argTypes` entry of a
/// server-stream request.
pub const STREAM_OBSERVER: &str = "org.apache.dubbo.common.stream.StreamObserver";

/// The class a `StreamObserver<T>` names for a Rust type whose Java type is `java_type`: a type
/// argument is never primitive, so `int` is `java.lang.Integer` there.
pub fn boxed_java_type(java_type: &str) -> &str {
    match java_type {
        "int" => "java.lang.Integer",
        "long" => "java.lang.Long",
        "boolean" => "java.lang.Boolean",
        "double" => "java.lang.Double",
        "float" => "java.lang.Float",
        "short" => "java.lang.Short",
        "byte" => "java.lang.Byte",
        "char" => "java.lang.Character",
        other => other,
    }
}

/// Encodes one request message holding `value`, with `arg_types` as Java sends them for the
/// method's shape (see the module docs).
pub fn encode_request<T: Serialize>(value: &T, arg_types: &[&str]) -> Result<Bytes, Status> {
    let arg = dubbo_hessian2::to_vec(value)
        .map_err(|e| Status::internal(format!("hessian2 encoding failed: {e}")))?;
    Ok(TripleRequestWrapper {
        serialize_type: HESSIAN4.to_owned(),
        args: vec![Bytes::from(arg)],
        arg_types: arg_types.iter().map(|t| (*t).to_owned()).collect(),
    }
    .encode())
}

/// Decodes the one argument of a stream's request message as `T`.
pub fn decode_request<T: DeserializeOwned>(payload: Bytes) -> Result<T, Status> {
    let w = TripleRequestWrapper::decode(payload)?;
    check_serialization(&w.serialize_type)?;
    let mut args = w.args.into_iter();
    let (Some(arg), None) = (args.next(), args.next()) else {
        return Err(Status::invalid_argument(
            "a stream's request message holds exactly one argument",
        ));
    };
    decode_payload(arg)
        .decode::<T>()
        .map_err(|e| Status::invalid_argument(format!("request message: {e}")))
}

/// Encodes one response message holding `value`, declared as the Java type `type_name`.
pub fn encode_response<T: Serialize>(value: &T, type_name: &str) -> Result<Bytes, Status> {
    let data = dubbo_hessian2::to_vec(value)
        .map_err(|e| Status::internal(format!("hessian2 encoding failed: {e}")))?;
    Ok(TripleResponseWrapper {
        serialize_type: HESSIAN4.to_owned(),
        data: Bytes::from(data),
        type_name: type_name.to_owned(),
    }
    .encode())
}

/// Decodes one response message as `T`.
pub fn decode_response<T: DeserializeOwned>(payload: Bytes) -> Result<T, Status> {
    let w = TripleResponseWrapper::decode(payload)?;
    check_serialization(&w.serialize_type)?;
    decode_payload(w.data)
        .decode::<T>()
        .map_err(|e| Status::internal(format!("response message: {e}")))
}

fn check_serialization(serialize_type: &str) -> Result<(), Status> {
    if is_hessian(serialize_type) {
        Ok(())
    } else {
        Err(Status::unimplemented(format!(
            "serialization {serialize_type:?} is not supported (hessian4 only)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_element_types_are_boxed() {
        assert_eq!(boxed_java_type("int"), "java.lang.Integer");
        assert_eq!(boxed_java_type("boolean"), "java.lang.Boolean");
        assert_eq!(boxed_java_type("java.lang.String"), "java.lang.String");
        assert_eq!(boxed_java_type("[B"), "[B");
    }

    #[test]
    fn request_round_trip_with_java_arg_types() {
        let b = encode_request(&"5".to_owned(), &["java.lang.String", STREAM_OBSERVER]).unwrap();
        let w = TripleRequestWrapper::decode(b.clone()).unwrap();
        assert_eq!(w.arg_types, ["java.lang.String", STREAM_OBSERVER]);
        assert_eq!(w.args.len(), 1);
        assert_eq!(decode_request::<String>(b).unwrap(), "5");
    }

    #[test]
    fn request_with_two_arguments_is_refused() {
        let w = TripleRequestWrapper::hessian(
            &[
                dubbo_core::Payload::typed(1i32),
                dubbo_core::Payload::typed(2i32),
            ],
            &["int", "int"],
        )
        .unwrap();
        let e = decode_request::<i32>(w.encode()).unwrap_err();
        assert_eq!(e.code(), crate::status::Code::InvalidArgument);
    }

    #[test]
    fn response_carries_the_declared_type() {
        let b = encode_response(&7i32, "java.lang.Integer").unwrap();
        assert_eq!(
            TripleResponseWrapper::decode(b.clone()).unwrap().type_name,
            "java.lang.Integer"
        );
        assert_eq!(decode_response::<i32>(b).unwrap(), 7);
        let other = TripleResponseWrapper {
            serialize_type: "fastjson2".into(),
            data: Bytes::new(),
            type_name: String::new(),
        };
        assert_eq!(
            decode_response::<i32>(other.encode()).unwrap_err().code(),
            crate::status::Code::Unimplemented
        );
    }
}
