//! Byte-exact checks against the frames Java Dubbo produces (shared/reference/dubbo-wire.md §1).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use dubbo_core::{Invocation, MethodSignature, RpcResponse, ServiceKey, Value};
use dubbo_protocol_dubbo::body::{self, SignatureCache};
use dubbo_protocol_dubbo::Header;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn str_bytes(prefix: &str, s: &str) -> Vec<u8> {
    let mut v = hex(prefix);
    v.extend_from_slice(s.as_bytes());
    v
}

/// The reference's `DemoService.sayHello("world")`, id 1, 195-byte body.
fn java_say_hello_request() -> Vec<u8> {
    let svc = "org.apache.dubbo.demo.DemoService";
    let mut v = hex("da bb c2 00 00 00 00 00 00 00 00 01 00 00 00 c3");
    v.extend(str_bytes("05", "2.0.2"));
    v.extend(str_bytes("30 21", svc));
    v.extend(str_bytes("05", "0.0.0"));
    v.extend(str_bytes("08", "sayHello"));
    v.extend(str_bytes("12", "Ljava/lang/String;"));
    v.extend(str_bytes("05", "world"));
    v.extend(hex("48"));
    v.extend(str_bytes("04", "path"));
    v.extend(str_bytes("30 21", svc));
    v.extend(str_bytes("09", "interface"));
    v.extend(str_bytes("30 21", svc));
    v.extend(str_bytes("07", "version"));
    v.extend(str_bytes("05", "0.0.0"));
    v.extend(str_bytes("07", "timeout"));
    v.extend(str_bytes("04", "3000"));
    v.extend(hex("5a"));
    v
}

#[test]
fn say_hello_request_is_byte_exact() {
    let expected = java_say_hello_request();
    assert_eq!(expected.len(), 16 + 195);
    let method = Arc::new(MethodSignature::new(
        "sayHello",
        &["java.lang.String"],
        "java.lang.String",
    ));
    let inv = Invocation::new(
        ServiceKey::interface_only("org.apache.dubbo.demo.DemoService"),
        method,
        vec!["world".into()],
    );
    let frame = body::encode_request(1, &inv, Some(3000), true).unwrap();
    assert_eq!(&frame[..], &expected[..]);
}

#[test]
fn java_request_decodes() {
    let bytes = java_say_hello_request();
    let h = Header::decode(&bytes).unwrap();
    assert_eq!((h.flag, h.id, h.body_len), (0xc2, 1, 195));
    let req = body::decode_request(&bytes[16..], &SignatureCache::new()).unwrap();
    assert_eq!(req.dubbo_version, "2.0.2");
    assert_eq!(req.method.name(), "sayHello");
    assert_eq!(&*req.method.parameter_types()[0], "java.lang.String");
    assert_eq!(req.args, vec![Value::String("world".into())]);
    assert_eq!(
        req.service_key(),
        ServiceKey::interface_only("org.apache.dubbo.demo.DemoService")
    );
    assert_eq!(req.timeout_ms(), Some(3000));
}

#[test]
fn hello_world_response_is_byte_exact() {
    // 94 0b "Hello world" 48 05 "dubbo" 05 "2.0.2" 5a
    let mut body = hex("94");
    body.extend(str_bytes("0b", "Hello world"));
    body.extend(hex("48"));
    body.extend(str_bytes("05", "dubbo"));
    body.extend(str_bytes("05", "2.0.2"));
    body.extend(hex("5a"));
    let mut expected = hex("da bb 02 14 00 00 00 00 00 00 00 07");
    expected.extend((body.len() as u32).to_be_bytes());
    expected.extend(&body);

    let resp = RpcResponse::new(Value::String("Hello world".into()));
    let frame = body::encode_ok_response(7, Ok(&resp), "2.0.2").unwrap();
    assert_eq!(&frame[..], &expected[..]);

    let back = body::decode_ok_response(&expected[16..]).unwrap().unwrap();
    assert_eq!(back.value, Value::String("Hello world".into()));
    assert_eq!(back.attachments.get_str("dubbo"), Some("2.0.2"));
}

#[test]
fn java_runtime_exception_decodes_as_business_error() {
    // new RuntimeException("boom") on JDK 17 (reference §2.3), as response type 3.
    let mut body = hex("93");
    body.extend(str_bytes("43 1a", "java.lang.RuntimeException"));
    body.extend(hex("94"));
    body.extend(str_bytes("14", "suppressedExceptions"));
    body.extend(str_bytes("0a", "stackTrace"));
    body.extend(str_bytes("05", "cause"));
    body.extend(str_bytes("0d", "detailMessage"));
    body.extend(hex("60"));
    body.extend(str_bytes("70 1f", "java.util.Collections$EmptyList"));
    body.extend(str_bytes("70 1c", "[java.lang.StackTraceElement"));
    body.extend(hex("51 90"));
    body.extend(str_bytes("04", "boom"));
    body.extend(hex("48"));
    body.extend(str_bytes("05", "dubbo"));
    body.extend(str_bytes("05", "2.0.2"));
    body.extend(hex("5a"));
    let err = body::decode_ok_response(&body).unwrap().unwrap_err();
    let b = err.as_business().expect("a business error");
    assert_eq!(b.class_name, "java.lang.RuntimeException");
    assert_eq!(b.message.as_deref(), Some("boom"));
}

#[test]
fn readonly_and_heartbeat_frames() {
    assert_eq!(
        &body::readonly_event(0x0102, 2)[..],
        &hex("da bb a2 00 00 00 00 00 00 00 01 02 00 00 00 02 01 52")[..]
    );
    assert_eq!(
        &body::heartbeat_request(3, 2)[..],
        &hex("da bb e2 00 00 00 00 00 00 00 00 03 00 00 00 01 4e")[..]
    );
    assert_eq!(
        &body::heartbeat_response(3, 2)[..],
        &hex("da bb 22 14 00 00 00 00 00 00 00 03 00 00 00 01 4e")[..]
    );
}
