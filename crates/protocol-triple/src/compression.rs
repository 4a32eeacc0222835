//! Message compression: `grpc-encoding` `identity` and `gzip`.

use std::io::{Read, Write};

use bytes::Bytes;

use crate::status::Status;

/// A message encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    /// No compression.
    #[default]
    Identity,
    /// gzip (RFC 1952).
    Gzip,
}

/// The `grpc-accept-encoding` value this implementation sends.
pub const ACCEPT_ENCODING: &str = "gzip,identity";

impl Encoding {
    /// Parses a `grpc-encoding` value; `None` for an encoding this side does not support.
    pub fn from_name(name: &str) -> Option<Encoding> {
        match name.trim() {
            "identity" | "" => Some(Encoding::Identity),
            "gzip" => Some(Encoding::Gzip),
            _ => None,
        }
    }

    /// The `grpc-encoding` name.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Identity => "identity",
            Encoding::Gzip => "gzip",
        }
    }

    /// Whether messages are actually compressed.
    pub fn is_compressed(self) -> bool {
        self != Encoding::Identity
    }

    /// Compresses one message.
    pub fn compress(self, data: &[u8]) -> Result<Bytes, Status> {
        match self {
            Encoding::Identity => Ok(Bytes::copy_from_slice(data)),
            Encoding::Gzip => {
                let mut enc = flate2::write::GzEncoder::new(
                    Vec::with_capacity(data.len() / 2 + 16),
                    flate2::Compression::fast(),
                );
                enc.write_all(data)
                    .and_then(|_| enc.finish())
                    .map(Bytes::from)
                    .map_err(|e| Status::internal(format!("gzip compression failed: {e}")))
            }
        }
    }

    /// Decompresses one message, refusing output longer than `max` bytes
    /// (`RESOURCE_EXHAUSTED`), so a small compressed frame cannot blow up memory.
    pub fn decompress(self, data: Bytes, max: usize) -> Result<Bytes, Status> {
        match self {
            Encoding::Identity => Ok(data),
            Encoding::Gzip => {
                let mut out = Vec::with_capacity(data.len().saturating_mul(2).min(max));
                let dec = flate2::read::GzDecoder::new(&data[..]);
                let mut limited = dec.take(max as u64 + 1);
                limited
                    .read_to_end(&mut out)
                    .map_err(|e| Status::internal(format!("gzip decompression failed: {e}")))?;
                if out.len() > max {
                    return Err(Status::resource_exhausted(format!(
                        "decompressed gRPC message exceeds the maximum of {max} bytes"
                    )));
                }
                Ok(Bytes::from(out))
            }
        }
    }
}

/// Picks the response encoding: `gzip` when the peer's `grpc-accept-encoding` lists it and
/// `want` is gzip, identity otherwise.
pub fn negotiate(want: Encoding, peer_accepts: Option<&str>) -> Encoding {
    match (want, peer_accepts) {
        (Encoding::Gzip, Some(list)) if list.split(',').any(|e| e.trim() == "gzip") => {
            Encoding::Gzip
        }
        _ => Encoding::Identity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_round_trip_and_bomb() {
        let data = vec![7u8; 10_000];
        let z = Encoding::Gzip.compress(&data).unwrap();
        assert!(z.len() < 200);
        assert_eq!(
            &Encoding::Gzip.decompress(z.clone(), 10_000).unwrap()[..],
            &data[..]
        );
        let err = Encoding::Gzip.decompress(z, 9_999).unwrap_err();
        assert_eq!(err.code(), crate::status::Code::ResourceExhausted);
        assert!(Encoding::Gzip
            .decompress(Bytes::from_static(b"nope"), 10)
            .is_err());
        assert_eq!(Encoding::from_name("snappy"), None);
        assert_eq!(
            negotiate(Encoding::Gzip, Some("identity, gzip")),
            Encoding::Gzip
        );
    }
}
