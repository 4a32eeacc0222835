//! Golden vectors against the real fastjson2 2.0.52 jar (the release Java Dubbo 3.2.16 pins),
//! written and checked by interop/java/fastjson2-golden with Dubbo's writer and reader
//! features.
//!
//! - `tests/golden/java-CASE.bin` are Java's bytes (regenerated and compared by
//!   scripts/test.sh): every one decodes here to the contract value, and encoding that value
//!   again gives Java's bytes exactly.
//! - With `FASTJSON2_GOLDEN_OUT=DIR`, the contract values built here are written to
//!   `DIR/rust-CASE.bin`, which Java's `Golden check DIR` decodes and compares.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use dubbo_fastjson2::{from_jsonb, to_jsonb, write_object, FrameReader, Value};

const USER: &str = "org.apache.dubbo.interop.User";

/// The contract's `User.of(i)` as Java writes it: fields in name order (fastjson2 sorts a
/// field-based bean's fields), and `NotWriteDefaultValue` leaves out an `id` of 0.
fn user_java(i: i64) -> Value {
    let mut fields = vec![
        ("age", Value::Int(20 + (i % 50) as i32)),
        (
            "attrs",
            Value::map(vec![(Value::string("k"), Value::string(format!("v{i}")))]),
        ),
        ("id", Value::Long(i)),
        ("name", Value::string(format!("user-{i}"))),
        ("tags", Value::list(vec![Value::string(format!("t{i}"))])),
    ];
    if i == 0 {
        fields.retain(|(k, _)| *k != "id");
    }
    Value::object(USER, fields)
}

/// The contract's `User.of(i)` as a Rust caller builds it: every field, in declaration order.
fn user_rust(i: i64) -> Value {
    Value::object(
        USER,
        vec![
            ("id", Value::Long(i)),
            ("name", Value::string(format!("user-{i}"))),
            ("age", Value::Int(20 + (i % 50) as i32)),
            ("tags", Value::list(vec![Value::string(format!("t{i}"))])),
            (
                "attrs",
                Value::map(vec![(Value::string("k"), Value::string(format!("v{i}")))]),
            ),
        ],
    )
}

fn decimal(text: &str) -> Value {
    Value::object("java.math.BigDecimal", vec![("value", Value::string(text))])
}

