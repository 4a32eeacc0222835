//! Java's parsing of booleans, blanks and doubles, which URL parameters follow.

use crate::params::java_trim;

/// Java `Boolean.parseBoolean`.
pub(crate) fn java_parse_bool(s: &str) -> bool {
    s.eq_ignore_ascii_case("true")
}

/// Java `Character.isWhitespace`.
pub(super) fn java_is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{0B}'
            | '\u{0C}'
            | '\r'
            | '\u{1C}'..='\u{1F}'
            | ' '
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200A}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205F}'
            | '\u{3000}'
    )
}

/// Dubbo `StringUtils.isBlank`.
pub(crate) fn java_is_blank(s: &str) -> bool {
    s.chars().all(java_is_whitespace)
}

/// Java `Double.parseDouble` for decimal input.
pub(super) fn java_parse_double(s: &str) -> Option<f64> {
    let t = java_trim(s);
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(t);
    if unsigned == "NaN" || unsigned == "Infinity" {
        return t.parse().ok();
    }
    let body = match t.strip_suffix(['f', 'F', 'd', 'D']) {
        Some(rest) => rest,
        None => t,
    };
    // Only digits, sign, dot and exponent: keeps Rust-only spellings ("inf", "nan") out.
    if !body
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    body.parse().ok()
}
