use super::*;
use dubbo_core::ServiceKey;

#[test]
fn a_request_fits_the_buffer_its_size_hint_allocates() {
    let sig = Arc::new(MethodSignature::new("echo", &["byte[]"], "byte[]"));
    for (interface, arg) in [
        (
            "org.apache.dubbo.bench.EchoService",
            Value::Binary(vec![7; 128]),
        ),
        ("a.B", Value::String("x".repeat(1000))),
        ("a.B", Value::Binary(Vec::new())),
    ] {
        let inv = Invocation::new(
            ServiceKey::new(interface, None, Some("1.0")),
            sig.clone(),
            vec![arg],
        )
        .with_attachment("remote.application", "bench");
        let hint = request_size_hint(&inv);
        let frame = encode_request(1, &inv, Some(1000), true).unwrap();
        assert!(
            frame.len() - 16 <= hint,
            "{} bytes, hint {hint}",
            frame.len() - 16
        );
    }
}

#[test]
fn versions() {
    assert_eq!(int_version("2.0.2"), Some(2_000_200));
    assert_eq!(int_version("2.0.10"), Some(2_001_000));
    assert!(supports_response_attachments("2.0.2"));
    assert!(supports_response_attachments("2.0.99"));
    assert!(!supports_response_attachments("2.0.1"));
    assert!(!supports_response_attachments(""));
    assert!(!supports_response_attachments("3.3.0"));
}

#[test]
fn events() {
    assert_eq!(
        &readonly_event(7, 2)[..],
        &[0xda, 0xbb, 0xa2, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 2, 0x01, 0x52]
    );
    // In fastjson2 (Java's events in a channel preferring it): a 4-byte length, then the JSONB
    // string "R" (0x4a: an ASCII string of one byte).
    assert_eq!(
        &readonly_event(7, 23)[..],
        &[0xda, 0xbb, 0xb7, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 6, 0, 0, 0, 2, 0x4a, 0x52]
    );
    assert_eq!(
        decode_event(23, &readonly_event(7, 23)[16..]).unwrap(),
        EventData::ReadOnly
    );
    assert_eq!(&heartbeat_request(1, 2)[2..4], &[0xe2, 0x00]);
    assert_eq!(&heartbeat_request(1, 2)[16..], &[0x4e]);
    assert_eq!(&heartbeat_response(1, 2)[2..4], &[0x22, 0x14]);
    assert_eq!(&heartbeat_response(1, 23)[2..4], &[0x37, 0x14]);
    assert_eq!(&heartbeat_response(1, 23)[16..], &[0, 0, 0, 1, 0xaf]);
    assert_eq!(decode_event(2, &[0x4e]).unwrap(), EventData::Heartbeat);
    assert_eq!(decode_event(2, &[0x01, 0x52]).unwrap(), EventData::ReadOnly);
    assert_eq!(decode_event(2, &[0x01, 0x57]).unwrap(), EventData::Writable);
    assert_eq!(
        decode_event(23, &[0, 0, 0, 1, 0xaf]).unwrap(),
        EventData::Heartbeat
    );
    assert_eq!(
        decode_event(23, &[0, 0, 0, 2, 0x4a, b'R']).unwrap(),
        EventData::ReadOnly
    );
    assert!(decode_event(2, &[0x30; 16]).is_err());
}

#[test]
fn request_round_trip_with_group_and_extra_attachments() {
    let sig = Arc::new(MethodSignature::new(
        "add",
        &["int", "java.lang.String"],
        "int",
    ));
    let inv = Invocation::new(
        ServiceKey::new("a.B", Some("g1"), Some("1.2")),
        sig,
        vec![Value::Int(3), "x".into()],
    )
    .with_attachment("k", "v");
    let frame = encode_request(42, &inv, Some(500), true).unwrap();
    let h = Header::decode(&frame).unwrap();
    assert_eq!(h.id, 42);
    assert_eq!(h.body_len as usize, frame.len() - 16);
    let cache = SignatureCache::new();
    let req = decode_request(&frame[16..], &cache).unwrap();
    assert_eq!(req.dubbo_version, "2.0.2");
    assert_eq!(req.method.descriptor(), "ILjava/lang/String;");
    assert_eq!(req.args, vec![Value::Int(3), Value::String("x".into())]);
    assert_eq!(
        req.service_key(),
        ServiceKey::new("a.B", Some("g1"), Some("1.2"))
    );
    assert_eq!(req.timeout_ms(), Some(500));
    assert_eq!(req.attachments.get_str("k"), Some("v"));
    decode_request(&frame[16..], &cache).unwrap();
    assert_eq!(cache.len(), 1);
}

