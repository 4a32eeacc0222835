//! `java.math.BigDecimal` and `BigInteger` between JSONB's parts (scale and unscaled integer,
//! or two's-complement bytes) and the `toString()` text the dynamic value carries them as.

use crate::error::{Error, Result};

/// The most bytes of a `BigInteger` the codec converts (about 4900 decimal digits): the
/// conversion is quadratic, and Java's numbers in a call are far smaller.
pub(crate) const MAX_BIGINT_BYTES: usize = 2048;

/// An arbitrary-size integer as a sign and decimal digits (no leading zeros; `"0"` for zero).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BigInt {
    pub(crate) negative: bool,
    pub(crate) digits: String,
}

impl BigInt {
    pub(crate) fn from_i64(v: i64) -> Self {
        BigInt {
            negative: v < 0,
            digits: v.unsigned_abs().to_string(),
        }
    }

    /// From two's-complement big-endian bytes, as `BigInteger.toByteArray()` gives them.
    pub(crate) fn from_twos_complement(bytes: &[u8]) -> Self {
        let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
        // Magnitude: negate (invert and add one) when negative.
        let mut mag: Vec<u8> = if negative {
            let mut m: Vec<u8> = bytes.iter().map(|b| !b).collect();
            for b in m.iter_mut().rev() {
                let (v, carry) = b.overflowing_add(1);
                *b = v;
                if !carry {
                    break;
                }
            }
            m
        } else {
            bytes.to_vec()
        };
        // Repeated division by 10 of the base-256 magnitude gives the digits, lowest first.
        let mut digits = Vec::new();
        while mag.iter().any(|&b| b != 0) {
            let mut rem: u32 = 0;
            for b in mag.iter_mut() {
                let cur = (rem << 8) | u32::from(*b);
                *b = (cur / 10) as u8;
                rem = cur % 10;
            }
            digits.push(b'0' + rem as u8);
        }
        if digits.is_empty() {
            digits.push(b'0');
        }
        digits.reverse();
        BigInt {
            negative: negative && digits != b"0",
            digits: String::from_utf8_lossy(&digits).into_owned(),
        }
    }

    /// The value as an `i64`, when it fits.
    pub(crate) fn to_i64(&self) -> Option<i64> {
        let text = if self.negative {
            format!("-{}", self.digits)
        } else {
            self.digits.clone()
        };
        text.parse().ok()
    }

    /// Two's-complement big-endian bytes, shortest form (as `BigInteger.toByteArray()`).
    pub(crate) fn to_twos_complement(&self) -> Vec<u8> {
        // Magnitude in base 256, built by multiply-and-add of each decimal digit.
        let mut mag: Vec<u8> = vec![0];
        for d in self.digits.bytes() {
            let mut carry = u32::from(d - b'0');
            for b in mag.iter_mut().rev() {
                let cur = u32::from(*b) * 10 + carry;
                *b = cur as u8;
                carry = cur >> 8;
            }
            while carry > 0 {
                mag.insert(0, carry as u8);
                carry >>= 8;
            }
        }
        // One leading zero byte keeps the sign bit clear.
        mag.insert(0, 0);
        if self.negative {
            for b in mag.iter_mut() {
                *b = !*b;
            }
            for b in mag.iter_mut().rev() {
                let (v, carry) = b.overflowing_add(1);
                *b = v;
                if !carry {
                    break;
                }
            }
            while mag.len() > 1 && mag[0] == 0xff && mag[1] & 0x80 != 0 {
                mag.remove(0);
            }
        } else {
            while mag.len() > 1 && mag[0] == 0 && mag[1] & 0x80 == 0 {
                mag.remove(0);
            }
        }
        mag
    }

    /// `BigInteger.toString()`.
    pub(crate) fn to_text(&self) -> String {
        if self.negative {
            format!("-{}", self.digits)
        } else {
            self.digits.clone()
        }
    }

