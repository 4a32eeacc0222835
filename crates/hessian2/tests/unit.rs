//! Unit tests from the hex examples of the wire reference, plus error handling,
//! limits and the serde mapping.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, HashMap};

use dubbo_hessian2::java;
use dubbo_hessian2::{
    from_slice, to_value, to_vec, Error, Hessian2Reader, Hessian2Writer, Limits, Value,
};
use serde::{Deserialize, Serialize};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn str_bytes(s: &str) -> Vec<u8> {
    let mut v = vec![s.len() as u8];
    v.extend_from_slice(s.as_bytes());
    v
}

fn enc(f: impl FnOnce(&mut Hessian2Writer)) -> Vec<u8> {
    let mut w = Hessian2Writer::new();
    f(&mut w);
    w.into_bytes()
}

#[test]
fn ints_and_longs() {
    for (v, h) in [
        (0, "90"),
        (-16, "80"),
        (47, "bf"),
        (48, "c8 30"),
        (-2048, "c0 00"),
        (2047, "cf ff"),
        (2048, "d4 08 00"),
        (20880, "d4 51 90"),
        (262144, "49 00 04 00 00"),
    ] {
        assert_eq!(enc(|w| w.write_int(v)), hex(h), "int {v}");
        assert_eq!(Hessian2Reader::new(&hex(h)).read_int().unwrap(), v);
    }
    for (v, h) in [
        (0i64, "e0"),
        (-8, "d8"),
        (16, "f8 10"),
        (262143, "3f ff ff"),
        (262144, "59 00 04 00 00"),
        (1 << 40, "4c 00 00 01 00 00 00 00 00"),
    ] {
        assert_eq!(enc(|w| w.write_long(v)), hex(h), "long {v}");
        assert_eq!(Hessian2Reader::new(&hex(h)).read_long().unwrap(), v);
    }
}

#[test]
fn doubles() {
    for (v, h) in [
        (0.0, "5b"),
        (1.0, "5c"),
        (-128.0, "5d 80"),
        (300.0, "5e 01 2c"),
        (0.1, "5f 00 00 00 64"),
        (12.25, "5f 00 00 2f da"),
    ] {
        assert_eq!(enc(|w| w.write_double(v)), hex(h), "double {v}");
        assert_eq!(Hessian2Reader::new(&hex(h)).read_double().unwrap(), v);
    }
    // Float objects go through their decimal string: 1.5f -> 5f 00 00 05 dc.
    assert_eq!(to_vec(&1.5f32).unwrap(), hex("5f 00 00 05 dc"));
    assert_eq!(to_vec(&0.1f32).unwrap(), hex("5f 00 00 00 64"));
}

#[test]
fn strings_cesu8() {
    assert_eq!(enc(|w| w.write_string("hello")), hex("05 68 65 6c 6c 6f"));
    assert_eq!(enc(|w| w.write_string("😀")), hex("02 ed a0 bd ed b8 80"));
    assert_eq!(
        Hessian2Reader::new(&hex("02 ed a0 bd ed b8 80"))
            .read_string()
            .unwrap(),
        "😀"
    );
    // Lenient 4-byte UTF-8 counts as two units.
    assert_eq!(
        Hessian2Reader::new(&hex("02 f0 9f 98 80"))
            .read_string()
            .unwrap(),
        "😀"
    );
    // Unpaired surrogate -> U+FFFD.
    assert_eq!(
        Hessian2Reader::new(&hex("01 ed a0 bd"))
            .read_string()
            .unwrap(),
        "\u{fffd}"
    );
    // Chunked: R 0x8000 units + final.
    let long = "x".repeat(0x8001);
    let b = enc(|w| w.write_string(&long));
    assert_eq!(&b[..3], &[b'R', 0x80, 0x00]);
    assert_eq!(&b[3 + 0x8000..3 + 0x8000 + 2], &[0x01, b'x']);
    assert_eq!(Hessian2Reader::new(&b).read_string().unwrap(), long);
    assert!(matches!(
        Hessian2Reader::new(&hex("4e")).read_string(),
        Err(Error::UnexpectedTag { .. })
    ));
    assert_eq!(
        Hessian2Reader::new(&hex("4e"))
            .read_nullable_string()
            .unwrap(),
        None
    );
}

#[test]
fn binary_and_dates() {
    assert_eq!(enc(|w| w.write_binary(&[1, 2, 3])), hex("23 01 02 03"));
    assert_eq!(
        enc(|w| w.write_date(1_700_000_000_000 - 1_700_000_000_000 % 60000)).len(),
        5
    );
    assert_eq!(enc(|w| w.write_date(123))[0], 0x4a);
    let v = Hessian2Reader::new(&hex("4b 00 00 00 01"))
        .read_value()
        .unwrap();
    assert_eq!(v, Value::Date(60000));
}