/// A typed result is encoded exactly as its tree would be, and one that is null gets the
/// null-value flag (what Java sends for void methods).
#[test]
fn typed_responses_encode_like_values() {
    for version in ["2.0.2", "2.0.0"] {
        for (typed, tree) in [
            (Payload::typed(()), Value::Null),
            (Payload::typed(None::<i32>), Value::Null),
            (Payload::typed(Some(5)), Value::Int(5)),
            (
                Payload::typed(vec!["a".to_owned(), "b".to_owned()]),
                Value::list(vec!["a".into(), "b".into()]),
            ),
        ] {
            let mut a = RpcResponse::new(typed);
            a.attachments.insert("k", "v");
            let mut b = RpcResponse::new(tree);
            b.attachments.insert("k", "v");
            assert_eq!(
                encode_ok_response(7, Ok(&a), version).unwrap(),
                encode_ok_response(7, Ok(&b), version).unwrap(),
                "{version} {:?}",
                b.value
            );
        }
    }
    let bad = RpcResponse::new(Payload::typed(u64::MAX));
    assert!(encode_ok_response(7, Ok(&bad), "2.0.2").is_err());
}

/// The shared decode leaves the value encoded: it decodes to the eager tree and straight
/// into a type, and the attachments after it come out right although the value defines
/// classes and references of its own.
#[test]
fn shared_decode_leaves_the_value_encoded() {
    #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
    #[serde(rename = "a.User")]
    struct User {
        id: i64,
        name: String,
        tags: Vec<String>,
    }
    let users: Vec<User> = (0..5)
        .map(|i| User {
            id: i,
            name: format!("n{i}"),
            tags: vec!["x".into(); 2],
        })
        .collect();
    for version in ["2.0.2", "2.0.0"] {
        let mut resp = RpcResponse::new(Payload::typed(users.clone()));
        resp.attachments.insert("k", "v");
        let frame = encode_ok_response(3, Ok(&resp), version).unwrap();
        let body = frame.slice(16..);
        let eager = decode_ok_response(&body).unwrap().unwrap();
        let lazy = decode_ok_response_shared(&body).unwrap().unwrap();
        assert!(
            matches!(lazy.value, Payload::Hessian2(_)),
            "{:?}",
            lazy.value
        );
        assert_eq!(eager.attachments, lazy.attachments);
        assert_eq!(lazy.value, eager.value);
        assert!(matches!(eager.value, Payload::Value(_)));
        assert_eq!(lazy.value.decode::<Vec<User>>().unwrap(), users);
    }
    // Null results and exceptions are not deferred.
    let null = encode_ok_response(3, Ok(&RpcResponse::new(Value::Null)), "2.0.2").unwrap();
    let lazy = decode_ok_response_shared(&null.slice(16..))
        .unwrap()
        .unwrap();
    assert_eq!(lazy.value, Value::Null);
    // A truncated value is still an error up front.
    let frame =
        encode_ok_response(3, Ok(&RpcResponse::new(Payload::typed(users))), "2.0.0").unwrap();
    let cut = frame.slice(16..frame.len() - 3);
    assert!(decode_ok_response_shared(&cut).is_err());
}

#[test]
fn response_round_trips() {
    let mut resp = RpcResponse::new(Value::String("hi".into()));
    resp.attachments.insert("a", "b");
    let f = encode_ok_response(1, Ok(&resp), "2.0.2").unwrap();
    assert_eq!(f[16], 0x94);
    let back = decode_ok_response(&f[16..]).unwrap().unwrap();
    assert_eq!(back.value, Value::String("hi".into()));
    assert_eq!(back.attachments.get_str("a"), Some("b"));
    assert_eq!(back.attachments.get_str("dubbo"), Some("2.0.2"));

    let f = encode_ok_response(1, Ok(&RpcResponse::new(Value::Null)), "2.0.2").unwrap();
    assert_eq!(f[16], 0x95);
    let f = encode_ok_response(1, Ok(&RpcResponse::new(Value::Null)), "2.0.0").unwrap();
    assert_eq!(&f[16..], &[0x92]);

    let b = BusinessError::new("java.lang.IllegalStateException", "boom");
    let f = encode_ok_response(1, Err(&b), "2.0.2").unwrap();
    assert_eq!(f[16], 0x93);
    let err = decode_ok_response(&f[16..]).unwrap().unwrap_err();
    let be = err.as_business().unwrap();
    assert_eq!(be.class_name, "java.lang.IllegalStateException");
    assert_eq!(be.message.as_deref(), Some("boom"));

    let f = encode_status_response(5, Status::ServiceError, "nope");
    assert_eq!(&f[2..4], &[0x02, 70]);
    assert_eq!(decode_status_message(2, &f[16..]).as_deref(), Some("nope"));
    assert!(decode_ok_response(&[0x96]).is_err());
}

#[test]
fn non_exception_object_is_still_a_business_error() {
    let mut w = Hessian2Writer::new();
    w.write_int(RESPONSE_WITH_EXCEPTION);
    w.write_value(&Value::Int(3)).unwrap();
    let err = decode_ok_response(w.as_bytes()).unwrap().unwrap_err();
    assert!(err.is_business());
}

