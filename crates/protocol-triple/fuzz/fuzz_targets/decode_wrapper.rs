//! The Triple wrapper decoders (and the Hessian values inside) on arbitrary bytes: never a
//! panic; whatever decodes re-encodes to something that decodes to the same wrapper.
#![no_main]

use bytes::Bytes;
use dubbo_protocol_triple::wrapper::{decode_hessian, TripleRequestWrapper, TripleResponseWrapper};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = Bytes::copy_from_slice(data);
    if let Ok(req) = TripleRequestWrapper::decode(bytes.clone()) {
        let again = TripleRequestWrapper::decode(req.encode()).expect("re-encoded request decodes");
        assert_eq!(again, req);
        for a in &req.args {
            let _ = decode_hessian(a);
        }
    }
    if let Ok(resp) = TripleResponseWrapper::decode(bytes) {
        let again =
            TripleResponseWrapper::decode(resp.encode()).expect("re-encoded response decodes");
        assert_eq!(again.data, resp.data);
        let _ = decode_hessian(&resp.data);
    }
});
