//! Decodes arbitrary bytes as a Hessian 2 stream: must never panic, hang or
//! allocate beyond what the input justifies.
#![no_main]

use std::collections::BTreeMap;

use dubbo_hessian2::{CowStr, Hessian2Reader, Value};
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
    // Borrowing decodes what copying decodes: the same text, or an error for both.
    let owned = dubbo_hessian2::from_slice::<Vec<BTreeMap<String, String>>>(data);
    let borrowed = dubbo_hessian2::from_slice::<Vec<BTreeMap<CowStr, CowStr>>>(data);
    match (owned, borrowed) {
        (Ok(o), Ok(b)) => {
            let b: Vec<BTreeMap<String, String>> = b
                .into_iter()
                .map(|m| m.into_iter().map(|(k, v)| (k.into_owned(), v.into_owned())).collect())
                .collect();
            assert_eq!(o, b);
        }
        (Err(_), Err(_)) => {}
        (o, b) => panic!("owned and borrowed decoding disagree: {o:?} / {b:?}"),
    }
    let owned = dubbo_hessian2::from_slice::<Vec<serde_bytes::ByteBuf>>(data);
    let borrowed = dubbo_hessian2::from_slice::<Vec<&serde_bytes::Bytes>>(data);
    match (owned, borrowed) {
        (Ok(o), Ok(b)) => assert!(o.iter().map(|x| &x[..]).eq(b.iter().map(|x| &x[..]))),
        // A binary in several chunks cannot be borrowed.
        (Ok(_), Err(_)) | (Err(_), Err(_)) => {}
        (o, b) => panic!("borrowed decoding accepted what owned refused: {o:?} / {b:?}"),
    }
});
