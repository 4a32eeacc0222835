//! Cutting a byte stream into frames, and building whole frames.
//!
//! [`FrameDecoder`] is a [`tokio_util::codec::Decoder`]: the connection tasks read into one
//! `BytesMut` and split every complete frame's body off it without copying. Frames going out
//! are encoded by the task that produced them (the caller on the consumer side, the handler on
//! the provider side) into one contiguous buffer, header first, so that the connection's writer
//! only has to batch finished frames into its socket writes.

use bytes::{Buf, Bytes, BytesMut};
use tokio_util::codec::Decoder;

use crate::error::FrameError;
use crate::header::{Header, HEADER_LEN, MAGIC_HIGH, MAGIC_LOW};

/// Default payload limit: 8 MiB, as Java's `payload` default.
pub const DEFAULT_PAYLOAD: usize = 8 * 1024 * 1024;

/// One complete frame: its header and its (still encoded) body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The header.
    pub header: Header,
    /// The body bytes, `header.body_len` long.
    pub body: Bytes,
}

/// What the decoder produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// A complete frame.
    Frame(Frame),
    /// A header whose declared body exceeds the payload limit. Only produced when the decoder
    /// was built with [`FrameDecoder::skipping_oversize`]; the body is then discarded as it
    /// arrives, so the stream stays usable.
    Oversize(Header),
}

/// The dubbo:// frame decoder.
#[derive(Debug, Clone)]
pub struct FrameDecoder {
    max_payload: usize,
    skip_oversize: bool,
    /// Header of the frame whose body is being waited for.
    pending: Option<Header>,
    /// Bytes of an oversize body still to discard.
    skipping: usize,
}

impl FrameDecoder {
    /// A decoder that fails with [`FrameError::PayloadTooLarge`] on an oversize frame (the
    /// provider's behaviour: the connection is closed).
    pub fn new(max_payload: usize) -> Self {
        FrameDecoder {
            max_payload,
            skip_oversize: false,
            pending: None,
            skipping: 0,
        }
    }

    /// A decoder that reports an oversize frame as [`Inbound::Oversize`] and skips its body
    /// (the consumer's behaviour: only the call that asked for it fails).
    pub fn skipping_oversize(max_payload: usize) -> Self {
        FrameDecoder {
            skip_oversize: true,
            ..Self::new(max_payload)
        }
    }

    /// The payload limit.
    pub fn max_payload(&self) -> usize {
        self.max_payload
    }
}

impl Decoder for FrameDecoder {
    type Item = Inbound;
    type Error = FrameError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Inbound>, FrameError> {
        if self.skipping > 0 {
            let n = self.skipping.min(src.len());
            src.advance(n);
            self.skipping -= n;
            if self.skipping > 0 {
                return Ok(None);
            }
        }
        let header = match self.pending {
            Some(h) => h,
            None => {
                // Reject a non-dubbo stream as soon as its first bytes are in.
                if src.first().is_some_and(|&b| b != MAGIC_HIGH)
                    || src.get(1).is_some_and(|&b| b != MAGIC_LOW)
                {
                    let b0 = src.first().copied().unwrap_or(0);
                    let b1 = src.get(1).copied().unwrap_or(0);
                    return Err(FrameError::BadMagic([b0, b1]));
                }
                if src.len() < HEADER_LEN {
                    return Ok(None);
                }
                let h = Header::decode(&src[..HEADER_LEN])?;
                src.advance(HEADER_LEN);
                let len = h.body_len as usize;
                if len > self.max_payload {
                    if self.skip_oversize {
                        let n = len.min(src.len());
                        src.advance(n);
                        self.skipping = len - n;
                        return Ok(Some(Inbound::Oversize(h)));
                    }
                    return Err(FrameError::PayloadTooLarge {
                        len,
                        limit: self.max_payload,
                    });
                }
                self.pending = Some(h);
                h
            }
        };
        let len = header.body_len as usize;
        if src.len() < len {
            src.reserve(len - src.len());
            return Ok(None);
        }
        self.pending = None;
        let body = src.split_to(len).freeze();
        Ok(Some(Inbound::Frame(Frame { header, body })))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Inbound>, FrameError> {
        match self.decode(src)? {
            Some(item) => Ok(Some(item)),
            None if src.is_empty() && self.pending.is_none() && self.skipping == 0 => Ok(None),
            None => {
                let needed = match self.pending {
                    Some(h) => h.body_len as usize,
                    None if self.skipping > 0 => self.skipping,
                    None => HEADER_LEN,
                };
                Err(FrameError::Truncated {
                    needed,
                    available: src.len(),
                })
            }
        }
    }
}

/// A buffer with room reserved for the header, to encode a body after it.
pub(crate) fn frame_buffer(capacity: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_LEN + capacity);
    v.extend_from_slice(&[0u8; HEADER_LEN]);
    v
}