#[test]
fn collections_from_reference() {
    // ArrayList [a,b]
    let l = Value::list(vec!["a".into(), "b".into()]);
    assert_eq!(enc(|w| w.write_value(&l).unwrap()), hex("7a 01 61 01 62"));
    // HashSet {a}
    let s = java::hash_set(vec!["a".into()]);
    let mut want = hex("71 11");
    want.extend_from_slice(b"java.util.HashSet");
    want.extend_from_slice(&hex("01 61"));
    assert_eq!(enc(|w| w.write_value(&s).unwrap()), want);
    // HashMap {a=1}
    let m = Value::map(vec![("a".into(), Value::Int(1))]);
    assert_eq!(enc(|w| w.write_value(&m).unwrap()), hex("48 01 61 91 5a"));
    // int[]{1,2}, and the second use of the type is an index.
    let a = Value::typed_list("[int", vec![Value::Int(1), Value::Int(2)]);
    let b = enc(|w| {
        w.write_value(&a).unwrap();
        w.write_value(&a).unwrap();
    });
    let mut want = hex("72 04");
    want.extend_from_slice(b"[int");
    want.extend_from_slice(&hex("91 92 72 90 91 92"));
    assert_eq!(b, want);
    let mut r = Hessian2Reader::new(&b);
    assert_eq!(r.read_value().unwrap(), a);
    assert_eq!(r.read_value().unwrap(), a);
    // Variable lists and untyped fixed lists decode too.
    let v = Hessian2Reader::new(&hex("57 91 92 5a"))
        .read_value()
        .unwrap();
    assert_eq!(v, Value::list(vec![Value::Int(1), Value::Int(2)]));
    let v = Hessian2Reader::new(&hex("58 92 91 92"))
        .read_value()
        .unwrap();
    assert_eq!(v, Value::list(vec![Value::Int(1), Value::Int(2)]));
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Dump$User")]
struct DumpUser {
    id: i32,
    name: String,
    tags: Vec<String>,
    score: Option<i64>,
    active: bool,
}

#[test]
fn pojo_field_order_reference_example() {
    // User{int id; String name; List tags; Long score; boolean active}
    //   -> def ["tags","active","score","name","id"]
    let u = DumpUser {
        id: 1,
        name: "bob".into(),
        tags: vec!["x".into()],
        score: Some(7),
        active: true,
    };
    let mut want = vec![0x43];
    want.extend(str_bytes("Dump$User"));
    want.push(0x95);
    for f in ["tags", "active", "score", "name", "id"] {
        want.extend(str_bytes(f));
    }
    want.extend(hex("60 79 01 78 54 e7 03 62 6f 62 91"));
    for _ in 0..3 {
        // first (learning) and later (cached layout) instances are identical
        assert_eq!(to_vec(&u).unwrap(), want);
    }
    let back: DumpUser = from_slice(&want).unwrap();
    assert_eq!(back, u);
    // Value form keeps wire order.
    let v = to_value(&u).unwrap();
    let names: Vec<_> = v
        .as_object()
        .unwrap()
        .fields
        .iter()
        .map(|(k, _)| k.clone())
        .collect();
    assert_eq!(names, ["tags", "active", "score", "name", "id"]);
    // Two instances in one stream share the definition.
    let b = to_vec(&vec![u.clone(), u.clone()]).unwrap();
    let back: Vec<DumpUser> = from_slice(&b).unwrap();
    assert_eq!(back, vec![u.clone(), u]);
}

#[allow(clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "java.util.concurrent.TimeUnit")]
enum TimeUnit {
    SECONDS,
}

#[test]
fn enums_and_bigdecimal_from_reference() {
    let mut want = vec![0x43, 0x1d];
    want.extend_from_slice(b"java.util.concurrent.TimeUnit");
    want.push(0x91);
    want.extend(str_bytes("name"));
    want.push(0x60);
    want.extend(str_bytes("SECONDS"));
    want.extend(hex("51 90"));
    let b = enc(|w| {
        w.serialize(&TimeUnit::SECONDS).unwrap();
        w.serialize(&TimeUnit::SECONDS).unwrap();
    });
    assert_eq!(b, want);
    let mut r = Hessian2Reader::new(&b);
    assert_eq!(r.deserialize::<TimeUnit>().unwrap(), TimeUnit::SECONDS);
    assert_eq!(r.deserialize::<TimeUnit>().unwrap(), TimeUnit::SECONDS);
    // Plain strings deserialize into enums too.
    assert_eq!(
        from_slice::<TimeUnit>(&str_bytes("SECONDS")).unwrap(),
        TimeUnit::SECONDS
    );

    let mut want = vec![0x43, 0x14];
    want.extend_from_slice(b"java.math.BigDecimal");
    want.push(0x91);
    want.extend(str_bytes("value"));
    want.push(0x60);
    want.extend(str_bytes("12.34"));
    assert_eq!(to_vec(&java::BigDecimal::new("12.34")).unwrap(), want);
    assert_eq!(from_slice::<java::BigDecimal>(&want).unwrap().0, "12.34");
}

#[test]
fn exception_from_reference() {
    let e = java::JavaException::runtime("boom");
    let b = enc(|w| w.write_value(&e.to_value()).unwrap());
    let mut want = vec![0x43, 0x1a];
    want.extend_from_slice(b"java.lang.RuntimeException");
    want.push(0x94);
    for f in [
        "suppressedExceptions",
        "stackTrace",
        "cause",
        "detailMessage",
    ] {
        want.extend(str_bytes(f));
    }
    want.extend(hex("60 70"));
    want.extend(str_bytes("java.util.Collections$EmptyList"));
    want.push(0x70);
    want.extend(str_bytes("[java.lang.StackTraceElement"));
    want.extend(hex("51 90"));
    want.extend(str_bytes("boom"));
    assert_eq!(b, want);
    let v = Hessian2Reader::new(&b).read_value().unwrap();
    assert_eq!(v.get("cause"), Some(&Value::Ref(0)));
    let back = java::JavaException::from_value(&v).unwrap();
    assert_eq!(back, e);
}

#[test]
fn say_hello_response_body() {
    let b = enc(|w| {
        w.write_int(4);
        w.write_string("Hello world");
        w.write_value(&Value::map(vec![("dubbo".into(), "2.0.2".into())]))
            .unwrap();
    });
    let mut want = hex("94");
    want.extend(str_bytes("Hello world"));
    want.push(0x48);
    want.extend(str_bytes("dubbo"));
    want.extend(str_bytes("2.0.2"));
    want.push(0x5a);
    assert_eq!(b, want);
}

#[test]
fn shared_tables_and_reset() {
    let u = DumpUser {
        id: 1,
        name: "a".into(),
        tags: vec![],
        score: None,
        active: false,
    };
    // dubbo:// style: one stream, the second instance reuses the definition.
    let mut w = Hessian2Writer::new();
    w.serialize(&u).unwrap();
    let first = w.len();
    w.serialize(&u).unwrap();
    assert!(w.len() - first < first / 2);
    let mut r = Hessian2Reader::new(w.as_bytes());
    assert_eq!(r.deserialize::<DumpUser>().unwrap(), u);
    assert_eq!(r.deserialize::<DumpUser>().unwrap(), u);
    // Triple style: reset between arguments -> each is self-contained.
    let mut w = Hessian2Writer::new();
    w.serialize(&u).unwrap();
    let a = w.len();
    w.reset_tables();
    w.serialize(&u).unwrap();
    let (x, y) = w.as_bytes().split_at(a);
    assert_eq!(x, y);
    assert_eq!(from_slice::<DumpUser>(y).unwrap(), u);
}

#[test]
fn with_buffer_keeps_header() {
    let mut w = Hessian2Writer::with_buffer(vec![0xda, 0xbb]);
    w.write_null();
    assert_eq!(w.as_bytes(), &[0xda, 0xbb, 0x4e]);
    w.buffer_mut()[1] = 0xcc;
    assert_eq!(w.into_bytes(), vec![0xda, 0xcc, 0x4e]);
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "org.example.Everything")]
struct Everything {
    b: bool,
    i8_: i8,
    i16_: i16,
    i32_: i32,
    i64_: i64,
    u32_: u32,
    f32_: f32,
    f64_: f64,
    c: char,
    s: String,
    opt: Option<String>,
    bytes: serde_bytes::ByteBuf,
    date: java::Date,
    list: Vec<i32>,
    map: BTreeMap<String, i64>,
    nested: Option<Box<Everything>>,
    dynamic: Value,
    unit: TimeUnit,
    tuple: (i32, String),
}

