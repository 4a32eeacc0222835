//! Feeds arbitrary bytes to the frame decoder (in chunks whose size the first input byte
//! picks, with both oversize policies) and every frame body it yields, and the whole input, to
//! the request, response, status and event body decoders. Decoded requests are re-encoded.
//! Nothing may panic.

#![no_main]

use bytes::BytesMut;
use dubbo_core::{Invocation, ServiceKey};
use dubbo_protocol_dubbo::body::{self, SignatureCache};
use dubbo_protocol_dubbo::{FrameDecoder, Header, Inbound};
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::Decoder;

fuzz_target!(|data: &[u8]| {
    let Some((&first, data)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first % 64) + 1;
    let cache = SignatureCache::new();
    for skipping in [false, true] {
        let mut decoder = if skipping {
            FrameDecoder::skipping_oversize(4096)
        } else {
            FrameDecoder::new(4096)
        };
        let mut buf = BytesMut::new();
        let mut frames = Vec::new();
        'feed: for piece in data.chunks(chunk) {
            buf.extend_from_slice(piece);
            loop {
                match decoder.decode(&mut buf) {
                    Ok(Some(item)) => frames.push(item),
                    Ok(None) => break,
                    Err(_) => break 'feed,
                }
            }
        }
        let _ = decoder.decode_eof(&mut buf);
        for item in frames {
            match item {
                Inbound::Frame(f) => {
                    assert_eq!(f.body.len(), f.header.body_len as usize);
                    bodies(f.header.serialization_id(), &f.body, &cache);
                }
                Inbound::Oversize(h) => assert!(h.body_len as usize > 4096),
            }
        }
    }
    let _ = Header::decode(data);
    bodies(2, data, &cache);
});

fn bodies(serialization: u8, b: &[u8], cache: &SignatureCache) {
    if let Ok(req) = body::decode_request(b, cache) {
        let key = req.service_key();
        let _ = req.timeout_ms();
        let mut inv = Invocation::with_payloads(key, req.method, req.args);
        *inv.attachments_mut() = req.attachments;
        let _ = body::encode_request(1, &inv, Some(1000), true);
        let _ = ServiceKey::interface_only("x");
    }
    // The lazy forms accept whatever the eager ones decode, and the values they leave encoded
    // decode to the same trees. (They may accept more: limits are checked when decoded.)
    let shared = bytes::Bytes::copy_from_slice(b);
    match (
        body::decode_request(b, cache),
        body::decode_request_shared(&shared, cache),
    ) {
        (Ok(eager), Ok(lazy)) => {
            assert_eq!(
                format!("{:?}", eager.attachments),
                format!("{:?}", lazy.attachments)
            );
            assert_eq!(eager.args.len(), lazy.args.len());
            for (e, l) in eager.args.iter().zip(&lazy.args) {
                let (e, l) = (e.to_value().ok(), l.to_value().ok());
                assert_eq!(format!("{e:?}"), format!("{l:?}"));
            }
        }
        (Ok(eager), lazy) => panic!("eager {eager:?} but lazy {lazy:?}"),
        _ => {}
    }
    match (body::decode_ok_response(b), body::decode_ok_response_shared(&shared)) {
        (Ok(Ok(eager)), Ok(Ok(lazy))) => {
            // Compared as text: a decoded NaN is not equal to itself.
            assert_eq!(
                format!("{:?}", eager.attachments),
                format!("{:?}", lazy.attachments)
            );
            let lazy_value = lazy.value.to_value().ok();
            let eager_value = eager.value.to_value().ok();
            assert_eq!(format!("{eager_value:?}"), format!("{lazy_value:?}"));
        }
        (Ok(Ok(eager)), lazy) => panic!("eager {eager:?} but lazy {lazy:?}"),
        _ => {}
    }
    if let Ok(outcome) = body::decode_ok_response(b) {
        match outcome {
            Ok(resp) => {
                let _ = body::encode_ok_response(1, Ok(&resp), "2.0.2");
            }
            Err(e) => {
                if let Some(be) = e.as_business() {
                    let _ = body::encode_ok_response(1, Err(be), "2.0.2");
                }
            }
        }
    }
    let _ = body::decode_status_message(serialization, b);
    let _ = body::decode_event(serialization, b);
    let _ = body::decode_event(23, b);
}
