//! Decodes arbitrary bytes as a Hessian 2 stream: must never panic, hang or
//! allocate beyond what the input justifies.
#![no_main]

use dubbo_hessian2::{Hessian2Reader, Value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut r = Hessian2Reader::new(data);
    while r.remaining() > 0 {
        if r.read_value().is_err() {
            break;
        }
    }
    // The typed path too.
    let _ = dubbo_hessian2::from_slice::<Vec<Value>>(data);
    let _ = dubbo_hessian2::from_slice::<std::collections::HashMap<String, Option<i64>>>(data);
});