    /// Parses `BigInteger` text: an optional sign and decimal digits.
    pub(crate) fn parse(text: &str) -> Result<Self> {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        if digits.is_empty()
            || digits.len() > MAX_BIGINT_BYTES * 5 / 2
            || !digits.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(Error::Unencodable {
                what: "java.math.BigInteger",
                reason: format!("{text:?} is not an integer of at most {MAX_BIGINT_BYTES} bytes"),
            });
        }
        let digits = digits.trim_start_matches('0');
        let digits = if digits.is_empty() { "0" } else { digits };
        Ok(BigInt {
            negative: negative && digits != "0",
            digits: digits.to_owned(),
        })
    }
}

/// `BigDecimal.toString()` of `unscaled × 10^-scale`: plain notation when the scale is not
/// negative and the adjusted exponent is at least −6, scientific notation otherwise.
pub(crate) fn decimal_text(unscaled: &BigInt, scale: i32) -> String {
    let digits = &unscaled.digits;
    let sign = if unscaled.negative { "-" } else { "" };
    let adjusted = -i64::from(scale) + (digits.len() as i64 - 1);
    if scale >= 0 && adjusted >= -6 {
        let scale = scale as usize;
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            return format!("{sign}{int}.{frac}");
        }
        let zeros = "0".repeat(scale - digits.len());
        return format!("{sign}0.{zeros}{digits}");
    }
    let (first, rest) = digits.split_at(1);
    let exp = if adjusted >= 0 {
        format!("E+{adjusted}")
    } else {
        format!("E{adjusted}")
    };
    if rest.is_empty() {
        format!("{sign}{first}{exp}")
    } else {
        format!("{sign}{first}.{rest}{exp}")
    }
}

/// Splits `BigDecimal` text (`-12.34`, `1E+3`, `0.000001`) into unscaled value and scale.
pub(crate) fn parse_decimal(text: &str) -> Result<(BigInt, i32)> {
    let bad = || Error::Unencodable {
        what: "java.math.BigDecimal",
        reason: format!("{text:?} is not a decimal number"),
    };
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => {
            let e: i64 = text[i + 1..].parse().map_err(|_| bad())?;
            (&text[..i], e)
        }
        None => (text, 0),
    };
    let (int, frac) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let unscaled = BigInt::parse(&format!("{int}{frac}")).map_err(|_| bad())?;
    let scale = i32::try_from(frac.len() as i64 - exp).map_err(|_| bad())?;
    Ok((unscaled, scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twos_complement_round_trips() {
        for v in [
            0i64,
            1,
            -1,
            127,
            128,
            -128,
            -129,
            255,
            256,
            i64::MAX,
            i64::MIN,
        ] {
            let b = BigInt::from_i64(v);
            let bytes = b.to_twos_complement();
            assert_eq!(bytes, {
                // The shortest two's-complement form, computed independently from i64 bytes.
                let all = v.to_be_bytes();
                let mut s = &all[..];
                while s.len() > 1
                    && ((s[0] == 0 && s[1] & 0x80 == 0) || (s[0] == 0xff && s[1] & 0x80 != 0))
                {
                    s = &s[1..];
                }
                s.to_vec()
            });
            assert_eq!(BigInt::from_twos_complement(&bytes), b, "{v}");
        }
        let big = BigInt::parse("-123456789012345678901234567890").unwrap();
        assert_eq!(BigInt::from_twos_complement(&big.to_twos_complement()), big);
    }

    #[test]
    fn decimal_text_follows_java_to_string() {
        let t = |u: i64, s: i32| decimal_text(&BigInt::from_i64(u), s);
        assert_eq!(t(12345, 2), "123.45");
        assert_eq!(t(-5, 3), "-0.005");
        assert_eq!(t(1, 6), "0.000001");
        assert_eq!(t(1, 7), "1E-7");
        assert_eq!(t(1, -3), "1E+3");
        assert_eq!(t(123, -2), "1.23E+4");
        assert_eq!(t(0, 0), "0");
        for text in ["123.45", "-0.005", "1E-7", "1E+3", "1.23E+4", "0", "100"] {
            let (u, s) = parse_decimal(text).unwrap();
            assert_eq!(decimal_text(&u, s), text);
        }
        assert!(parse_decimal("1.2.3").is_err());
        assert!(parse_decimal("abc").is_err());
    }
}
