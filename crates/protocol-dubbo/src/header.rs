//! The 16-byte dubbo:// frame header: magic, flags, status, request id and body length.
//!
//! ```text
//! 0      2      3        4                     12            16
//! +------+------+--------+---------------------+-------------+
//! | dabb | flag | status | request id (i64 BE) | length (BE) |
//! +------+------+--------+---------------------+-------------+
//! ```
//!
//! `flag` bit 7 marks a request, bit 6 a two-way request, bit 5 an event; bits 0–4 carry the
//! serialization id. `status` is only meaningful in responses.

use crate::error::FrameError;

/// The two magic bytes every frame starts with.
pub const MAGIC: u16 = 0xdabb;
/// First magic byte.
pub const MAGIC_HIGH: u8 = 0xda;
/// Second magic byte.
pub const MAGIC_LOW: u8 = 0xbb;
/// Length of the header in bytes.
pub const HEADER_LEN: usize = 16;

/// Flag bit: the frame is a request (clear for responses).
pub const FLAG_REQUEST: u8 = 0x80;
/// Flag bit: the request expects a response.
pub const FLAG_TWO_WAY: u8 = 0x40;
/// Flag bit: the frame is an event (heartbeat, readonly) rather than a call.
pub const FLAG_EVENT: u8 = 0x20;
/// Mask of the serialization id in the flag byte.
pub const SERIALIZATION_MASK: u8 = 0x1f;

/// Serialization id of hessian2, the one dubbo:// calls use.
pub const HESSIAN2: u8 = 2;
/// Serialization id of fastjson2; Java 3.2 peers may send heartbeats and events in it.
pub const FASTJSON2: u8 = 23;

/// The name Java Dubbo gives serialization `id` (its `content type id` registry), for error
/// messages; `None` for an id Java does not assign.
pub fn serialization_name(id: u8) -> Option<&'static str> {
    Some(match id {
        2 => "hessian2",
        3 => "java",
        4 => "compactedjava",
        6 => "fastjson",
        7 => "nativejava",
        8 => "kryo",
        9 => "fst",
        10 => "native-hessian",
        11 => "protostuff",
        12 => "avro",
        16 => "gson",
        21 => "protobuf-json",
        22 => "protobuf",
        23 => "fastjson2",
        _ => return None,
    })
}

/// A decoded frame header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The flag byte (request/two-way/event bits and serialization id).
    pub flag: u8,
    /// The status byte (responses only; 0 in requests).
    pub status: u8,
    /// The request id the response is matched by.
    pub id: i64,
    /// Length of the body following the header.
    pub body_len: u32,
}

impl Header {
    /// A request header: `0x80 | ser`, plus two-way and event bits as asked.
    pub fn request(id: i64, serialization: u8, two_way: bool, event: bool) -> Self {
        let mut flag = FLAG_REQUEST | (serialization & SERIALIZATION_MASK);
        if two_way {
            flag |= FLAG_TWO_WAY;
        }
        if event {
            flag |= FLAG_EVENT;
        }
        Header {
            flag,
            status: 0,
            id,
            body_len: 0,
        }
    }

    /// A response header: the serialization id, plus the event bit for heartbeat responses.
    pub fn response(id: i64, serialization: u8, status: u8, heartbeat: bool) -> Self {
        let mut flag = serialization & SERIALIZATION_MASK;
        if heartbeat {
            flag |= FLAG_EVENT;
        }
        Header {
            flag,
            status,
            id,
            body_len: 0,
        }
    }

    /// Whether this is a request (otherwise a response).
    pub fn is_request(&self) -> bool {
        self.flag & FLAG_REQUEST != 0
    }

    /// Whether the request expects a response.
    pub fn is_two_way(&self) -> bool {
        self.flag & FLAG_TWO_WAY != 0
    }

    /// Whether the frame is an event (heartbeat, readonly...).
    pub fn is_event(&self) -> bool {
        self.flag & FLAG_EVENT != 0
    }

    /// The serialization id (`2` = hessian2, `23` = fastjson2...).
    pub fn serialization_id(&self) -> u8 {
        self.flag & SERIALIZATION_MASK
    }

    /// Writes the 16 header bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0] = MAGIC_HIGH;
        b[1] = MAGIC_LOW;
        b[2] = self.flag;
        b[3] = self.status;
        b[4..12].copy_from_slice(&self.id.to_be_bytes());
        b[12..16].copy_from_slice(&self.body_len.to_be_bytes());
        b
    }

    /// Writes the header into the first 16 bytes of `buf`, which must be at least that long.
    pub fn write_to(&self, buf: &mut [u8]) {
        buf[..HEADER_LEN].copy_from_slice(&self.encode());
    }

    /// Reads a header from the first 16 bytes of `buf`.
    ///
    /// Fails when `buf` is shorter than a header, does not start with the magic, or declares
    /// a negative body length.
    pub fn decode(buf: &[u8]) -> Result<Header, FrameError> {
        let Some(b) = buf.get(..HEADER_LEN) else {
            return Err(FrameError::Truncated {
                needed: HEADER_LEN,
                available: buf.len(),
            });
        };
        if b[0] != MAGIC_HIGH || b[1] != MAGIC_LOW {
            return Err(FrameError::BadMagic([b[0], b[1]]));
        }
        let mut id = [0u8; 8];
        id.copy_from_slice(&b[4..12]);
        let mut len = [0u8; 4];
        len.copy_from_slice(&b[12..16]);
        let len = i32::from_be_bytes(len);
        if len < 0 {
            return Err(FrameError::NegativeLength(len));
        }
        Ok(Header {
            flag: b[2],
            status: b[3],
            id: i64::from_be_bytes(id),
            body_len: len as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_way_hessian_request_flag_is_c2() {
        let h = Header::request(1, HESSIAN2, true, false);
        assert_eq!(h.flag, 0xc2);
        let h = Header::request(1, HESSIAN2, true, true);
        assert_eq!(h.flag, 0xe2);
        let h = Header::request(1, HESSIAN2, false, true);
        assert_eq!(h.flag, 0xa2);
        assert_eq!(Header::response(1, HESSIAN2, 20, true).flag, 0x22);
        assert_eq!(Header::response(1, HESSIAN2, 20, false).flag, 0x02);
    }

    #[test]
    fn round_trip() {
        let h = Header {
            flag: 0xc2,
            status: 0,
            id: -5,
            body_len: 0xc3,
        };
        let b = h.encode();
        assert_eq!(&b[..4], &[0xda, 0xbb, 0xc2, 0x00]);
        assert_eq!(&b[12..], &[0, 0, 0, 0xc3]);
        assert_eq!(Header::decode(&b).unwrap(), h);
        assert!(h.is_request() && h.is_two_way() && !h.is_event());
        assert_eq!(h.serialization_id(), 2);
    }

    #[test]
    fn rejects_bad_input() {
        assert!(matches!(
            Header::decode(&[0xda, 0xbb]),
            Err(FrameError::Truncated { .. })
        ));
        let mut b = Header::request(1, 2, true, false).encode();
        b[0] = 0x47;
        assert!(matches!(Header::decode(&b), Err(FrameError::BadMagic(_))));
        let mut b = Header::request(1, 2, true, false).encode();
        b[12] = 0x80;
        assert!(matches!(
            Header::decode(&b),
            Err(FrameError::NegativeLength(_))
        ));
    }
}
