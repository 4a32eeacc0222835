//! Decodes arbitrary bytes as a Hessian 2 stream: must never panic, hang or
//! allocate beyond what the input justifies.
#![no_main]

use dubbo_hessian2::{Hessian2Reader, Value};
use libfuzzer_sys::fuzz_target;

/// A struct whose fields mostly do not exist in the input: decoding it skips the rest.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Sparse {
    id: Option<i64>,
    name: Option<String>,
}

fuzz_target!(|data: &[u8]| {
    // Reading value after value, and skipping them alongside: a skip accepts whatever a read
    // accepts and ends where it ends.
    let mut r = Hessian2Reader::new(data);
    let mut s = Hessian2Reader::new(data);
    while r.remaining() > 0 {
        if r.read_value().is_err() {
            break;
        }
        if let Err(e) = s.skip_value() {
            panic!("read accepted a value that skip rejects: {e}");
        }
        assert_eq!(r.position(), s.position());
    }
    // The typed path too.
    let _ = dubbo_hessian2::from_slice::<Vec<Value>>(data);
    let _ = dubbo_hessian2::from_slice::<std::collections::HashMap<String, Option<i64>>>(data);
    let _ = dubbo_hessian2::from_slice::<Sparse>(data);
    let _ = dubbo_hessian2::from_slice::<Vec<Sparse>>(data);
});
