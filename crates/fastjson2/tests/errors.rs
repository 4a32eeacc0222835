//! Hostile and malformed input ends in typed errors, never a panic or a large allocation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_fastjson2::{from_jsonb, to_jsonb, Error, FrameReader, JsonbReader, Value};

fn code(bytes: &[u8]) -> &'static str {
    from_jsonb(bytes).unwrap_err().code()
}

#[test]
fn truncated_values_are_typed_errors() {
    assert_eq!(code(&[]), "fastjson2.truncated");
    // An int with 4 bytes announced and 2 present.
    assert_eq!(code(&[0x48, 0x00, 0x01]), "fastjson2.truncated");
    // An object without its end.
    assert_eq!(code(&[0xa6, 0x4a, b'a', 0x01]), "fastjson2.truncated");
    // Every proper prefix of a real value fails, none panics.
    let full = to_jsonb(&Value::object(
        "org.apache.dubbo.interop.User",
        vec![
            ("id", Value::Long(1 << 40)),
            ("name", Value::string("h\u{e9}llo \u{4e16}")),
            (
                "tags",
                Value::list(vec![Value::Binary(vec![1, 2]), Value::Date(5)]),
            ),
        ],
    ))
    .unwrap();
    for n in 0..full.len() {
        assert!(from_jsonb(&full[..n]).is_err(), "prefix {n}");
    }
}

#[test]
fn lengths_beyond_the_input_are_refused_before_allocating() {
    // A binary of i32::MAX bytes, an array of 262143 items and a string of 2047 bytes, each
    // with almost nothing after it.
    for bytes in [
        vec![0x91, 0x48, 0x7f, 0xff, 0xff, 0xff],
        vec![0xa4, 0x47, 0xff, 0xff, 0xaf],
        vec![0x7a, 0x3f, 0xff, b'x'],
    ] {
        assert!(
            matches!(from_jsonb(&bytes), Err(Error::InvalidLength { .. })),
            "{bytes:02x?}"
        );
    }
    // A negative length.
    assert!(matches!(
        from_jsonb(&[0x91, 0xff]),
        Err(Error::InvalidLength { len: -1, .. })
    ));
}

#[test]
fn unknown_symbols_and_references_are_typed_errors() {
    // A type name by id 3, never defined; a field name by id 0, never defined.
    assert!(matches!(
        from_jsonb(&[0x92, 0x03, 0xa6, 0xa5]),
        Err(Error::UnknownSymbol { symbol: 3, .. })
    ));
    assert!(matches!(
        from_jsonb(&[0xa6, 0x7f, 0x00, 0x01, 0xa5]),
        Err(Error::UnknownSymbol { symbol: 0, .. })
    ));
    // A shared-table symbol (negative id), which Dubbo never writes.
    assert_eq!(
        code(&[0xa6, 0x7f, 0xff, 0x01, 0xa5]),
        "fastjson2.unknown_symbol"
    );
    // A reference to a path that was never decoded, and `#-1` with no reference before it.
    assert_eq!(
        code(&[0x93, 0x4d, b'$', b'[', b'9', b']']),
        "fastjson2.unresolved_reference"
    );
    assert_eq!(
        code(&[0x93, 0x4c, b'#', b'-', b'1']),
        "fastjson2.unresolved_reference"
    );
}

#[test]
fn bad_tags_strings_and_trailing_bytes_are_typed_errors() {
    // GB18030 strings are not decoded; an object end where a value belongs.
    assert_eq!(code(&[0x7e, 0x00]), "fastjson2.unexpected_tag");
    assert_eq!(code(&[0x94 + 1, 0xa5]), "fastjson2.unexpected_tag");
    // Invalid UTF-8; odd-length and lone-surrogate UTF-16.
    assert_eq!(code(&[0x7a, 0x02, 0xc3, 0x28]), "fastjson2.invalid_string");
    assert_eq!(code(&[0x7c, 0x03, b'a', 0, 0]), "fastjson2.invalid_string");
    assert_eq!(code(&[0x7c, 0x02, 0x00, 0xd8]), "fastjson2.invalid_string");
    // A char that is no Unicode scalar.
    assert_eq!(
        code(&[0x90, 0x48, 0x00, 0x00, 0xd8, 0x00]),
        "fastjson2.invalid_string"
    );
    assert!(matches!(
        from_jsonb(&[0xaf, 0xaf]),
        Err(Error::TrailingBytes { extra: 1 })
    ));
}

