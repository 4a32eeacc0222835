//! The benchmark cases (`benches/common/mod.rs`) are Java's `Bench` cases: same
//! values, same encoded sizes as hessian-lite's (`JAVA_BYTES`, from Java's `bytes`
//! column; `scripts/bench-hessian.sh` also decodes Java's own encodings of them).

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../benches/common/mod.rs"]
mod common;

#[test]
fn bench_cases_encode_to_java_sizes() {
    let mut buf = Vec::new();
    for c in common::cases() {
        let n = (c.encode)(&mut buf);
        assert_eq!(
            Some(n),
            common::java_bytes(c.name),
            "{}: Rust size differs from Java's",
            c.name
        );
        c.check_all(&buf).unwrap();
    }
}

#[test]
fn bench_pojo_wire_order_is_java_order() {
    let v = dubbo_hessian2::to_value(&common::BenchPojo::of(1)).unwrap();
    let names: Vec<&str> = v
        .as_object()
        .unwrap()
        .fields
        .iter()
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "attrs",
            "tags",
            "created",
            "description",
            "active",
            "score",
            "age",
            "email",
            "name",
            "id"
        ]
    );
}