#[test]
fn serde_roundtrip_everything() {
    let e = Everything {
        b: true,
        i8_: -5,
        i16_: 300,
        i32_: 1 << 20,
        i64_: -(1 << 40),
        u32_: u32::MAX,
        f32_: 0.1,
        f64_: 3.5,
        c: '€',
        s: "héllo 😀".into(),
        opt: None,
        bytes: serde_bytes::ByteBuf::from(vec![1, 2, 3]),
        date: java::Date(1_700_000_000_123),
        list: vec![1, 2, 3],
        map: BTreeMap::from([("k".into(), 1)]),
        nested: Some(Box::new(Everything {
            b: false,
            i8_: 0,
            i16_: 0,
            i32_: 0,
            i64_: 0,
            u32_: 0,
            f32_: 0.0,
            f64_: 0.0,
            c: 'x',
            s: String::new(),
            opt: Some("o".into()),
            bytes: serde_bytes::ByteBuf::new(),
            date: java::Date(0),
            list: vec![],
            map: BTreeMap::new(),
            nested: None,
            dynamic: Value::Null,
            unit: TimeUnit::SECONDS,
            tuple: (0, String::new()),
        })),
        dynamic: Value::object(
            "a.B",
            [
                ("x", Value::Int(1)),
                ("y", Value::typed_list("[string", vec!["z".into()])),
            ],
        ),
        unit: TimeUnit::SECONDS,
        tuple: (7, "seven".into()),
    };
    for _ in 0..2 {
        let b = to_vec(&e).unwrap();
        let back: Everything = from_slice(&b).unwrap();
        // f32 field is widened like Java's float field: exact roundtrip.
        assert_eq!(back, e);
        let v: Value = from_slice(&b).unwrap();
        assert_eq!(v.get("dynamic"), Some(&e.dynamic));
        assert_eq!(v.get("date"), Some(&Value::Date(1_700_000_000_123)));
        assert_eq!(v.get("bytes"), Some(&Value::Binary(vec![1, 2, 3])));
        assert_eq!(v.type_name(), Some("org.example.Everything"));
        // Value -> bytes -> Value is stable.
        let mut w = Hessian2Writer::new();
        w.write_value(&v).unwrap();
        assert_eq!(Hessian2Reader::new(w.as_bytes()).read_value().unwrap(), v);
        // to_value / from_value agree with the stream.
        let tv = to_value(&e).unwrap();
        assert_eq!(dubbo_hessian2::from_value::<Everything>(tv).unwrap(), e);
    }
}

#[test]
fn unknown_class_and_maps_into_structs() {
    // An unknown class decodes as Value::Object, not an error.
    let v = Value::object("com.unknown.Thing", [("a", Value::Int(1))]);
    let b = enc(|w| w.write_value(&v).unwrap());
    assert_eq!(from_slice::<Value>(&b).unwrap(), v);
    // A map with a "class" key (Java generic calls) decodes into a struct.
    let m = Value::map(vec![
        ("class".into(), "Dump$User".into()),
        ("id".into(), Value::Int(3)),
        ("name".into(), "n".into()),
        ("tags".into(), Value::list(vec![])),
        ("score".into(), Value::Null),
        ("active".into(), Value::Bool(true)),
        ("extra".into(), Value::Int(9)),
    ]);
    let b = enc(|w| w.write_value(&m).unwrap());
    let u: DumpUser = from_slice(&b).unwrap();
    assert_eq!(u.id, 3);
    assert!(u.active);
    // HashMap round trip.
    let hm: HashMap<String, i32> = HashMap::from([("a".into(), 1), ("b".into(), 2)]);
    assert_eq!(
        from_slice::<HashMap<String, i32>>(&to_vec(&hm).unwrap()).unwrap(),
        hm
    );
}