/// The eager and the shared decodings of `body`: the same arguments and attachments, and the
/// forms the shared one left each argument in.
fn decode_both(body: &[u8]) -> Vec<&'static str> {
    let cache = SignatureCache::new();
    let eager = decode_request(body, &cache).unwrap();
    let lazy = decode_request_shared(&Bytes::copy_from_slice(body), &cache).unwrap();
    assert!(eager.args.iter().all(|a| a.form() == "value"));
    assert_eq!(lazy.args, eager.args);
    assert_eq!(
        format!("{:?}", lazy.attachments),
        format!("{:?}", eager.attachments)
    );
    lazy.args.iter().map(Payload::form).collect()
}

/// Every argument is left encoded unless it refers back to an object or type name of an
/// earlier one; one that uses the class definition of an earlier one (a later POJO of the same
/// class is written without it) gets that definition put before its bytes.
#[test]
fn arguments_stay_encoded_unless_they_refer_back() {
    let user = |id: i64| Value::object("a.User", vec![("id", Value::Long(id))]);
    let sig = Arc::new(MethodSignature::new(
        "m",
        &["int", "java.lang.String", "a.User", "a.User", "int"],
        "int",
    ));
    let inv = Invocation::new(
        ServiceKey::new("a.B", None, None),
        sig,
        vec![Value::Int(3), "x".into(), user(1), user(2), Value::Int(5)],
    )
    .with_attachment("k", "v");
    let frame = encode_request(1, &inv, Some(500), true).unwrap();
    assert_eq!(
        decode_both(&frame[16..]),
        ["value", "value", "hessian2", "hessian2", "value"]
    );
    let lazy = decode_request_shared(&frame.slice(16..), &SignatureCache::new()).unwrap();
    let forms: Vec<_> = lazy
        .args
        .iter()
        .filter_map(|a| match a {
            Payload::Hessian2(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    // The first user's bytes are a slice of the body; the second's start with the class
    // definition.
    assert_eq!(forms[0].as_bytes()[0], b'C');
    assert_eq!(forms[0].to_value().unwrap(), user(1));
    assert_eq!(forms[1].as_bytes()[0], b'C');
    assert_eq!(forms[1].as_bytes().len(), forms[0].as_bytes().len());
    assert_eq!(forms[1].to_value().unwrap(), user(2));
}

/// The request header of a body written by hand, for `descriptor`.
fn request_header(descriptor: &str) -> Hessian2Writer {
    let mut w = Hessian2Writer::new();
    for s in ["2.0.2", "a.B", "0.0.0", "m", descriptor] {
        w.write_string(s);
    }
    w
}

/// A back-reference (`Q`) from one argument into another (Java sends one object passed twice
/// that way) reads as a copy of the object: that argument is a tree, read with the stream's
/// tables as they were before it; the arguments after it are left encoded again.
#[test]
fn an_argument_referring_to_an_earlier_one_is_read_as_a_tree() {
    let mut w = request_header("Ljava/util/List;Ljava/util/List;Ljava/util/List;Ljava/util/Map;");
    w.write_list_begin(1, None);
    w.write_int(1);
    w.write_ref(0);
    w.write_list_begin(1, None);
    w.write_ref(0);
    w.write_map_begin(None);
    w.write_string("k");
    w.write_int(2);
    w.write_map_end();
    w.write_map_begin(None);
    w.write_map_end();
    let body = w.into_bytes();
    assert_eq!(
        decode_both(&body),
        ["hessian2", "value", "value", "hessian2"]
    );
    let lazy = decode_request_shared(&Bytes::from(body), &SignatureCache::new()).unwrap();
    let one = Value::list(vec![Value::Int(1)]);
    assert_eq!(lazy.args[1], one);
    assert_eq!(lazy.args[2], Value::list(vec![one]));
}

/// A typed list whose type name an earlier argument brought names it by index: a tree too.
#[test]
fn an_argument_naming_an_earlier_type_is_read_as_a_tree() {
    let typed = || Value::typed_list("java.util.ArrayList", vec![Value::Int(7)]);
    let sig = Arc::new(MethodSignature::new(
        "m",
        &["java.util.List", "java.util.List"],
        "int",
    ));
    let inv = Invocation::new(
        ServiceKey::new("a.B", None, None),
        sig,
        vec![typed(), typed()],
    );
    let frame = encode_request(1, &inv, None, true).unwrap();
    assert_eq!(decode_both(&frame[16..]), ["hessian2", "value"]);
}

/// A malformed or truncated argument fails the request as the eager decoding does, though it
/// is not decoded.
#[test]
fn a_broken_argument_fails_the_shared_decoding_too() {
    let sig = Arc::new(MethodSignature::new("m", &["java.util.List"], "int"));
    let inv = Invocation::new(
        ServiceKey::new("a.B", None, None),
        sig,
        vec![Value::list(vec!["a".into(), "b".into()])],
    );
    let frame = encode_request(1, &inv, None, true).unwrap();
    let body = frame.slice(16..);
    let cache = SignatureCache::new();
    for cut in 40..body.len() {
        let short = body.slice(..cut);
        if decode_request(&short, &cache).is_err() {
            assert!(
                decode_request_shared(&short, &cache).is_err(),
                "cut at {cut}"
            );
        }
    }
}
