//! The cost of recording one call of an existing key: lookup plus counters, window and
//! histogram.

use std::sync::Arc;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion};
use dubbo_core::Side;
use dubbo_metrics::{KeyRef, MetricsStore};

fn record(c: &mut Criterion) {
    let store = Arc::new(MetricsStore::default());
    // A few other keys, so the lookup is not trivially the only entry.
    for i in 0..50 {
        let m = format!("method{i}");
        let k = KeyRef {
            side: Side::Provider,
            application: "interop-provider",
            interface: "org.apache.dubbo.interop.InteropService",
            method: &m,
            group: "",
            version: "1.0.0",
        };
        let _ = store.get(&k);
    }
    let key = KeyRef {
        side: Side::Provider,
        application: "interop-provider",
        interface: "org.apache.dubbo.interop.InteropService",
        method: "sayHello",
        group: "",
        version: "1.0.0",
    };
    let now = Instant::now();
    c.bench_function("lookup+begin+end (existing key)", |b| {
        b.iter(|| {
            if let Some(m) = store.get(std::hint::black_box(&key)) {
                m.begin();
                m.end(now, std::hint::black_box(1_234), None);
            }
        })
    });
    c.bench_function("lookup+begin+end incl. 2x Instant::now", |b| {
        b.iter(|| {
            let start = Instant::now();
            if let Some(m) = store.get(std::hint::black_box(&key)) {
                m.begin();
                let end = Instant::now();
                m.end(end, end.duration_since(start).as_micros() as u64, None);
            }
        })
    });
}

criterion_group!(benches, record);
criterion_main!(benches);