#[test]
fn typed_helpers() {
    let a = java::Array(vec![1i32, 2]);
    let b = to_vec(&a).unwrap();
    assert_eq!(
        Hessian2Reader::new(&b).read_value().unwrap(),
        Value::typed_list("[int", vec![Value::Int(1), Value::Int(2)])
    );
    assert_eq!(from_slice::<java::Array<i32>>(&b).unwrap(), a);
    let l = java::TypedList::hash_set(vec!["a".to_owned()]);
    let b = to_vec(&l).unwrap();
    assert_eq!(from_slice::<java::TypedList<String>>(&b).unwrap(), l);
    let m = java::TypedMap::linked_hash_map(vec![("x".to_owned(), 1i64), ("y".to_owned(), 2)]);
    let b = to_vec(&m).unwrap();
    assert_eq!(from_slice::<java::TypedMap<String, i64>>(&b).unwrap(), m);
    assert_eq!(
        Hessian2Reader::new(&b).read_value().unwrap().type_name(),
        Some("java.util.LinkedHashMap")
    );
    // Collections.emptyList() is written once per stream, then referenced.
    let e: java::TypedList<i32> = java::TypedList::empty_list();
    let b = to_vec(&vec![e.clone(), e]).unwrap();
    assert_eq!(&b[b.len() - 2..], &[0x51, 0x91]);
    // BigInteger in the JDK field form.
    let bi = java::BigInteger::new("-123456789012345678901234567890");
    assert_eq!(
        from_slice::<java::BigInteger>(&to_vec(&bi).unwrap()).unwrap(),
        bi
    );
}

dubbo_hessian2::java_type!(DumpUser => "Dump$User");

#[test]
fn descriptors_and_java_types() {
    use java::JavaType;
    use java::*;
    assert_eq!(descriptor_to_java_name("[I").unwrap(), "int[]");
    assert_eq!(
        descriptor_to_java_name("Ljava/lang/String;").unwrap(),
        "java.lang.String"
    );
    assert_eq!(
        descriptor_to_java_name("[[Ljava/lang/Object;").unwrap(),
        "java.lang.Object[][]"
    );
    assert!(descriptor_to_java_name("Ljava/lang/String").is_err());
    assert!(descriptor_to_java_name("II").is_err());
    assert_eq!(java_name_to_descriptor("int[]"), "[I");
    assert_eq!(
        java_name_to_descriptor("java.lang.String"),
        "Ljava/lang/String;"
    );
    assert_eq!(
        java_name_to_descriptor("[Ljava.lang.String;"),
        "[Ljava/lang/String;"
    );
    assert_eq!(java_name_to_descriptor("void"), "V");
    assert_eq!(
        split_descriptors("I[ZLjava/lang/Object;").unwrap(),
        ["I", "[Z", "Ljava/lang/Object;"]
    );
    assert_eq!(split_descriptors("").unwrap(), Vec::<String>::new());
    assert!(split_descriptors("I[").is_err());
    assert!(split_descriptors("X").is_err());
    assert_eq!(class_get_name("int[]"), "[I");
    assert_eq!(class_get_name("[I"), "[I");
    assert_eq!(class_get_name("java.lang.String[]"), "[Ljava.lang.String;");
    assert_eq!(class_get_name("java.lang.String"), "java.lang.String");
    assert_eq!(i32::java_type_name(), "int");
    assert_eq!(Option::<i32>::java_type_name(), "java.lang.Integer");
    assert_eq!(String::java_type_name(), "java.lang.String");
    assert_eq!(Vec::<String>::java_type_name(), "java.util.List");
    assert_eq!(HashMap::<String, i32>::java_type_name(), "java.util.Map");
    assert_eq!(Value::java_type_name(), "java.lang.Object");
    assert_eq!(serde_bytes::ByteBuf::java_type_name(), "byte[]");
    assert_eq!(java::Date::java_type_name(), "java.util.Date");
    assert_eq!(java::BigDecimal::java_type_name(), "java.math.BigDecimal");
    assert_eq!(<()>::java_type_name(), "void");
    assert_eq!(
        java::Array::<String>::java_type_name(),
        "java.lang.String[]"
    );
    assert_eq!(java::Array::<String>::hessian_type(), "[string");
    assert_eq!(java::Array::<Value>::hessian_type(), "[object");
    assert_eq!(DumpUser::java_type_name(), "Dump$User");
}

#[test]
fn value_helpers() {
    let v = Value::object("a.B", [("x", Value::from(1)), ("s", Value::from("t"))]);
    assert_eq!(v.get("x").and_then(Value::as_i64), Some(1));
    assert_eq!(v.get("s").and_then(Value::as_str), Some("t"));
    assert!(Value::Null.is_null());
    assert_eq!(Value::from(2.5).as_f64(), Some(2.5));
    assert_eq!(Value::from(true).as_bool(), Some(true));
    assert_eq!(
        Value::from(vec![Value::Null])
            .as_list()
            .unwrap()
            .items
            .len(),
        1
    );
    assert_eq!(Value::string("x"), Value::String("x".into()));
}

// ----- hostile input ---------------------------------------------------------------

fn decode_all(b: &[u8]) -> Result<Vec<Value>, Error> {
    let mut r = Hessian2Reader::new(b);
    let mut out = Vec::new();
    while r.remaining() > 0 {
        out.push(r.read_value()?);
    }
    Ok(out)
}

