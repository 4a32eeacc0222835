//! Feeds arbitrary bytes to the fastjson2 (serialization id 23) request, response and status
//! body decoders of dubbo://. What decodes is encoded again and must decode to the same thing.
//! Nothing may panic.

#![no_main]

use dubbo_core::Invocation;
use dubbo_protocol_dubbo::body::{self, fastjson2, SignatureCache};
use dubbo_protocol_dubbo::Serialization;
use libfuzzer_sys::fuzz_target;

/// Header bytes before a body in a whole frame.
const HEADER_LEN: usize = 16;

fuzz_target!(|data: &[u8]| {
    let cache = SignatureCache::new();
    if let Ok(req) = fastjson2::decode_request(data, &cache) {
        let key = req.service_key();
        let _ = req.timeout_ms();
        let args = format!("{:?}", req.args);
        let mut inv = Invocation::with_payloads(key, req.method, req.args);
        *inv.attachments_mut() = req.attachments;
        if let Ok(frame) = fastjson2::encode_request(1, &inv, None, true) {
            let again = fastjson2::decode_request(&frame[HEADER_LEN..], &cache)
                .expect("a request this side encoded decodes");
            // Compared as text: a decoded NaN is not equal to itself.
            assert_eq!(args, format!("{:?}", again.args));
        }
    }
    if let Ok(outcome) = fastjson2::decode_ok_response(data) {
        let frame = match &outcome {
            Ok(resp) => fastjson2::encode_ok_response(1, Ok(resp), "2.0.2"),
            Err(e) => match e.as_business() {
                Some(b) => fastjson2::encode_ok_response(1, Err(b), "2.0.2"),
                None => return,
            },
        };
        if let (Ok(frame), Ok(resp)) = (frame, &outcome) {
            let again = fastjson2::decode_ok_response(&frame[HEADER_LEN..])
                .expect("a response this side encoded decodes");
            if let Ok(again) = again {
                let (a, b) = (resp.value.to_value().ok(), again.value.to_value().ok());
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
            }
        }
    }
    let _ = fastjson2::decode_status_message(data);
    let shared = bytes::Bytes::copy_from_slice(data);
    let _ = body::decode_request_in(Serialization::Fastjson2, &shared, &cache);
    let _ = body::decode_ok_response_in(Serialization::Fastjson2, &shared);
});
