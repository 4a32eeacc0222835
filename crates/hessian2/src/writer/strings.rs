//! Writing strings: UTF-16 lengths, CESU-8 bytes, `R` chunks.

use super::Hessian2Writer;
use crate::constants::*;

impl Hessian2Writer {
    /// Writes a string: UTF-16 lengths, CESU-8 bytes (a supplementary character is two
    /// 3-byte surrogates), chunks of 0x8000 units marked `R`, never splitting a pair.
    #[inline]
    pub fn write_string(&mut self, v: &str) {
        let b = v.as_bytes();
        let n = b.len();
        // Fast path: a short ASCII string that fits in hessian-lite's buffer without a
        // flush (then the mirrored position needs no adjustment either).
        if n <= 16 && self.jo() + n + 2 + 16 <= JAVA_BUFFER_SIZE {
            if let Some(padded) = short_ascii(b) {
                let len = self.buf.len();
                self.buf.reserve(17);
                self.buf.push(BC_STRING_DIRECT + n as u8);
                self.buf.extend_from_slice(&padded);
                self.buf.truncate(len + 1 + n);
                return;
            }
        } else if n <= STRING_SHORT_MAX
            && self.jo() + n + 2 + 16 <= JAVA_BUFFER_SIZE
            && b.is_ascii()
        {
            if n <= STRING_DIRECT_MAX {
                self.buf.reserve(n + 1);
                self.buf.push(BC_STRING_DIRECT + n as u8);
            } else {
                self.buf.reserve(n + 2);
                self.buf
                    .extend_from_slice(&[BC_STRING_SHORT + (n >> 8) as u8, n as u8]);
            }
            crate::copy::extend(&mut self.buf, b);
            return;
        }
        self.write_string_slow(v);
    }

    #[inline(never)]
    pub(super) fn write_string_slow(&mut self, v: &str) {
        self.flush_le(16);
        if v.is_ascii() {
            self.write_ascii_string(v.as_bytes());
        } else {
            self.write_unicode_string(v);
        }
    }

    pub(super) fn string_header(&mut self, units: usize) {
        if units <= STRING_DIRECT_MAX {
            self.buf.push(BC_STRING_DIRECT + units as u8);
        } else if units <= STRING_SHORT_MAX {
            self.buf
                .extend_from_slice(&[BC_STRING_SHORT + (units >> 8) as u8, units as u8]);
        } else {
            self.buf
                .extend_from_slice(&[BC_STRING, (units >> 8) as u8, units as u8]);
        }
    }

    pub(super) fn write_ascii_string(&mut self, mut rest: &[u8]) {
        while rest.len() > STRING_CHUNK_MAX {
            let (chunk, r) = rest.split_at(STRING_CHUNK_MAX);
            self.flush_le(16);
            self.buf.extend_from_slice(&[BC_STRING_CHUNK, 0x80, 0x00]);
            self.print_ascii(chunk);
            rest = r;
        }
        self.flush_le(16);
        self.string_header(rest.len());
        self.print_ascii(rest);
    }

    /// Appends ASCII chars, mirroring `printString`'s per-char flush check.
    pub(super) fn print_ascii(&mut self, b: &[u8]) {
        const T: usize = JAVA_BUFFER_SIZE - 16;
        let o = self.jo();
        let n = b.len();
        crate::copy::extend(&mut self.buf, b);
        let new_o = if o + n <= T {
            o + n
        } else {
            let first = T.saturating_sub(o);
            let r = n - first;
            ((r - 1) % T) + 1
        };
        self.jbase = self.buf.len() - new_o;
    }

    /// Appends one UTF-16 unit's CESU-8 bytes, with `printString`'s flush check.
    #[inline]
    pub(super) fn print_unit(&mut self, ch: u32) {
        self.flush_le(16);
        if ch < 0x80 {
            self.buf.push(ch as u8);
        } else if ch < 0x800 {
            self.buf
                .extend_from_slice(&[0xc0 | (ch >> 6) as u8, 0x80 | (ch & 0x3f) as u8]);
        } else {
            self.buf.extend_from_slice(&[
                0xe0 | ((ch >> 12) & 0xf) as u8,
                0x80 | ((ch >> 6) & 0x3f) as u8,
                0x80 | (ch & 0x3f) as u8,
            ]);
        }
    }

    #[inline]
    pub(super) fn print_char(&mut self, c: char) {
        let cp = c as u32;
        if cp < 0x10000 {
            self.print_unit(cp);
        } else {
            let v = cp - 0x10000;
            self.print_unit(0xd800 | (v >> 10));
            self.print_unit(0xdc00 | (v & 0x3ff));
        }
    }

    pub(super) fn write_unicode_string(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut chars_n = 0usize;
        let mut supp = 0usize;
        for &b in bytes {
            if (b & 0xc0) != 0x80 {
                chars_n += 1;
            }
            if b >= 0xf0 {
                supp += 1;
            }
        }
        let mut remaining = chars_n + supp;
        let mut it = s.chars().peekable();
        while remaining > STRING_CHUNK_MAX {
            self.flush_le(16);
            let hdr = self.buf.len();
            self.buf.extend_from_slice(&[BC_STRING_CHUNK, 0, 0]);
            let mut units = 0usize;
            while let Some(&c) = it.peek() {
                let w = c.len_utf16();
                if units + w > STRING_CHUNK_MAX {
                    break;
                }
                it.next();
                self.print_char(c);
                units += w;
            }
            self.buf[hdr + 1] = (units >> 8) as u8;
            self.buf[hdr + 2] = units as u8;
            remaining -= units;
        }
        self.flush_le(16);
        self.string_header(remaining);
        if supp == 0 && remaining == chars_n {
            // BMP only and not chunked: UTF-8 is CESU-8.
            const T: usize = JAVA_BUFFER_SIZE - 16;
            if self.jo() + bytes.len() <= T {
                crate::copy::extend(&mut self.buf, bytes);
                return;
            }
        }
        for c in it {
            self.print_char(c);
        }
    }
}

/// `b` (at most 16 bytes) padded to 16 bytes, if it is all ASCII: two overlapping
/// word loads check and copy it without a loop or a `memcpy` call.
#[inline(always)]
fn short_ascii(b: &[u8]) -> Option<[u8; 16]> {
    let n = b.len();
    let mut out = [0u8; 16];
    if (8..=16).contains(&n) {
        let lo = <[u8; 8]>::try_from(&b[..8]).unwrap_or([0x80; 8]);
        let hi = <[u8; 8]>::try_from(&b[n - 8..]).unwrap_or([0x80; 8]);
        if (u64::from_ne_bytes(lo) | u64::from_ne_bytes(hi)) & 0x8080_8080_8080_8080 != 0 {
            return None;
        }
        out[..8].copy_from_slice(&lo);
        out[n - 8..n].copy_from_slice(&hi);
    } else if (4..8).contains(&n) {
        let lo = <[u8; 4]>::try_from(&b[..4]).unwrap_or([0x80; 4]);
        let hi = <[u8; 4]>::try_from(&b[n - 4..]).unwrap_or([0x80; 4]);
        if (u32::from_ne_bytes(lo) | u32::from_ne_bytes(hi)) & 0x8080_8080 != 0 {
            return None;
        }
        out[..4].copy_from_slice(&lo);
        out[n - 4..n].copy_from_slice(&hi);
    } else if n < 4 {
        for (o, &c) in out.iter_mut().zip(b) {
            if c >= 0x80 {
                return None;
            }
            *o = c;
        }
    } else {
        return None;
    }
    Some(out)
}
