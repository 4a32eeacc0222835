//! Percent-encoding exactly as Java Dubbo does it.
//!
//! Two decoders exist in Java Dubbo and both are reproduced here:
//!
//! * [`encode`] / [`decode`] are `URL.encode` / `URL.decode`, i.e. `java.net.URLEncoder` and
//!   `URLDecoder` with UTF-8. The decoder is lenient about bad UTF-8 (it substitutes U+FFFD).
//! * The strict component decoder of `URLStrParser` (used by [`Url::parse_encoded`]) rejects
//!   bad UTF-8; it lives in this module as [`decode_component`] and works on "units" so that
//!   index arithmetic matches Java's UTF-16 strings even for malformed, non-ASCII input.
//!
//! [`Url::parse_encoded`]: crate::Url::parse_encoded

use crate::error::UrlError;

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Percent-encodes `value` like Java's `URLEncoder.encode(value, "UTF-8")`, which is what
/// Dubbo's `URL.encode` calls.
///
/// ASCII letters, digits and `.` `-` `*` `_` stay as they are, a space becomes `+`, and every
/// other byte of the UTF-8 form becomes `%XX` with upper-case hex digits.
///
/// ```
/// assert_eq!(dubbo_url::encode("a b/c?d=中"), "a+b%2Fc%3Fd%3D%E4%B8%AD");
/// assert_eq!(dubbo_url::encode("a-b_c.d*e~"), "a-b_c.d*e%7E");
/// ```
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + value.len() / 2);
    for &b in value.as_bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => {
                out.push(char::from(b))
            }
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(char::from(HEX_UPPER[usize::from(b >> 4)]));
                out.push(char::from(HEX_UPPER[usize::from(b & 0x0f)]));
            }
        }
    }
    out
}

/// Decodes `value` like Java's `URLDecoder.decode(value, "UTF-8")`, which is what Dubbo's
/// `URL.decode` calls.
///
/// `+` becomes a space and each run of `%XX` escapes is decoded as UTF-8; bytes that are not
/// valid UTF-8 become U+FFFD, as in Java. A `%` without two following characters, or with
/// characters that are not hex digits, is an error, as in Java.
///
/// Java quirk kept on purpose: the two characters after `%` go through `Integer.parseInt(_, 16)`,
/// so a sign is accepted there (`%+A` is byte 10, `%-0` is byte 0, `%-1` is an error).
///
/// ```
/// assert_eq!(dubbo_url::decode("a+b%2Fc%E4%B8%AD").unwrap(), "a b/c中");
/// assert!(dubbo_url::decode("100%").is_err());
/// ```
pub fn decode(value: &str) -> Result<String, UrlError> {
    let bytes = value.as_bytes();
    if !bytes.iter().any(|&b| b == b'%' || b == b'+') {
        return Ok(value.to_owned());
    }
    let mut out = String::with_capacity(value.len());
    let mut run: Vec<u8> = Vec::new();
    let mut plain_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push_str(&value[plain_start..i]);
                out.push(' ');
                i += 1;
                plain_start = i;
            }
            b'%' => {
                out.push_str(&value[plain_start..i]);
                run.clear();
                while i + 2 < bytes.len() && bytes[i] == b'%' {
                    let byte = java_parse_hex_pair(bytes[i + 1], bytes[i + 2])
                        .ok_or(UrlError::InvalidEscape { index: i })?;
                    run.push(byte);
                    i += 3;
                }
                if i < bytes.len() && bytes[i] == b'%' {
                    return Err(UrlError::UnterminatedEscape { index: i });
                }
                out.push_str(&String::from_utf8_lossy(&run));
                plain_start = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&value[plain_start..]);
    Ok(out)
}

/// `Integer.parseInt(two chars, 16)` restricted to a byte, with its sign quirk.
fn java_parse_hex_pair(a: u8, b: u8) -> Option<u8> {
    let lo = hex_nibble(u32::from(b))?;
    match a {
        b'+' => Some(lo),
        b'-' if lo == 0 => Some(0),
        _ => Some((hex_nibble(u32::from(a))? << 4) | lo),
    }
}

/// Value of an ASCII hex digit (either case), as Dubbo's `StringUtils.decodeHexNibble`.
pub(crate) fn hex_nibble(c: u32) -> Option<u8> {
    match c {
        0x30..=0x39 => Some((c - 0x30) as u8),
        0x41..=0x46 => Some((c - 0x41 + 10) as u8),
        0x61..=0x66 => Some((c - 0x61 + 10) as u8),
        _ => None,
    }
}

