//! The gRPC length-prefixed message framing: one flag byte, a big-endian `u32` length, then
//! the message.
//!
//! Only bit 0 of the flag byte has a meaning (the message is compressed); a frame with any other
//! bit set is malformed, as grpc-java and Java Triple reject it. A length above the configured
//! maximum is refused before any of the message is buffered.

use bytes::{Buf, BufMut, Bytes, BytesMut};

use crate::status::{Code, Status};

/// Size of the prefix in front of every message.
pub const HEADER_LEN: usize = 5;

/// Flag bit saying that the message is compressed with the stream's `grpc-encoding`.
pub const FLAG_COMPRESSED: u8 = 0x01;

/// One decoded message, still compressed if its flag says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Whether the payload is compressed.
    pub compressed: bool,
    /// The message bytes.
    pub payload: Bytes,
}

/// Why a frame could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// A flag bit other than bit 0 is set.
    #[error("gRPC frame header malformed: reserved flag bits set ({0:#04x})")]
    ReservedFlags(u8),
    /// The declared length is over the limit.
    #[error("gRPC message of {len} bytes exceeds the maximum of {max} bytes")]
    TooLarge {
        /// The declared length.
        len: usize,
        /// The configured maximum.
        max: usize,
    },
}

impl From<FrameError> for Status {
    fn from(e: FrameError) -> Self {
        match e {
            FrameError::ReservedFlags(_) => Status::new(Code::Internal, e.to_string()),
            FrameError::TooLarge { .. } => Status::new(Code::ResourceExhausted, e.to_string()),
        }
    }
}

/// Appends `payload` to `out` with its 5-byte prefix.
pub fn encode_frame(compressed: bool, payload: &[u8], out: &mut BytesMut) {
    out.reserve(HEADER_LEN + payload.len());
    out.put_u8(if compressed { FLAG_COMPRESSED } else { 0 });
    out.put_u32(payload.len() as u32);
    out.put_slice(payload);
}

/// Returns `payload` framed as one message.
pub fn frame_bytes(compressed: bool, payload: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(HEADER_LEN + payload.len());
    encode_frame(compressed, payload, &mut out);
    out.freeze()
}

/// Reads frames out of a growing buffer.
#[derive(Debug, Clone)]
pub struct FrameDecoder {
    max_message_size: usize,
}

impl FrameDecoder {
    /// A decoder refusing messages longer than `max_message_size` bytes.
    pub fn new(max_message_size: usize) -> Self {
        Self { max_message_size }
    }

    /// The configured maximum message size.
    pub fn max_message_size(&self) -> usize {
        self.max_message_size
    }

    /// Checks the header at the front of `buf`, once at least five bytes are there, and returns
    /// the total frame length (prefix included).
    pub fn peek_len(&self, buf: &[u8]) -> Result<Option<usize>, FrameError> {
        if buf.len() < HEADER_LEN {
            return Ok(None);
        }
        let flags = buf[0];
        if flags & !FLAG_COMPRESSED != 0 {
            return Err(FrameError::ReservedFlags(flags));
        }
        let len = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
        if len > self.max_message_size {
            return Err(FrameError::TooLarge {
                len,
                max: self.max_message_size,
            });
        }
        Ok(Some(HEADER_LEN + len))
    }

    /// Takes one complete frame off the front of `buf`, or returns `None` when more bytes are
    /// needed. A malformed header is reported as soon as its five bytes are there.
    pub fn decode(&self, buf: &mut BytesMut) -> Result<Option<Frame>, FrameError> {
        let Some(total) = self.peek_len(buf)? else {
            return Ok(None);
        };
        if buf.len() < total {
            return Ok(None);
        }
        let compressed = buf[0] & FLAG_COMPRESSED != 0;
        buf.advance(HEADER_LEN);
        let payload = buf.split_to(total - HEADER_LEN).freeze();
        Ok(Some(Frame {
            compressed,
            payload,
        }))
    }
}

/// Decodes every frame in `data`, which must hold whole frames only; used by the fuzz target
/// and by tests. Trailing partial frames are an error.
pub fn decode_all(data: &[u8], max_message_size: usize) -> Result<Vec<Frame>, Status> {
    let decoder = FrameDecoder::new(max_message_size);
    let mut buf = BytesMut::from(data);
    let mut frames = Vec::new();
    while let Some(frame) = decoder.decode(&mut buf)? {
        frames.push(frame);
    }
    if !buf.is_empty() {
        return Err(Status::new(
            Code::Internal,
            format!("{} bytes of an incomplete gRPC frame", buf.len()),
        ));
    }
    Ok(frames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_partial() {
        let mut buf = BytesMut::new();
        encode_frame(false, b"hello", &mut buf);
        encode_frame(true, b"", &mut buf);
        assert_eq!(&buf[..5], &[0, 0, 0, 0, 5]);
        let d = FrameDecoder::new(16);
        let mut part = buf.split_to(7);
        assert_eq!(d.decode(&mut part).unwrap(), None);
        part.unsplit(buf);
        let f = d.decode(&mut part).unwrap().unwrap();
        assert_eq!(&f.payload[..], b"hello");
        assert!(!f.compressed);
        let f = d.decode(&mut part).unwrap().unwrap();
        assert!(f.compressed && f.payload.is_empty());
        assert!(part.is_empty());
    }

    #[test]
    fn reserved_bits_and_oversize() {
        let d = FrameDecoder::new(4);
        let mut b = BytesMut::from(&[0x02, 0, 0, 0, 1, 9][..]);
        let err = d.decode(&mut b).unwrap_err();
        assert_eq!(Status::from(err).code(), Code::Internal);
        let mut b = BytesMut::from(&[0x00, 0, 0, 0, 5][..]);
        let err = d.decode(&mut b).unwrap_err();
        assert_eq!(Status::from(err).code(), Code::ResourceExhausted);
        assert!(decode_all(&[0, 0, 0], 4).is_err());
    }
}