#[test]
fn every_prefix_is_an_error_not_a_panic() {
    let e = Everything {
        b: true,
        i8_: 1,
        i16_: 2,
        i32_: 3,
        i64_: 4,
        u32_: 5,
        f32_: 6.0,
        f64_: 7.5,
        c: 'c',
        s: "a😀b".repeat(20),
        opt: Some("x".into()),
        bytes: serde_bytes::ByteBuf::from(vec![9; 40]),
        date: java::Date(1),
        list: (0..20).collect(),
        map: BTreeMap::from([("k".into(), 1)]),
        nested: None,
        dynamic: java::JavaException::runtime("x").to_value(),
        unit: TimeUnit::SECONDS,
        tuple: (1, "t".into()),
    };
    let b = to_vec(&e).unwrap();
    for n in 0..b.len() {
        let err = decode_all(&b[..n]);
        assert!(err.is_err() || n == 0, "prefix {n} decoded");
        let _ = from_slice::<Everything>(&b[..n]);
    }
}

#[test]
fn huge_declared_lengths_allocate_nothing() {
    // V "[int" len 2^31-1 with no elements.
    let b = hex("56 04 5b 69 6e 74 49 7f ff ff ff");
    assert!(matches!(decode_all(&b), Err(Error::LengthLimit { .. })));
    let b = hex("56 04 5b 69 6e 74 49 00 ff ff ff");
    assert!(matches!(decode_all(&b), Err(Error::Truncated { .. })));
    // X len i32::MAX.
    assert!(decode_all(&hex("58 49 7f ff ff ff")).is_err());
    // Negative length.
    assert!(matches!(
        decode_all(&hex("58 49 ff ff ff ff")),
        Err(Error::LengthLimit { .. })
    ));
    // String declaring 0xffff units with 1 byte.
    assert!(matches!(
        decode_all(&hex("53 ff ff 61")),
        Err(Error::Truncated { .. })
    ));
    // Binary declaring 0xffff bytes.
    assert!(matches!(
        decode_all(&hex("42 ff ff 61")),
        Err(Error::Truncated { .. })
    ));
    // Class def with 2^31-1 fields.
    assert!(decode_all(&hex("43 01 61 49 7f ff ff ff")).is_err());
}

#[test]
fn depth_is_capped() {
    let mut b = vec![0x79; 10_000]; // 10k nested one-element lists
    b.push(0x4e);
    assert!(matches!(
        decode_all(&b),
        Err(Error::DepthExceeded { limit: 128 })
    ));
    let mut b = vec![b'H'; 10_000];
    b.push(0x4e);
    assert!(matches!(decode_all(&b), Err(Error::DepthExceeded { .. })));
    let limits = Limits {
        max_depth: 2,
        ..Limits::default()
    };
    assert!(Hessian2Reader::with_limits(&hex("79 79 79 4e"), limits)
        .read_value()
        .is_err());
    assert!(Hessian2Reader::with_limits(&hex("79 79 4e"), limits)
        .read_value()
        .is_ok());
}

#[test]
fn bad_indexes() {
    assert!(matches!(
        decode_all(&hex("51 90")),
        Err(Error::InvalidRef { .. })
    ));
    assert!(matches!(
        decode_all(&hex("60")),
        Err(Error::InvalidClassRef { .. })
    ));
    assert!(matches!(
        decode_all(&hex("4f 49 80 00 00 00")),
        Err(Error::InvalidClassRef { .. })
    ));
    assert!(matches!(
        decode_all(&hex("71 95 4e")),
        Err(Error::InvalidTypeRef { .. })
    ));
    assert!(matches!(
        decode_all(&hex("5a")),
        Err(Error::UnexpectedTag { .. })
    ));
    assert!(matches!(
        decode_all(&hex("40")),
        Err(Error::UnexpectedTag { .. })
    ));
    assert!(matches!(
        decode_all(&hex("01 ff")),
        Err(Error::InvalidString { .. })
    ));
    assert_eq!(
        Error::Truncated { position: 0 }.code(),
        "hessian2.truncated"
    );
}

#[test]
fn self_reference_and_ref_bombs() {
    // A list that contains itself.
    let v = decode_all(&hex("79 51 90")).unwrap();
    assert_eq!(v, vec![Value::list(vec![Value::Ref(0)])]);
    let b = enc(|w| w.write_value(&v[0]).unwrap());
    assert_eq!(b, hex("79 51 90"));
    // Billion laughs: each list holds 8 refs to the previous one.
    let mut b = hex("78"); // ref 0: []
    for i in 0..12 {
        b.push(0x7f); // list of 8 (ref i+1)
        for _ in 0..8 {
            b.extend(hex("51"));
            b.push(0x90 + i as u8);
        }
    }
    assert!(matches!(decode_all(&b), Err(Error::RefExpansion { .. })));
}

#[test]
fn trailing_bytes_and_type_errors() {
    assert!(matches!(
        from_slice::<i32>(&hex("90 90")),
        Err(Error::TrailingBytes { count: 1 })
    ));
    assert!(from_slice::<i32>(&hex("05 68 65 6c 6c 6f")).is_err());
    assert!(matches!(
        Hessian2Reader::new(&hex("4c 00 00 00 01 00 00 00 00")).read_int(),
        Err(Error::OutOfRange { .. })
    ));
}

#[derive(Debug, Deserialize)]
struct Ex {
    #[serde(rename = "detailMessage")]
    message: Option<String>,
    cause: Option<Box<Ex>>,
}

