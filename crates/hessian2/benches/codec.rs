//! Codec throughput (criterion). Bench names are stable (`hessian2/<op>/<case>`); the
//! cases are Java's `Bench` cases value for value (see `benches/common/mod.rs`):
//! `pojo_1k`, `pojos_100`, `users_100`, `string_64k`, `binary_64k`.
//!
//! - `encode/*`: serde into a fresh writer (fresh tables) over a reused buffer, as
//!   Java's `Bench` reuses one `ByteArrayOutputStream`;
//! - `decode/*`: into the typed Rust value;
//! - `decode_borrowed/*`: into its borrowing variant (`BenchPojoRef`, `UserRef`: strings
//!   as `CowStr`s pointing into the input), for the cases with text;
//! - `decode_value/*` / `encode_value/*`: through the dynamic [`Value`].
//!
//! Run: `cargo bench -p dubbo-hessian2 --bench codec`. The side-by-side comparison
//! with Java (same method, ns/op and CPU ns/op) is `scripts/bench-hessian.sh`, which
//! runs `benches/compare.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::hint::black_box;
use std::time::Duration;

use common::{encode, encode_into, BenchPojo};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dubbo_hessian2::{Hessian2Reader, Hessian2Writer, Value};
use serde::Serialize;

fn bench_case<T>(c: &mut Criterion, name: &str, value: &T)
where
    T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let bytes = encode(value);
    assert_eq!(&dubbo_hessian2::from_slice::<T>(&bytes).unwrap(), value);
    if let Some(java) = common::java_bytes(name) {
        assert_eq!(bytes.len(), java, "{name}: Rust and Java sizes differ");
    }
    let mut g = c.benchmark_group("hessian2");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    let mut buf = Vec::with_capacity(1 << 17);
    g.bench_function(BenchmarkId::new("encode", name), |b| {
        b.iter(|| encode_into(black_box(value), &mut buf))
    });
    g.bench_function(BenchmarkId::new("decode", name), |b| {
        b.iter(|| {
            Hessian2Reader::new(black_box(&bytes))
                .deserialize::<T>()
                .unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("decode_value", name), |b| {
        b.iter(|| Hessian2Reader::new(black_box(&bytes)).read_value().unwrap())
    });
    let v: Value = Hessian2Reader::new(&bytes).read_value().unwrap();
    g.bench_function(BenchmarkId::new("encode_value", name), |b| {
        b.iter(|| {
            buf.clear();
            let mut w = Hessian2Writer::with_buffer(std::mem::take(&mut buf));
            w.write_value(black_box(&v)).unwrap();
            buf = w.into_bytes();
            buf.len()
        })
    });
    g.finish();
}

fn bench_borrowed(c: &mut Criterion) {
    let mut g = c.benchmark_group("hessian2");
    for case in common::cases() {
        let Some((decode, check)) = &case.borrowed else {
            continue;
        };
        let mut bytes = Vec::new();
        (case.encode)(&mut bytes);
        check(&bytes).unwrap();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(BenchmarkId::new("decode_borrowed", case.name), |b| {
            b.iter(|| decode(black_box(&bytes)))
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_borrowed(c);
    bench_case(c, "pojo_1k", &BenchPojo::of(1));
    bench_case(c, "pojos_100", &common::pojos_100());
    bench_case(c, "users_100", &common::users_100());
    bench_case(c, "string_64k", &common::string_64k());
    bench_case(c, "binary_64k", &common::binary_64k());
}

criterion_group! {
    name = codec;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(codec);
