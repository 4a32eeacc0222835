//! One message of an interface-mode stream (a request or response wrapper holding one Hessian 2
//! value) decoded on arbitrary bytes, into a tree and into typed values: never a panic, only a
//! status; a value that decodes re-encodes to a message that decodes and re-encodes to the same
//! bytes (bytes rather than values: a NaN double is not equal to itself).
#![no_main]

use bytes::Bytes;
use dubbo_hessian2::Value;
use dubbo_protocol_triple::wrapper_stream::{
    decode_request, decode_response, encode_request, encode_response,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = Bytes::copy_from_slice(data);
    if let Ok(v) = decode_request::<Value>(bytes.clone()) {
        if let Ok(again) = encode_request(&v, &["java.lang.Object"]) {
            let v2 = decode_request::<Value>(again.clone()).expect("re-encoded request decodes");
            assert_eq!(encode_request(&v2, &["java.lang.Object"]).ok(), Some(again));
        }
    }
    let _ = decode_request::<String>(bytes.clone());
    let _ = decode_request::<i32>(bytes.clone());
    if let Ok(v) = decode_response::<Value>(bytes.clone()) {
        if let Ok(again) = encode_response(&v, "java.lang.Object") {
            let v2 = decode_response::<Value>(again.clone()).expect("re-encoded response decodes");
            assert_eq!(encode_response(&v2, "java.lang.Object").ok(), Some(again));
        }
    }
    let _ = decode_response::<Vec<String>>(bytes);
});