#[test]
fn typed_cycles_and_shared_refs() {
    // Self-referencing cause decodes as None in a typed target.
    let e = java::JavaException::runtime("outer").with_cause(java::JavaException::runtime("inner"));
    let b = enc(|w| w.write_value(&e.to_value()).unwrap());
    let ex: Ex = from_slice(&b).unwrap();
    assert_eq!(ex.message.as_deref(), Some("outer"));
    let inner = ex.cause.unwrap();
    assert_eq!(inner.message.as_deref(), Some("inner"));
    assert!(inner.cause.is_none());
    // [u, u] with a back-reference: both decode (the second as a copy).
    let u = DumpUser {
        id: 5,
        name: "u".into(),
        tags: vec!["t".into()],
        score: Some(1),
        active: true,
    };
    let b = enc(|w| {
        w.write_list_begin(2, None);
        let r = w.ref_count();
        w.serialize(&u).unwrap();
        w.write_ref(r);
    });
    assert_eq!(
        from_slice::<Vec<DumpUser>>(&b).unwrap(),
        vec![u.clone(), u.clone()]
    );
    assert_eq!(
        from_slice::<Value>(&b).unwrap(),
        Value::list(vec![to_value(&u).unwrap(), to_value(&u).unwrap()])
    );
    // Unknown fields are skipped; missing Option fields are None.
    #[derive(Debug, Deserialize, PartialEq)]
    struct Partial {
        name: String,
        missing: Option<i32>,
    }
    let p: Vec<Partial> = from_slice(&b).unwrap();
    assert_eq!(
        p[1],
        Partial {
            name: "u".into(),
            missing: None
        }
    );
}

#[test]
fn roundtrip_edge_cases_found_while_fuzzing() {
    // A field named like the serializer's internal enum marker is just a field.
    let v = Value::object("x.Y", [("\u{0}enum", Value::from("A"))]);
    let b = enc(|w| w.write_value(&v).unwrap());
    assert_eq!(decode_all(&b).unwrap(), vec![v]);
    // An empty type string means "untyped".
    let v = decode_all(&hex("71 00 4e")).unwrap();
    assert_eq!(v, vec![Value::list(vec![Value::Null])]);
    let b = enc(|w| w.write_value(&v[0]).unwrap());
    assert_eq!(decode_all(&b).unwrap(), v);
}

#[test]
fn short_strings_every_length_and_non_ascii_position() {
    fn header(units: usize) -> Vec<u8> {
        if units <= 31 {
            vec![units as u8]
        } else {
            vec![0x30 + (units >> 8) as u8, units as u8]
        }
    }
    for n in 0..=40usize {
        let ascii: String = (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        let mut expected = header(n);
        expected.extend_from_slice(ascii.as_bytes());
        assert_eq!(to_vec(&ascii).unwrap(), expected, "ascii length {n}");
        for p in 0..n {
            for c in ['é', '\u{7f}', '€'] {
                let s: String = ascii
                    .chars()
                    .enumerate()
                    .map(|(i, a)| if i == p { c } else { a })
                    .collect();
                let mut expected = header(n);
                expected.extend_from_slice(s.as_bytes());
                let bytes = to_vec(&s).unwrap();
                assert_eq!(bytes, expected, "length {n}, {c:?} at {p}");
                assert_eq!(from_slice::<String>(&bytes).unwrap(), s);
            }
        }
    }
}

/// Class definitions are cached by their bytes across streams: the same bytes decode the
/// same way every time, and a definition that differs in any byte is its own entry.
#[test]
fn class_definitions_repeated_across_streams() {
    let obj = |class: &str, fields: Vec<(String, Value)>| Value::object(class, fields);
    let fields = |names: &[&str]| -> Vec<(String, Value)> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), Value::Int(i as i32)))
            .collect()
    };
    let many: Vec<String> = (0..60).map(|i| format!("f{i}")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let cases = [
        obj("a.B", fields(&["x", "y"])),
        obj("a.B", fields(&["x", "z"])),
        obj("a.B", fields(&["y", "x"])),
        obj("a.C", fields(&["x", "y"])),
        obj("a.B", fields(&["naïve", "日本", "😀"])),
        obj("a.B", fields(&many)),
        obj("a.B", fields(&[])),
    ];
    for round in 0..3 {
        for v in &cases {
            let bytes = to_vec(v).unwrap();
            assert_eq!(&from_slice::<Value>(&bytes).unwrap(), v, "round {round}");
        }
    }
    // A truncated definition is an error and poisons nothing for the next stream.
    let good = to_vec(&cases[0]).unwrap();
    for cut in 1..good.len() {
        assert!(from_slice::<Value>(&good[..cut]).is_err(), "prefix {cut}");
        assert_eq!(from_slice::<Value>(&good).unwrap(), cases[0]);
    }
}

