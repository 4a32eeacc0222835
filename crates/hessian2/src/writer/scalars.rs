//! Writing numbers, booleans, null, dates and binaries.

use super::Hessian2Writer;
use crate::constants::*;

impl Hessian2Writer {
    /// Writes `N`.
    pub fn write_null(&mut self) {
        self.flush_le(16);
        self.buf.push(BC_NULL);
    }

    /// Writes `T` or `F`.
    pub fn write_bool(&mut self, v: bool) {
        self.flush_lt(16);
        self.buf.push(if v { BC_TRUE } else { BC_FALSE });
    }

    /// Writes an int in its most compact form (1, 2, 3 or 5 bytes).
    pub fn write_int(&mut self, v: i32) {
        self.flush_le(16);
        self.put_int(v);
    }

    #[inline]
    pub(super) fn put_int(&mut self, v: i32) {
        if (INT_DIRECT_MIN..=INT_DIRECT_MAX).contains(&v) {
            self.buf.push((v + BC_INT_ZERO as i32) as u8);
        } else if (INT_BYTE_MIN..=INT_BYTE_MAX).contains(&v) {
            self.buf
                .extend_from_slice(&[(BC_INT_BYTE_ZERO as i32 + (v >> 8)) as u8, v as u8]);
        } else if (INT_SHORT_MIN..=INT_SHORT_MAX).contains(&v) {
            self.buf.extend_from_slice(&[
                (BC_INT_SHORT_ZERO as i32 + (v >> 16)) as u8,
                (v >> 8) as u8,
                v as u8,
            ]);
        } else {
            self.buf.push(BC_INT);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// Writes a long in its most compact form (1, 2, 3, 5 or 9 bytes).
    pub fn write_long(&mut self, v: i64) {
        self.flush_le(16);
        if (LONG_DIRECT_MIN..=LONG_DIRECT_MAX).contains(&v) {
            self.buf.push((v + BC_LONG_ZERO as i64) as u8);
        } else if (LONG_BYTE_MIN..=LONG_BYTE_MAX).contains(&v) {
            self.buf
                .extend_from_slice(&[(BC_LONG_BYTE_ZERO as i64 + (v >> 8)) as u8, v as u8]);
        } else if (LONG_SHORT_MIN..=LONG_SHORT_MAX).contains(&v) {
            self.buf.extend_from_slice(&[
                (BC_LONG_SHORT_ZERO as i64 + (v >> 16)) as u8,
                (v >> 8) as u8,
                v as u8,
            ]);
        } else if i64::from(i32::MIN) <= v && v <= i64::from(i32::MAX) {
            self.buf.push(BC_LONG_INT);
            self.buf.extend_from_slice(&(v as i32).to_be_bytes());
        } else {
            self.buf.push(BC_LONG);
            self.buf.extend_from_slice(&v.to_be_bytes());
        }
    }

    /// Writes a double in hessian-lite's most compact form: `5b` (0.0, also -0.0),
    /// `5c` (1.0), byte, short, the 32-bit "mills" form (`0.001 * i32` exactly), or `D`.
    pub fn write_double(&mut self, v: f64) {
        self.flush_le(16);
        // Rust's `as` saturates and maps NaN to 0, exactly like Java's (int) cast.
        let iv = v as i32;
        if f64::from(iv) == v {
            if iv == 0 {
                self.buf.push(BC_DOUBLE_ZERO);
                return;
            } else if iv == 1 {
                self.buf.push(BC_DOUBLE_ONE);
                return;
            } else if (-0x80..0x80).contains(&iv) {
                self.buf.extend_from_slice(&[BC_DOUBLE_BYTE, iv as u8]);
                return;
            } else if (-0x8000..0x8000).contains(&iv) {
                self.buf
                    .extend_from_slice(&[BC_DOUBLE_SHORT, (iv >> 8) as u8, iv as u8]);
                return;
            }
        }
        let mills = (v * 1000.0) as i32;
        if 0.001 * f64::from(mills) == v {
            self.buf.push(BC_DOUBLE_MILL);
            self.buf.extend_from_slice(&mills.to_be_bytes());
            return;
        }
        self.buf.push(BC_DOUBLE);
        self.buf.extend_from_slice(&v.to_bits().to_be_bytes());
    }

    /// Writes a `java.util.Date`: `K` + minutes when `millis` is a whole minute, else `J` + millis.
    pub fn write_date(&mut self, millis: i64) {
        self.flush_lt(32);
        if millis % 60000 == 0 {
            let minutes = millis / 60000;
            if (minutes >> 31) == 0 || (minutes >> 31) == -1 {
                self.buf.push(BC_DATE_MINUTE);
                self.buf.extend_from_slice(&(minutes as i32).to_be_bytes());
                return;
            }
        }
        self.buf.push(BC_DATE);
        self.buf.extend_from_slice(&millis.to_be_bytes());
    }

    /// Writes a `byte[]`: `0x20+len`, `0x34`-form, or `B`, split into `A` chunks at
    /// the same places hessian-lite's 8 KiB buffer splits them.
    pub fn write_binary(&mut self, v: &[u8]) {
        if self.spec {
            self.spec_failed = true;
            return;
        }
        self.buf
            .reserve(v.len() + 3 * (v.len() / (JAVA_BUFFER_SIZE - 3) + 2));
        let mut off = 0usize;
        let mut length = v.len();
        loop {
            let o = self.jo() as isize;
            let room = JAVA_BUFFER_SIZE as isize - o - 3;
            if room >= length as isize {
                break;
            }
            let mut sublen = room;
            if sublen < 16 {
                self.jflush();
                sublen = JAVA_BUFFER_SIZE as isize - 3;
                if (length as isize) < sublen {
                    sublen = length as isize;
                }
            }
            let sublen = sublen as usize;
            self.buf
                .extend_from_slice(&[BC_BINARY_CHUNK, (sublen >> 8) as u8, sublen as u8]);
            crate::copy::extend(&mut self.buf, &v[off..off + sublen]);
            length -= sublen;
            off += sublen;
            self.jflush();
        }
        self.flush_lt(16);
        if length <= BINARY_DIRECT_MAX {
            self.buf.push(BC_BINARY_DIRECT + length as u8);
        } else if length <= BINARY_SHORT_MAX {
            self.buf
                .extend_from_slice(&[BC_BINARY_SHORT + (length >> 8) as u8, length as u8]);
        } else {
            self.buf
                .extend_from_slice(&[BC_BINARY, (length >> 8) as u8, length as u8]);
        }
        crate::copy::extend(&mut self.buf, &v[off..]);
    }
}
