//! Codec throughput. Bench names are stable (`<op>/<case>`) so the same cases can be
//! timed against Java's hessian-lite:
//!
//! - `pojo_1k`: one `org.apache.dubbo.interop.BenchPojo` (Java declaration order:
//!   `long id; String name; String email; int age; double score; boolean active;
//!   String description; java.util.Date created; List<String> tags; Map<String,String> attrs`)
//!   built by [`pojo`], about 1 KB encoded;
//! - `pojos_100`: an `ArrayList` of 100 such POJOs (`pojo(0..100)`), one stream;
//! - `string_64k`: a 65536-char ASCII string (`"abcdefghij"` repeated);
//! - `binary_64k`: a 65536-byte `byte[]` (`i % 251`).
//!
//! `encode/*` serializes with serde into a fresh writer, `decode/*` deserializes into
//! the typed Rust value, `decode_value/*` into [`Value`].
//!
//! Run: `cargo bench -p dubbo-hessian2 --bench codec`.

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dubbo_hessian2::{java, Hessian2Reader, Hessian2Writer, Value};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename = "org.apache.dubbo.interop.BenchPojo")]
struct BenchPojo {
    id: i64,
    name: String,
    email: String,
    age: i32,
    score: f64,
    active: bool,
    description: String,
    created: java::Date,
    tags: Vec<String>,
    attrs: HashMap<String, String>,
}

fn pojo(i: i64) -> BenchPojo {
    BenchPojo {
        id: i,
        name: format!("user-{i}"),
        email: format!("user-{i}@example.org"),
        age: 20 + (i % 50) as i32,
        score: 12.25 + i as f64,
        active: i % 2 == 0,
        description: "abcdefghij".repeat(60),
        created: java::Date(1_700_000_000_000 + i * 1000),
        tags: (0..10).map(|t| format!("tag-{i}-{t}")).collect(),
        attrs: (0..10)
            .map(|k| (format!("key-{k}"), format!("value-{i}-{k}")))
            .collect(),
    }
}

fn encode<T: Serialize + ?Sized>(v: &T) -> Vec<u8> {
    let mut w = Hessian2Writer::new();
    w.serialize(v).unwrap();
    w.into_bytes()
}

fn bench_case<T>(c: &mut Criterion, name: &str, value: &T)
where
    T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let bytes = encode(value);
    assert_eq!(&dubbo_hessian2::from_slice::<T>(&bytes).unwrap(), value);
    let mut g = c.benchmark_group("hessian2");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function(BenchmarkId::new("encode", name), |b| {
        b.iter(|| encode(black_box(value)))
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
            let mut w = Hessian2Writer::new();
            w.write_value(black_box(&v)).unwrap();
            w.into_bytes()
        })
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let one = pojo(1);
    eprintln!("pojo_1k encodes to {} bytes", encode(&one).len());
    bench_case(c, "pojo_1k", &one);
    let many: Vec<BenchPojo> = (0..100).map(pojo).collect();
    bench_case(c, "pojos_100", &many);
    let s: String = "abcdefghij".chars().cycle().take(65536).collect();
    bench_case(c, "string_64k", &s);
    let b = serde_bytes::ByteBuf::from((0..65536).map(|i| (i % 251) as u8).collect::<Vec<u8>>());
    bench_case(c, "binary_64k", &b);
}

criterion_group! {
    name = codec;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(codec);