/// A [`Typed`](dubbo_hessian2::Typed) value encodes exactly as the value itself, alone or next
/// to other values in one stream, and converts to the same tree.
#[test]
fn typed_values_encode_like_their_contents() {
    use dubbo_hessian2::Typed;
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    #[serde(rename = "a.User")]
    struct User {
        id: i64,
        name: String,
        tags: Vec<String>,
        extra: Value,
    }
    let user = |i: i64| User {
        id: i,
        name: format!("u{i}"),
        tags: vec!["t".into()],
        extra: Value::Long(i),
    };
    let users: Vec<User> = (0..3).map(user).collect();
    let plain = to_vec(&users).unwrap();
    let mut alone = Hessian2Writer::new();
    Typed::new(users.clone()).write_to(&mut alone).unwrap();
    assert_eq!(alone.into_bytes(), plain);
    // Inside a writer's stream next to other values (a dubbo:// body shares one table set).
    let mut w = Hessian2Writer::new();
    w.write_int(1);
    Typed::new(users.clone()).write_to(&mut w).unwrap();
    Typed::new(user(9)).write_to(&mut w).unwrap();
    let mut w2 = Hessian2Writer::new();
    w2.write_int(1);
    w2.serialize(&users).unwrap();
    w2.serialize(&user(9)).unwrap();
    assert_eq!(w.into_bytes(), w2.into_bytes());

    let typed = Typed::new(users.clone());
    assert_eq!(typed.to_value().unwrap(), to_value(&users).unwrap());
    // Equality is structural.
    assert_eq!(typed, Typed::new(users.clone()));
    assert_ne!(typed, Typed::new(users[..2].to_vec()));
    assert!(format!("{typed:?}").contains("Typed("));
    // Errors of the value's own serialization surface when it is encoded.
    assert!(Typed::new(u64::MAX).to_value().is_err());
    assert!(Typed::new(u64::MAX)
        .write_to(&mut Hessian2Writer::new())
        .is_err());
}

/// Skipping checks a reference without re-reading what it points to, so a stream of
/// references to one big value is cheap to skip, while reading it hits the replay limit.
#[test]
fn skipping_does_not_replay_references() {
    let n = 1_000;
    let mut w = Hessian2Writer::new();
    w.write_list_begin(n + 1, None);
    let big = w.write_list_begin(1000, None);
    for _ in 0..1000 {
        w.write_string("0123456789");
    }
    for _ in 0..n {
        w.write_ref(big);
    }
    let bytes = w.into_bytes();
    assert!(matches!(
        Hessian2Reader::new(&bytes).read_value(),
        Err(Error::RefExpansion { .. })
    ));
    let mut r = Hessian2Reader::new(&bytes);
    r.skip_value().unwrap();
    assert_eq!(r.position(), bytes.len());
    // A reference to nothing is still an error when skipped.
    let mut bad = hex("79");
    bad.extend_from_slice(&hex("51 95"));
    assert!(Hessian2Reader::new(&bad).skip_value().is_err());
}

/// What a reader tells of its tables lets a value be cut out of a stream: the second object of
/// a class reads on its own after that class's definition, a value with a back-reference is
/// seen to have one, and a scalar reads alone whatever came before.
#[test]
fn a_value_cut_out_of_a_stream_reads_alone_with_the_class_definitions_before_it() {
    let user = |id: i64| Value::object("a.User", vec![("id", Value::Long(id))]);
    let mut w = Hessian2Writer::new();
    w.write_string("header");
    w.write_value(&user(1)).unwrap();
    w.write_value(&user(2)).unwrap();
    w.write_ref(0);
    w.write_int(5);
    let bytes = w.into_bytes();
    let mut r = Hessian2Reader::new(&bytes);
    r.skip_value().unwrap();
    assert!(r.tables_are_empty());
    r.skip_value().unwrap();
    assert!(!r.tables_are_empty());
    assert_eq!((r.class_count(), r.object_instances()), (1, 1));
    let (refs, start) = (r.back_references(), r.position());
    r.skip_value().unwrap();
    assert_eq!(r.back_references(), refs);
    assert_eq!(r.object_instances(), 2);
    // Alone, its bytes name class 0, which they do not define; with the definition first
    // they read as in the stream.
    assert!(from_slice::<Value>(&bytes[start..r.position()]).is_err());
    let mut alone = r.class_definitions(1);
    assert_eq!(alone[0], b'C');
    alone.extend_from_slice(&bytes[start..r.position()]);
    assert_eq!(from_slice::<Value>(&alone).unwrap(), user(2));
    r.skip_value().unwrap();
    assert_eq!(r.back_references(), refs + 1);
    let (instances, start) = (r.object_instances(), r.position());
    assert_eq!(r.read_int().unwrap(), 5);
    assert_eq!(r.object_instances(), instances);
    assert_eq!(from_slice::<i32>(&bytes[start..]).unwrap(), 5);
}

#[test]
fn borrowed_strings_point_into_the_input_or_are_copied() {
    use dubbo_hessian2::CowStr;
    // One chunk of valid UTF-8 (ASCII, 2- and 3-byte chars) borrows; CESU-8 surrogate
    // pairs, chunked strings and lenient 4-byte UTF-8 in the middle of CESU-8 are copied.
    let long = "y".repeat(0x8001);
    let medium = "z".repeat(300);
    let texts = [
        "",
        "hello",
        "héllo wörld",
        "服务治理",
        &medium,
        "😀 smile",
        &long,
    ];
    let bytes = to_vec(&texts.to_vec()).unwrap();
    let back: Vec<CowStr> = from_slice(&bytes).unwrap();
    assert_eq!(back.len(), texts.len());
    for (b, t) in back.iter().zip(texts) {
        assert_eq!(*b, *t);
    }
    let borrowed: Vec<bool> = back.iter().map(CowStr::is_borrowed).collect();
    assert_eq!(borrowed, [true, true, true, true, true, false, false]);
    // `&str` borrows too, and fails cleanly where it cannot.
    let short = to_vec(&vec!["a", "服务"]).unwrap();
    let one: Vec<&str> = from_slice(&short).unwrap();
    assert_eq!(one, ["a", "服务"]);
    assert!(from_slice::<Vec<&str>>(&bytes).is_err());
    // Map keys and struct fields borrow as well.
    #[derive(Deserialize)]
    struct Named<'a> {
        #[serde(borrow)]
        name: CowStr<'a>,
        #[serde(borrow)]
        attrs: HashMap<CowStr<'a>, CowStr<'a>>,
    }
    #[derive(Serialize)]
    struct NamedOut {
        name: String,
        attrs: HashMap<String, String>,
    }
    let bytes = to_vec(&NamedOut {
        name: "n".into(),
        attrs: HashMap::from([("k".into(), "v".into())]),
    })
    .unwrap();
    let n: Named = from_slice(&bytes).unwrap();
    assert!(n.name.is_borrowed() && n.attrs["k"].is_borrowed());
    assert_eq!(n.attrs["k"], "v");
    // A result still in its encoding (`Encoded`) decodes borrowing from it.
    let encoded = dubbo_hessian2::Encoded::new(bytes::Bytes::from(bytes));
    let n: Named = encoded.decode().unwrap();
    assert!(n.name.is_borrowed());
    assert_eq!(&*n.name, "n");
}