#[test]
fn nesting_is_bounded() {
    let deep = vec![0x95u8; 10_000];
    assert!(matches!(
        from_jsonb(&deep),
        Err(Error::DepthExceeded { limit: 128 })
    ));
    // Type names before type names, and symbol markers before symbol markers.
    let typed: Vec<u8> = [0x92, 0x49, 0x00].repeat(100_000);
    assert!(matches!(
        from_jsonb(&typed),
        Err(Error::DepthExceeded { limit: 128 })
    ));
    let mut symbols = vec![0x92];
    symbols.extend(vec![0x7f; 100_000]);
    assert_eq!(code(&symbols), "fastjson2.unexpected_tag");
    let mut nested = vec![0x95u8; 3];
    nested.push(0xaf);
    assert!(JsonbReader::new(&nested)
        .with_max_depth(2)
        .read_value()
        .is_err());
    assert!(JsonbReader::new(&nested)
        .with_max_depth(3)
        .read_value()
        .is_ok());
}

#[test]
fn frames_check_their_lengths() {
    // A frame announcing more bytes than the body holds, a negative one, a short header.
    let mut r = FrameReader::new(&[0, 0, 0, 9, 0xaf]);
    assert!(matches!(
        r.read_object(),
        Err(Error::InvalidLength { len: 9, .. })
    ));
    let mut r = FrameReader::new(&[0xff, 0xff, 0xff, 0xff]);
    assert!(matches!(
        r.read_bytes(),
        Err(Error::InvalidLength { len: -1, .. })
    ));
    let mut r = FrameReader::new(&[0, 0]);
    assert!(matches!(r.read_bytes(), Err(Error::Truncated { .. })));
}

#[test]
fn references_to_enclosing_values_decode_as_relative_refs_and_encode_back() {
    // An object whose field `self` refers to the object itself (`$`), inside a list whose
    // second element refers to the first (`$[0]`).
    let v = Value::list(vec![
        Value::object(
            "a.Node",
            vec![("self", Value::Ref(0)), ("n", Value::Int(1))],
        ),
        Value::Int(2),
    ]);
    let bytes = to_jsonb(&v).unwrap();
    assert_eq!(from_jsonb(&bytes).unwrap(), v);
    let shared = [
        0x96, // array of 2
        0xa6, 0x4a, b'a', 0x01, 0xa5, // {"a": 1}
        0x93, 0x4d, b'$', b'[', b'0', b']', // reference to $[0]
    ];
    let got = from_jsonb(&shared).unwrap();
    let first = Value::map(vec![(Value::string("a"), Value::Int(1))]);
    assert_eq!(got, Value::list(vec![first.clone(), first]));
    // A Ref pointing outside the tree cannot be encoded.
    assert_eq!(
        to_jsonb(&Value::list(vec![Value::Ref(1)]))
            .unwrap_err()
            .code(),
        "fastjson2.unencodable"
    );
}

#[test]
fn decimals_and_big_integers_round_trip() {
    for text in ["123.45", "-0.005", "1E+3", "12345678901234567890123.5", "7"] {
        let v = Value::object("java.math.BigDecimal", vec![("value", Value::string(text))]);
        assert_eq!(from_jsonb(&to_jsonb(&v).unwrap()).unwrap(), v, "{text}");
    }
    for text in ["0", "-1", "98765432109876543210987654321"] {
        let v = Value::object("java.math.BigInteger", vec![("value", Value::string(text))]);
        assert_eq!(from_jsonb(&to_jsonb(&v).unwrap()).unwrap(), v, "{text}");
    }
    let bad = Value::object(
        "java.math.BigDecimal",
        vec![("value", Value::string("1.x"))],
    );
    assert_eq!(to_jsonb(&bad).unwrap_err().code(), "fastjson2.unencodable");
}

#[test]
fn references_cannot_expand_a_small_input_exponentially() {
    // Level 0 is a list of 8 nulls; each next level is a list of 8 references to the level
    // before it ($[i] for level i): 8^k values from about 60·k bytes.
    let mut bytes = vec![0xa4]; // an array with an int length
    bytes.push(40); // 40 levels
    bytes.push(0x94 + 8);
    bytes.extend([0xaf; 8]);
    for level in 1..40 {
        bytes.push(0x94 + 8);
        for _ in 0..8 {
            let path = format!("$[{}]", level - 1);
            bytes.push(0x93);
            bytes.push(0x49 + path.len() as u8);
            bytes.extend(path.bytes());
        }
    }
    assert_eq!(code(&bytes), "fastjson2.ref_expansion");
}