/// Every case of Golden.java: its name, the value Java's bytes decode to, and the value a
/// Rust caller writes for Java to check.
fn cases() -> Vec<(&'static str, Value, Value)> {
    let same = |name, v: Value| (name, v.clone(), v);
    vec![
        same("null", Value::Null),
        same("true", Value::Bool(true)),
        same("false", Value::Bool(false)),
        same("int_0", Value::Int(0)),
        same("int_47", Value::Int(47)),
        same("int_-16", Value::Int(-16)),
        same("int_48", Value::Int(48)),
        same("int_-2048", Value::Int(-2048)),
        same("int_2047", Value::Int(2047)),
        same("int_262143", Value::Int(262_143)),
        same("int_-262144", Value::Int(-262_144)),
        same("int_max", Value::Int(i32::MAX)),
        same("int_min", Value::Int(i32::MIN)),
        same("long_0", Value::Long(0)),
        same("long_15", Value::Long(15)),
        same("long_-8", Value::Long(-8)),
        same("long_2047", Value::Long(2047)),
        same("long_-262144", Value::Long(-262_144)),
        same("long_2e9", Value::Long(2_000_000_000)),
        same("long_1e12", Value::Long(1_000_000_000_000)),
        same("long_max", Value::Long(i64::MAX)),
        same("long_min", Value::Long(i64::MIN)),
        same("double_0", Value::Double(0.0)),
        same("double_1", Value::Double(1.0)),
        same("double_3.5", Value::Double(3.5)),
        same("double_-2.25", Value::Double(-2.25)),
        same("double_1e300", Value::Double(1e300)),
        same("double_100", Value::Double(100.0)),
        same("string_empty", Value::string("")),
        same("string_hello", Value::string("hello")),
        same("string_latin1", Value::string("caf\u{e9}")),
        same(
            "string_unicode",
            Value::string("h\u{e9}llo \u{4e16}\u{754c} \u{1f600}"),
        ),
        same("string_long", Value::string("x".repeat(300))),
        same("bytes", Value::Binary(vec![1, 2, 3, 0xff, 0])),
        same("bytes_empty", Value::Binary(vec![])),
        same(
            "list",
            Value::list(vec![Value::string("a"), Value::string("b"), Value::Null]),
        ),
        same("list_empty", Value::list(vec![])),
        same(
            "map",
            Value::map(vec![
                (Value::string("one"), Value::Int(1)),
                (Value::string("two"), Value::Int(2)),
            ]),
        ),
        ("user", user_java(7), user_rust(7)),
        (
            "user_nulls",
            // Java leaves out the defaults (0) and, for a String, null; it writes the null
            // collections.
            Value::object(USER, vec![("attrs", Value::Null), ("tags", Value::Null)]),
            Value::object(
                USER,
                vec![
                    ("id", Value::Long(0)),
                    ("name", Value::Null),
                    ("age", Value::Int(0)),
                    ("tags", Value::Null),
                    ("attrs", Value::Null),
                ],
            ),
        ),
        (
            "users",
            Value::list((0..3).map(user_java).collect()),
            Value::list((0..3).map(user_rust).collect()),
        ),
        (
            "users_shared",
            // The second element is a reference (`$[0]`) to the first; it decodes as a copy.
            Value::list(vec![user_java(5), user_java(5)]),
            Value::list(vec![user_rust(5), user_rust(5)]),
        ),
        (
            "field_shared",
            // The second element refers to a field of the first (`$[0].tags`).
            Value::list(vec![user_java(3), Value::list(vec![Value::string("t3")])]),
            Value::list(vec![user_rust(3), Value::list(vec![Value::string("t3")])]),
        ),
        same("date", Value::Date(1_700_000_000_123)),
        same("decimal", decimal("123.45")),
    ]
}

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn java_frame(name: &str) -> Vec<u8> {
    let path = golden_dir().join(format!("java-{name}.bin"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn java_bytes_decode_to_the_contract_values() {
    for (name, want, _) in cases() {
        let framed = java_frame(name);
        let mut r = FrameReader::new(&framed);
        let got = r.read_object().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(r.is_empty(), "{name}: bytes after the frame");
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn re_encoding_java_values_gives_java_bytes() {
    for (name, want, _) in cases() {
        // A reference decodes as a copy, which is written out in full again.
        if name == "users_shared" || name == "field_shared" {
            continue;
        }
        let framed = java_frame(name);
        let mut ours = Vec::new();
        write_object(&mut ours, &want).unwrap();
        assert_eq!(hex(&ours), hex(&framed), "{name}");
    }
}

#[test]
fn golden_files_cover_every_case() {
    let mut names: Vec<String> = std::fs::read_dir(golden_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want: Vec<String> = cases()
        .iter()
        .map(|(n, _, _)| format!("java-{n}.bin"))
        .collect();
    want.sort();
    assert_eq!(names, want);
}

#[test]
fn rust_values_round_trip_and_are_written_for_java() {
    let out = std::env::var_os("FASTJSON2_GOLDEN_OUT").map(PathBuf::from);
    if let Some(dir) = &out {
        std::fs::create_dir_all(dir).unwrap();
    }
    for (name, _, value) in cases() {
        let bytes = to_jsonb(&value).unwrap();
        assert_eq!(from_jsonb(&bytes).unwrap(), value, "{name}");
        if let Some(dir) = &out {
            let mut framed = Vec::new();
            write_object(&mut framed, &value).unwrap();
            std::fs::write(dir.join(format!("rust-{name}.bin")), framed).unwrap();
        }
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

/// The contract's User as a Rust type: the typed path goes through the tree with the Hessian
/// codec's serde mapping. Java leaves out primitive fields holding their default
/// (`NotWriteDefaultValue`), so those need `#[serde(default)]` here: `User.of(0)` arrives
/// without its `id`.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.User")]
struct User {
    #[serde(default)]
    id: i64,
    name: Option<String>,
    #[serde(default)]
    age: i32,
    tags: Option<Vec<String>>,
    attrs: Option<std::collections::HashMap<String, String>>,
}

#[test]
fn java_users_decode_into_rust_structs_and_back() {
    let framed = java_frame("users");
    let tree = FrameReader::new(&framed).read_object().unwrap();
    let users: Vec<User> = dubbo_hessian2::from_value(tree).unwrap();
    let want: Vec<User> = (0..3)
        .map(|i| User {
            id: i,
            name: Some(format!("user-{i}")),
            age: 20 + i as i32,
            tags: Some(vec![format!("t{i}")]),
            attrs: Some([("k".to_owned(), format!("v{i}"))].into()),
        })
        .collect();
    assert_eq!(users, want);
    // Back to JSONB from the struct: the same tree as the contract value a Rust caller writes.
    let tree = dubbo_hessian2::to_value(&want).unwrap();
    let again = from_jsonb(&to_jsonb(&tree).unwrap()).unwrap();
    let back: Vec<User> = dubbo_hessian2::from_value(again).unwrap();
    assert_eq!(back, want);
}

/// fastjson2 2.0.52 writes a string of mostly CJK characters as UTF-16LE (`JSONB.toBytes`
/// gave these bytes); dubbo-rs reads it, and writes UTF-8, which Java reads too.
#[test]
fn java_utf16le_strings_decode() {
    let java = [
        0x7c, 0x0c, 0x16, 0x4e, 0x4c, 0x75, 0x16, 0x4e, 0x4c, 0x75, 0x16, 0x4e, 0x4c, 0x75,
    ];
    assert_eq!(
        from_jsonb(&java).unwrap(),
        Value::string("\u{4e16}\u{754c}".repeat(3))
    );
}
