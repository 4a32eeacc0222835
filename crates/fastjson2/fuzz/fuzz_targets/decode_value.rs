//! Decodes arbitrary bytes as JSONB and as a Dubbo body of framed values: must never panic,
//! hang or allocate beyond what the input justifies. Whatever decodes must encode, and the
//! encoding must decode to the same tree.
#![no_main]

use dubbo_fastjson2::{from_jsonb, to_jsonb, FrameReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = from_jsonb(data) {
        // NaN never equals itself, so only trees without one are compared.
        let text = format!("{v:?}");
        let bytes = to_jsonb(&v).unwrap_or_else(|e| panic!("decoded {text} but cannot encode it: {e}"));
        let back = from_jsonb(&bytes).unwrap_or_else(|e| panic!("cannot decode own encoding of {text}: {e}"));
        if !text.contains("NaN") {
            assert_eq!(back, v);
        }
    }
    let mut frames = FrameReader::new(data);
    while !frames.is_empty() {
        if frames.read_object().is_err() {
            break;
        }
    }
});
