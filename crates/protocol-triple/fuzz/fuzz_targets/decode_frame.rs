//! The gRPC frame decoder on arbitrary bytes, whole and split at an arbitrary point, then each
//! frame through gzip decompression: never a panic, every error a gRPC status.
#![no_main]

use bytes::BytesMut;
use dubbo_protocol_triple::compression::Encoding;
use dubbo_protocol_triple::frame::{decode_all, FrameDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let max = 64 * 1024;
    let _ = decode_all(data, max);
    if data.is_empty() {
        return;
    }
    // Feed in two chunks, as bytes arrive from the network.
    let split = data[0] as usize % data.len();
    let decoder = FrameDecoder::new(max);
    let mut buf = BytesMut::from(&data[..split]);
    let mut frames = Vec::new();
    loop {
        match decoder.decode(&mut buf) {
            Ok(Some(f)) => frames.push(f),
            Ok(None) => break,
            Err(_) => return,
        }
    }
    buf.extend_from_slice(&data[split..]);
    while let Ok(Some(f)) = decoder.decode(&mut buf) {
        frames.push(f);
    }
    for f in frames {
        assert!(f.payload.len() <= max);
        if f.compressed {
            if let Ok(out) = Encoding::Gzip.decompress(f.payload, max) {
                assert!(out.len() <= max);
            }
        }
    }
});