/// One code unit of the text being parsed: a byte of an all-ASCII string, or a UTF-16 unit.
///
/// Java indexes strings by UTF-16 unit; using bytes when the input is ASCII (the normal case
/// for encoded URLs) and UTF-16 units otherwise keeps every index computation identical to
/// Java's without paying for a conversion on well-formed input.
pub(crate) trait Unit: Copy {
    /// The unit as a number (a byte or a UTF-16 code unit).
    fn code(self) -> u32;
    /// Appends a run of units that contains no escapes to `out`.
    fn push_plain(units: &[Self], out: &mut Vec<u16>);
}

impl Unit for u8 {
    fn code(self) -> u32 {
        u32::from(self)
    }
    fn push_plain(units: &[Self], out: &mut Vec<u16>) {
        out.extend(units.iter().map(|&b| u16::from(b)));
    }
}

impl Unit for u16 {
    fn code(self) -> u32 {
        u32::from(self)
    }
    fn push_plain(units: &[Self], out: &mut Vec<u16>) {
        out.extend_from_slice(units);
    }
}

/// Decodes the hex byte whose two digits start at `pos` (Dubbo `StringUtils.decodeHexByte`).
pub(crate) fn hex_byte<U: Unit>(units: &[U], pos: usize) -> Result<u8, UrlError> {
    let invalid = UrlError::InvalidEscape {
        index: pos.saturating_sub(1),
    };
    let hi = units.get(pos).and_then(|u| hex_nibble(u.code()));
    let lo = units.get(pos + 1).and_then(|u| hex_nibble(u.code()));
    match (hi, lo) {
        (Some(hi), Some(lo)) => Ok((hi << 4) | lo),
        _ => Err(invalid),
    }
}

/// `URLStrParser.decodeComponent(s, from, to, isPath = false)`: decodes `units[from..to]`,
/// turning `+` into a space and runs of `%XX` into UTF-8 text, strictly.
///
/// An empty or inverted range gives an empty string, as in Java.
pub(crate) fn decode_component<U: Unit>(
    units: &[U],
    from: isize,
    to: isize,
) -> Result<String, UrlError> {
    if to - from <= 0 || from < 0 {
        return Ok(String::new());
    }
    // Both bounds are non-negative here; `to` never exceeds the input in our callers, but clamp
    // anyway so no input can make us index out of bounds.
    let from = from as usize;
    let to = (to as usize).min(units.len());
    if from >= to {
        return Ok(String::new());
    }
    let slice = &units[from..to];
    if !slice
        .iter()
        .any(|u| u.code() == u32::from(b'%') || u.code() == u32::from(b'+'))
    {
        let mut plain = Vec::with_capacity(slice.len());
        U::push_plain(slice, &mut plain);
        return Ok(String::from_utf16_lossy(&plain));
    }

    let mut out: Vec<u16> = Vec::with_capacity(slice.len());
    let mut bytes: Vec<u8> = Vec::new();
    let mut i = from;
    while i < to {
        let c = units[i].code();
        if c != u32::from(b'%') {
            if c == u32::from(b'+') {
                out.push(u16::from(b' '));
            } else {
                U::push_plain(&units[i..i + 1], &mut out);
            }
            i += 1;
            continue;
        }
        let run_start = i;
        bytes.clear();
        loop {
            if i + 3 > to {
                return Err(UrlError::UnterminatedEscape { index: i });
            }
            bytes.push(hex_byte(units, i + 1)?);
            i += 3;
            if !(i < to && units[i].code() == u32::from(b'%')) {
                break;
            }
        }
        let text =
            std::str::from_utf8(&bytes).map_err(|_| UrlError::InvalidUtf8 { index: run_start })?;
        out.extend(text.encode_utf16());
    }
    Ok(String::from_utf16_lossy(&out))
}