/// Writes `header` (with the body length taken from the buffer) into the reserved first 16
/// bytes of `buf` and returns the frame. Returns the body length in `Err` when it does not fit
/// the header's signed 32-bit length.
pub(crate) fn finish_frame(mut buf: Vec<u8>, mut header: Header) -> Result<Bytes, usize> {
    let body_len = buf.len().saturating_sub(HEADER_LEN);
    if body_len > i32::MAX as usize {
        return Err(body_len);
    }
    header.body_len = body_len as u32;
    header.write_to(&mut buf);
    Ok(Bytes::from(buf))
}

/// A whole frame from a header and a body.
pub fn encode_frame(mut header: Header, body: &[u8]) -> Bytes {
    header.body_len = body.len() as u32;
    let mut buf = BytesMut::with_capacity(HEADER_LEN + body.len());
    buf.extend_from_slice(&header.encode());
    buf.extend_from_slice(body);
    buf.freeze()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::HESSIAN2;

    fn frame(id: i64, body: &[u8]) -> Bytes {
        encode_frame(Header::request(id, HESSIAN2, true, false), body)
    }

    #[test]
    fn several_frames_in_one_buffer_and_split_frames() {
        let mut wire = BytesMut::new();
        wire.extend_from_slice(&frame(1, b"abc"));
        wire.extend_from_slice(&frame(2, b""));
        let f3 = frame(3, b"0123456789");
        wire.extend_from_slice(&f3[..20]);
        let mut d = FrameDecoder::new(100);
        let Some(Inbound::Frame(a)) = d.decode(&mut wire).unwrap() else {
            panic!()
        };
        assert_eq!((a.header.id, &a.body[..]), (1, &b"abc"[..]));
        let Some(Inbound::Frame(b)) = d.decode(&mut wire).unwrap() else {
            panic!()
        };
        assert_eq!((b.header.id, b.body.len()), (2, 0));
        assert!(d.decode(&mut wire).unwrap().is_none());
        wire.extend_from_slice(&f3[20..]);
        let Some(Inbound::Frame(c)) = d.decode(&mut wire).unwrap() else {
            panic!()
        };
        assert_eq!(&c.body[..], b"0123456789");
        assert!(d.decode_eof(&mut wire).unwrap().is_none());
    }

    #[test]
    fn bad_magic_is_detected_early() {
        let mut d = FrameDecoder::new(100);
        let mut b = BytesMut::from(&b"G"[..]);
        assert!(matches!(d.decode(&mut b), Err(FrameError::BadMagic(_))));
        let mut b = BytesMut::from(&b"GET / HTTP/1.1\r\n\r\n"[..]);
        assert!(matches!(d.decode(&mut b), Err(FrameError::BadMagic(_))));
    }

    #[test]
    fn oversize_fails_or_skips() {
        let big = frame(9, &[7u8; 50]);
        let mut d = FrameDecoder::new(10);
        let mut b = BytesMut::from(&big[..]);
        assert!(matches!(
            d.decode(&mut b),
            Err(FrameError::PayloadTooLarge { len: 50, limit: 10 })
        ));

        let mut d = FrameDecoder::skipping_oversize(10);
        let mut b = BytesMut::from(&big[..30]);
        let Some(Inbound::Oversize(h)) = d.decode(&mut b).unwrap() else {
            panic!()
        };
        assert_eq!(h.id, 9);
        assert!(d.decode(&mut b).unwrap().is_none());
        b.extend_from_slice(&big[30..]);
        b.extend_from_slice(&frame(10, b"ok"));
        let Some(Inbound::Frame(f)) = d.decode(&mut b).unwrap() else {
            panic!()
        };
        assert_eq!(f.header.id, 10);
    }

    #[test]
    fn truncated_at_eof() {
        let f = frame(1, b"abcdef");
        let mut d = FrameDecoder::new(100);
        let mut b = BytesMut::from(&f[..18]);
        assert!(d.decode(&mut b).unwrap().is_none());
        assert!(matches!(
            d.decode_eof(&mut b),
            Err(FrameError::Truncated { .. })
        ));
        let mut d = FrameDecoder::new(100);
        let mut b = BytesMut::from(&f[..5]);
        assert!(matches!(
            d.decode_eof(&mut b),
            Err(FrameError::Truncated { .. })
        ));
    }
}
