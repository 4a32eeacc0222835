//! Dubbo's framing of fastjson2 values (`FastJson2ObjectOutput` / `FastJson2ObjectInput`):
//! every value of a body (each argument, the result, the attachments) is a 4-byte big-endian
//! length followed by that many bytes of JSONB, one fresh JSONB stream per value, so symbols
//! and references never cross values. `writeBytes` frames raw bytes the same way.

use dubbo_hessian2::Value;

use crate::error::{Error, Result};
use crate::reader::JsonbReader;
use crate::writer::JsonbWriter;

/// Encodes `value` as one JSONB stream, without a frame.
pub fn to_jsonb(value: &Value) -> Result<Vec<u8>> {
    let mut w = JsonbWriter::new();
    w.write_value(value)?;
    Ok(w.into_bytes())
}

/// Decodes one JSONB stream holding exactly one value.
pub fn from_jsonb(bytes: &[u8]) -> Result<Value> {
    let mut r = JsonbReader::new(bytes);
    let v = r.read_value()?;
    match r.remaining() {
        0 => Ok(v),
        extra => Err(Error::TrailingBytes { extra }),
    }
}

/// Appends `value` to a Dubbo body as `writeObject` does: length, then its JSONB.
pub fn write_object(out: &mut Vec<u8>, value: &Value) -> Result<()> {
    let jsonb = to_jsonb(value)?;
    write_bytes(out, &jsonb)
}

/// Appends raw bytes as `writeBytes` does: length, then the bytes.
pub fn write_bytes(out: &mut Vec<u8>, bytes: &[u8]) -> Result<()> {
    let len = u32::try_from(bytes.len())
        .ok()
        .filter(|&n| n <= i32::MAX as u32)
        .ok_or_else(|| Error::Unencodable {
            what: "frame",
            reason: format!("{} bytes exceed a 4-byte length", bytes.len()),
        })?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(bytes);
    Ok(())
}

/// A reader of a Dubbo body's framed values, in order.
pub struct FrameReader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> FrameReader<'a> {
    /// A reader at the start of `body`.
    pub fn new(body: &'a [u8]) -> Self {
        FrameReader { buf: body, pos: 0 }
    }

    /// Whether every frame has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// The next frame's bytes, as `readBytes` returns them.
    pub fn read_bytes(&mut self) -> Result<&'a [u8]> {
        let rest = &self.buf[self.pos..];
        let head: [u8; 4] =
            rest.get(..4)
                .and_then(|h| h.try_into().ok())
                .ok_or(Error::Truncated {
                    position: self.buf.len(),
                })?;
        let len = i32::from_be_bytes(head);
        let remaining = rest.len() - 4;
        match usize::try_from(len) {
            Ok(n) if n <= remaining => {
                let start = self.pos + 4;
                self.pos = start + n;
                Ok(&self.buf[start..start + n])
            }
            _ => Err(Error::InvalidLength {
                what: "frame",
                len: i64::from(len),
                position: self.pos,
                remaining,
            }),
        }
    }

    /// The next frame decoded, as `readObject` returns it.
    pub fn read_object(&mut self) -> Result<Value> {
        let at = self.pos + 4;
        from_jsonb(self.read_bytes()?).map_err(|e| shift(e, at))
    }
}

/// Makes an error's offset relative to the body rather than to the frame.
fn shift(e: Error, by: usize) -> Error {
    match e {
        Error::Truncated { position } => Error::Truncated {
            position: position + by,
        },
        Error::UnexpectedTag {
            tag,
            position,
            expected,
        } => Error::UnexpectedTag {
            tag,
            position: position + by,
            expected,
        },
        other => other,
    }
}