/// [`decode_component`] for text that is all ASCII (the usual registry data), building the
/// UTF-8 result directly instead of through UTF-16 units; same results, same errors.
pub(crate) fn decode_ascii_component(
    units: &[u8],
    from: isize,
    to: isize,
) -> Result<String, UrlError> {
    if to - from <= 0 || from < 0 {
        return Ok(String::new());
    }
    let from = from as usize;
    let to = (to as usize).min(units.len());
    let Some(slice) = units.get(from..to).filter(|s| !s.is_empty()) else {
        return Ok(String::new());
    };
    let mut out: Vec<u8> = Vec::with_capacity(slice.len());
    let mut i = from;
    while i < to {
        let c = units[i];
        if c != b'%' {
            out.push(if c == b'+' { b' ' } else { c });
            i += 1;
            continue;
        }
        let run_start = i;
        let run_out = out.len();
        loop {
            if i + 3 > to {
                return Err(UrlError::UnterminatedEscape { index: i });
            }
            out.push(hex_byte(units, i + 1)?);
            i += 3;
            if !(i < to && units[i] == b'%') {
                break;
            }
        }
        if std::str::from_utf8(&out[run_out..]).is_err() {
            return Err(UrlError::InvalidUtf8 { index: run_start });
        }
    }
    // ASCII and whole, validated runs: valid UTF-8 (lossy only to avoid a panic path).
    Ok(String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_component_decoding_agrees_with_the_general_one() {
        let cases = [
            "",
            "abc",
            "a+b",
            "%41%42",
            "a%E4%B8%ADb",
            "%E4%B8",
            "%E4%B8x",
            "%FF",
            "%4",
            "%zz",
            "x%",
            "%2F%2F10.0.0.1%3A20880%2Forg.Foo",
            "+%20+",
            "%C3%A9%C3",
            "a%3D%26",
        ];
        for case in cases {
            let b = case.as_bytes();
            let n = b.len() as isize;
            for (from, to) in [(0, n), (1, n), (0, n - 1), (2, 1), (-1, n), (0, n + 5)] {
                let general = decode_component(b, from, to).map_err(|e| e.to_string());
                let ascii = decode_ascii_component(b, from, to).map_err(|e| e.to_string());
                assert_eq!(ascii, general, "{case:?} {from}..{to}");
            }
        }
    }

    #[test]
    fn encode_matches_java_url_encoder() {
        assert_eq!(encode(""), "");
        assert_eq!(encode(" "), "+");
        assert_eq!(encode("+"), "%2B");
        assert_eq!(encode("~!'()"), "%7E%21%27%28%29");
        assert_eq!(encode("😀"), "%F0%9F%98%80");
        assert_eq!(
            encode("dubbo://1.2.3.4:20880/a.B?x=1&y=a,b"),
            "dubbo%3A%2F%2F1.2.3.4%3A20880%2Fa.B%3Fx%3D1%26y%3Da%2Cb"
        );
    }

    #[test]
    fn decode_matches_java_url_decoder() {
        assert_eq!(decode("").unwrap(), "");
        assert_eq!(decode("abc").unwrap(), "abc");
        assert_eq!(decode("a+b").unwrap(), "a b");
        assert_eq!(decode("%e4%b8%ad%E6%96%87").unwrap(), "中文");
        assert_eq!(decode("%F0%9F%98%80").unwrap(), "😀");
        // Lenient on bad UTF-8, like `new String(bytes, UTF_8)`.
        assert_eq!(decode("%FF").unwrap(), "\u{FFFD}");
        assert_eq!(decode("a%E4%B8").unwrap(), "a\u{FFFD}");
        // Integer.parseInt sign quirk.
        assert_eq!(decode("%+A").unwrap(), "\n");
        assert_eq!(decode("%-0").unwrap(), "\0");
        assert_eq!(decode("%-1").unwrap_err().code(), "url.invalid_escape");
        assert_eq!(decode("%").unwrap_err().code(), "url.unterminated_escape");
        assert_eq!(
            decode("ab%4").unwrap_err().code(),
            "url.unterminated_escape"
        );
        assert_eq!(decode("%zz").unwrap_err().code(), "url.invalid_escape");
        assert_eq!(
            decode("%41%").unwrap_err().code(),
            "url.unterminated_escape"
        );
    }

    #[test]
    fn strict_component_decoder() {
        let s = b"a+b%E4%B8%ADc";
        assert_eq!(
            decode_component(&s[..], 0, s.len() as isize).unwrap(),
            "a b中c"
        );
        assert_eq!(decode_component(&s[..], 5, 2).unwrap(), "");
        let bad = b"%FF";
        assert_eq!(
            decode_component(&bad[..], 0, 3).unwrap_err().code(),
            "url.invalid_utf8"
        );
        let cut = b"%E4%B";
        assert_eq!(
            decode_component(&cut[..], 0, 5).unwrap_err().code(),
            "url.unterminated_escape"
        );
        let wide: Vec<u16> = "é+%41".encode_utf16().collect();
        assert_eq!(
            decode_component(&wide, 0, wide.len() as isize).unwrap(),
            "é A"
        );
    }
}
