//! decode → encode → decode must give the same values.
#![no_main]

use dubbo_hessian2::{Hessian2Reader, Hessian2Writer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Hessian2Reader::new(data);
    let mut values = Vec::new();
    while r.remaining() > 0 {
        match r.read_value() {
            Ok(v) => values.push(v),
            Err(_) => break,
        }
    }
    let mut w = Hessian2Writer::new();
    for v in &values {
        if w.write_value(v).is_err() {
            return;
        }
    }
    let bytes = w.into_bytes();
    let mut r2 = Hessian2Reader::new(&bytes);
    for v in &values {
        let again = r2.read_value().expect("re-decoding our own encoding");
        assert!(same(v, &again), "roundtrip mismatch:\n{v:?}\n{again:?}");
    }
    assert_eq!(r2.remaining(), 0);
});

/// Equality where NaN equals NaN.
fn same(a: &dubbo_hessian2::Value, b: &dubbo_hessian2::Value) -> bool {
    use dubbo_hessian2::Value::*;
    match (a, b) {
        (Double(x), Double(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()) || x == y,
        (List(x), List(y)) => x.type_name == y.type_name && x.items.len() == y.items.len() && x.items.iter().zip(&y.items).all(|(p, q)| same(p, q)),
        (Map(x), Map(y)) => x.type_name == y.type_name && x.entries.len() == y.entries.len() && x.entries.iter().zip(&y.entries).all(|((k, v), (k2, v2))| same(k, k2) && same(v, v2)),
        (Object(x), Object(y)) => x.class == y.class && x.fields.len() == y.fields.len() && x.fields.iter().zip(&y.fields).all(|((k, v), (k2, v2))| k == k2 && same(v, v2)),
        _ => a == b,
    }
}
