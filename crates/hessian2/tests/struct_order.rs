//! Structs whose fields are written out of declaration order (hessian-lite's class
//! definition order): the serializer writes the first instance of a class in a thread by
//! buffering every field as a `Value` ("learn" mode, the reference), later instances by
//! moving byte segments into place, falling back to values for what depends on the
//! order (new class definitions or types, first enum constants, back-references,
//! binaries). Both must give the same bytes, in every combination.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use dubbo_hessian2::java::{self, ByteBuf, TypedList};
use dubbo_hessian2::{from_slice, Hessian2Writer, Value};
use serde::{Deserialize, Serialize};

#[allow(clippy::upper_case_acronyms)]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename = "java.util.concurrent.TimeUnit")]
enum TimeUnit {
    SECONDS,
    MINUTES,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "test.Inner")]
struct Inner {
    x: i32,
    label: String,
    unit: TimeUnit,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "test.Outer")]
struct Outer {
    id: i64,
    unit: TimeUnit,
    inner: Inner,
    tags: Vec<String>,
    name: String,
    set: TypedList<String>,
    other: Option<Inner>,
    data: ByteBuf,
    score: f32,
    when: java::Date,
    attrs: HashMap<String, i32>,
    unit2: TimeUnit,
    maybe: Option<String>,
    // Skipped fields are written as null; a list is a non-primitive field either way.
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<Vec<String>>,
    last: bool,
}

fn inner(i: i32) -> Inner {
    Inner {
        x: i,
        label: format!("in-{i}"),
        unit: if i % 2 == 0 {
            TimeUnit::SECONDS
        } else {
            TimeUnit::MINUTES
        },
    }
}

fn outer(i: i64, bin: usize) -> Outer {
    Outer {
        id: i,
        unit: TimeUnit::MINUTES,
        inner: inner(i as i32),
        tags: vec![format!("t{i}"), "x".repeat(i as usize % 40)],
        name: "n".repeat(100 + i as usize),
        set: TypedList::hash_set(vec![format!("s{i}")]),
        other: (i % 3 == 0).then(|| inner(7)),
        data: ByteBuf::from((0..bin).map(|b| b as u8).collect::<Vec<u8>>()),
        score: 1.1 + i as f32,
        when: java::Date(1_700_000_000_000 + i),
        attrs: HashMap::from([("a".to_owned(), i as i32)]),
        unit2: TimeUnit::SECONDS,
        maybe: (i % 2 == 0).then(|| "m".to_owned()),
        extra: (i % 2 == 0).then(|| vec!["e".into()]),
        last: i % 2 == 1,
    }
}

/// Serializes `f`'s values in a fresh thread (empty layout cache), after `warm` values
/// were serialized in that thread (into a throw-away stream).
fn in_thread<W, V>(warm: W, values: V) -> Vec<u8>
where
    W: Serialize + Send + 'static,
    V: Serialize + Send + 'static,
{
    std::thread::spawn(move || {
        let mut w = Hessian2Writer::new();
        w.serialize(&warm).unwrap();
        let mut w = Hessian2Writer::new();
        w.serialize(&values).unwrap();
        w.write_int(1);
        w.serialize(&values).unwrap();
        w.into_bytes()
    })
    .join()
    .unwrap()
}

fn check_same<V>(values: V)
where
    V: Serialize + Clone + Send + 'static + std::fmt::Debug,
{
    let cold = in_thread((), values.clone());
    let warm_inner = in_thread(vec![inner(1)], values.clone());
    let warm_all = in_thread((vec![inner(1)], outer(1, 3)), values.clone());
    assert_eq!(cold, warm_inner, "learn vs known (inner warm): {values:?}");
    assert_eq!(cold, warm_all, "learn vs known (all warm): {values:?}");
}

#[test]
fn out_of_order_fields_match_the_value_path() {
    check_same(outer(0, 0));
    check_same(outer(1, 20));
    check_same(vec![outer(0, 5), outer(1, 5), outer(2, 0), outer(3, 9000)]);
    check_same((outer(4, 0), vec![inner(1), inner(2)], outer(5, 30000)));
    // A big string before a big binary: the binary's chunking follows hessian-lite's
    // buffer position.
    check_same(vec![outer(2, 20000), outer(3, 20000)]);
}

#[test]
fn out_of_order_fields_roundtrip() {
    let v = vec![outer(0, 5), outer(1, 5), outer(2, 0), outer(3, 9000)];
    let bytes = dubbo_hessian2::to_vec(&v).unwrap();
    let back: Vec<Outer> = from_slice(&bytes).unwrap();
    assert_eq!(back, v);
    // Read dynamically, every enum after the first of its constant is a back-reference
    // that resolves to the constant.
    let val = dubbo_hessian2::Hessian2Reader::new(&bytes)
        .read_value()
        .unwrap();
    let o = val.as_list().unwrap().items[1].as_object().unwrap();
    assert_eq!(
        o.fields.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        [
            "extra", "unit2", "attrs", "when", "data", "other", "set", "tags", "inner", "unit",
            "last", "maybe", "score", "name", "id"
        ]
    );
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename = "test.WithValue")]
struct WithValue {
    id: i32,
    v: Value,
    name: String,
}

#[test]
fn value_fields_with_cycles() {
    // Ref(1) inside `v`'s list points at the struct itself (allocated before the field);
    // Ref(0) at the list, which is inside the moved segment.
    for k in [0, 1] {
        let x = WithValue {
            id: 3,
            v: Value::list(vec![Value::from("a"), Value::Ref(k)]),
            name: "n".into(),
        };
        check_same(vec![x.clone(), x]);
    }
}