#[test]
fn cow_str_takes_what_string_takes() {
    use dubbo_hessian2::CowStr;
    // Found by the decode_value fuzz target: a map whose value is a one-byte binary. `String`
    // accepts UTF-8 bytes as text, so `CowStr` must too; non-UTF-8 bytes fail for both.
    let input = hex("57 48 01 00 21 52 5a 5a");
    let owned = from_slice::<Vec<BTreeMap<String, String>>>(&input).unwrap();
    let borrowed = from_slice::<Vec<BTreeMap<CowStr, CowStr>>>(&input).unwrap();
    assert_eq!(owned[0]["\0"], "R");
    assert_eq!(borrowed[0]["\0"], "R");
    assert!(borrowed[0]["\0"].is_borrowed());
    let bad = hex("57 48 01 00 21 ff 5a 5a");
    assert!(from_slice::<Vec<BTreeMap<String, String>>>(&bad).is_err());
    assert!(from_slice::<Vec<BTreeMap<CowStr, CowStr>>>(&bad).is_err());
    // Chunked bytes (owned on the way in) too.
    let text = "b".repeat(40_000);
    let bytes = to_vec(&serde_bytes::ByteBuf::from(text.clone().into_bytes())).unwrap();
    assert_eq!(from_slice::<CowStr>(&bytes).unwrap(), text.as_str());
}

#[test]
fn borrowed_binaries_point_into_the_input() {
    let small = serde_bytes::ByteBuf::from(vec![1u8, 2, 3]);
    let bytes = to_vec(&small).unwrap();
    let b: &serde_bytes::Bytes = from_slice(&bytes).unwrap();
    assert_eq!(&b[..], &[1, 2, 3]);
    let start = bytes.as_ptr() as usize;
    let at = b.as_ptr() as usize;
    assert!(at > start && at < start + bytes.len());
    // A binary in several chunks cannot be one slice of the input.
    let big = serde_bytes::ByteBuf::from(vec![7u8; 40_000]);
    let bytes = to_vec(&big).unwrap();
    assert!(from_slice::<&serde_bytes::Bytes>(&bytes).is_err());
    assert_eq!(from_slice::<serde_bytes::ByteBuf>(&bytes).unwrap(), big);
}

#[test]
fn string_limit_holds_on_every_path() {
    let bytes = to_vec(&vec!["hello"]).unwrap();
    let limits = Limits {
        max_string_len: 3,
        ..Limits::default()
    };
    let err = |r: Result<(), Error>| {
        assert!(
            matches!(r, Err(Error::LengthLimit { what: "string", .. })),
            "{r:?}"
        )
    };
    err(Hessian2Reader::with_limits(&bytes, limits)
        .deserialize::<Vec<String>>()
        .map(drop));
    err(Hessian2Reader::with_limits(&bytes, limits)
        .deserialize::<Vec<dubbo_hessian2::CowStr>>()
        .map(drop));
    err(Hessian2Reader::with_limits(&bytes, limits)
        .read_value()
        .map(drop));
    assert!(
        Hessian2Reader::with_limits(&to_vec(&vec!["abc"]).unwrap(), limits)
            .deserialize::<Vec<String>>()
            .is_ok()
    );
}

#[test]
fn class_definitions_met_again_decode_to_their_own_fields() {
    // Streams alternating between classes (one definition each, which the reader
    // recognises from its bytes) keep each class's fields apart.
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "a.A")]
    struct A {
        x: i32,
        y: String,
    }
    // The same class name with other fields (another version of the class), written
    // as a `Value` since the writer caches one layout per Rust class name.
    #[derive(Deserialize, Debug, PartialEq)]
    #[serde(rename = "a.A")]
    struct A2 {
        y: String,
    }
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename = "b.B")]
    struct B {
        x: String,
    }
    let a = A {
        x: 1,
        y: "a".into(),
    };
    let a2 = A2 { y: "a2".into() };
    let b = B { x: "b".into() };
    let (ab, a2b, bb) = (
        to_vec(&a).unwrap(),
        to_vec(&Value::object("a.A", [("y", Value::string("a2"))])).unwrap(),
        to_vec(&b).unwrap(),
    );
    for _ in 0..3 {
        assert_eq!(from_slice::<A>(&ab).unwrap(), a);
        assert_eq!(from_slice::<B>(&bb).unwrap(), b);
        assert_eq!(from_slice::<A2>(&a2b).unwrap(), a2);
        let v = Hessian2Reader::new(&a2b).read_value().unwrap();
        assert_eq!(v.as_object().unwrap().fields.len(), 1);
        let v = Hessian2Reader::new(&ab).read_value().unwrap();
        assert_eq!(v.as_object().unwrap().fields.len(), 2);
    }
}
