//! Java `URLStrParser`: whole-Url parsing of decoded and encoded text.

use crate::address::{credentials, trim_leading_slashes, UrlAddress};
use crate::error::{snippet, UrlError};
use crate::intern::Strings;
use crate::params::{
    apply_default_keys, parse_decoded_params, parse_encoded_params, with_units, ParamMap, UnitsDyn,
    UrlParams,
};
use crate::text::Text;
use crate::Url;

/// The address part of a Url as slices of the (decoded) body.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Body<'a> {
    pub protocol: Option<&'a str>,
    pub username: Option<&'a str>,
    pub password: Option<&'a str>,
    pub host: Option<&'a str>,
    pub port: u16,
    pub path: Option<&'a str>,
}

/// `URLStrParser.parseDecodedStr`.
pub(crate) fn parse_decoded(s: &str, strings: Strings<'_>) -> Result<Url, UrlError> {
    let (params, body) = match s.find('?') {
        Some(q) => (parse_decoded_params(s, q + 1, strings), &s[..q]),
        None => (Default::default(), s),
    };
    let body = parse_url_body(s, body)?;
    Ok(make_url(&body, params, strings))
}

/// `URLStrParser.parseEncodedStr`.
pub(crate) fn parse_encoded(s: &str, strings: Strings<'_>) -> Result<Url, UrlError> {
    let (address, mut params) = parse_encoded_parts(s, strings)?;
    apply_default_keys(&mut params, strings);
    Ok(Url::from_parts(address, UrlParams::from_map(params)))
}

/// [`parse_encoded`]'s address, with `params` in place of the parameters `s` carries (which
/// are still parsed, so the same texts fail).
pub(crate) fn parse_encoded_with_params(
    s: &str,
    strings: Strings<'_>,
    params: UrlParams,
) -> Result<Url, UrlError> {
    let (address, _) = parse_encoded_parts(s, strings)?;
    Ok(Url::from_parts(address, params))
}

/// The address and the raw parameter map of an encoded Url.
fn parse_encoded_parts(s: &str, strings: Strings<'_>) -> Result<(UrlAddress, ParamMap), UrlError> {
    with_units(s, |u| {
        let (params, path_end) = match encoded_question_mark(s, u) {
            Some(q) if q > u.len() => {
                // Java reads past the end of the string here and throws.
                return Err(UrlError::UnterminatedEscape { index: u.len() });
            }
            Some(q) => (parse_encoded_params(u, q + 3, strings)?, q),
            None => (Default::default(), u.len()),
        };
        let decoded = u.decode(0, path_end as isize)?;
        let body = parse_url_body(s, &decoded)?;
        Ok((make_address(&body, strings), params))
    })
}

/// Where Java finds the `%3F` that ends the body: `s.toUpperCase().indexOf("%3F")`.
///
/// The position is taken in the upper-cased text and then used on the original, so in the
/// (malformed) case of raw non-ASCII text whose upper case is longer, such as `ß` -> `SS`, it
/// lands elsewhere; we reproduce that rather than silently disagree with Java consumers.
fn encoded_question_mark(s: &str, u: &dyn UnitsDyn) -> Option<usize> {
    if s.is_ascii() {
        return u.find_encoded_question_mark();
    }
    let upper: Vec<u16> = s.to_uppercase().encode_utf16().collect();
    let needle = [u16::from(b'%'), u16::from(b'3'), u16::from(b'F')];
    upper.windows(3).position(|w| w == needle)
}

/// Java `new ServiceConfigURL(protocol, username, password, host, port, path, params)`.
fn make_url(body: &Body<'_>, mut params: ParamMap, strings: Strings<'_>) -> Url {
    apply_default_keys(&mut params, strings);
    Url::from_parts(make_address(body, strings), UrlParams::from_map(params))
}

/// The address half of [`make_url`].
fn make_address(body: &Body<'_>, strings: Strings<'_>) -> UrlAddress {
    UrlAddress {
        protocol: body.protocol.map(|p| strings.name(p)),
        credentials: credentials(
            body.username.map(|u| strings.plain(u)),
            body.password.map(|p| strings.plain(p)),
        ),
        host: body.host.map(Text::new),
        port: body.port,
        path: body.path.map(|p| strings.name(trim_leading_slashes(p))),
    }
}

/// `URLStrParser.parseURLBody`: splits `[protocol://][user[:password]@][host[:port]][/path]`.
///
/// Positions are byte offsets; every one of them is the position of an ASCII delimiter or an
/// end of the text, so each comparison and slice means the same as Java's UTF-16 indexes.
pub(crate) fn parse_url_body<'a>(full: &str, body: &'a str) -> Result<Body<'a>, UrlError> {
    let b = body.as_bytes();
    let n = b.len() as isize;
    let mut start: isize = 0;
    let mut end: isize = n;
    // Ignore everything after '#'.
    if let Some(pound) = body.find('#') {
        end = pound as isize;
    }

    let mut protocol = None;
    if let Some(p) = body.find("://") {
        if p == 0 {
            return Err(missing_protocol(full));
        }
        protocol = Some(&body[..p]);
        start = p as isize + 3;
    } else if let Some(p) = body.find(":/") {
        // case: file:/path/to/file.txt
        if p == 0 {
            return Err(missing_protocol(full));
        }
        protocol = Some(&body[..p]);
        start = p as isize + 1;
    }

    let mut path = None;
    let path_start = index_of(b, b'/', start, end);
    if path_start >= 0 {
        path = Some(slice(body, path_start + 1, end));
        end = path_start;
    }

    let mut username = None;
    let mut password = None;
    let pwd_end = last_index_of(b, b'@', start, end);
    if pwd_end > 0 {
        let colon = index_of(b, b':', start, pwd_end);
        if colon != -1 {
            username = Some(slice(body, start, colon));
            password = Some(slice(body, colon + 1, pwd_end));
        } else {
            // tolerate incomplete user info such as "1234@"
            username = Some(slice(body, start, pwd_end));
        }
        start = pwd_end + 1;
    }

    let mut port = 0u16;
    let host_end = last_index_of(b, b':', start, end);
    if host_end > 0 && host_end < n - 1 {
        if last_index_of(b, b'%', start, end) > host_end {
            // IPv6 address with a zone id, e.g. fe80:0:0:0:894:aeec:f37d:23e1%en0: no port.
        } else {
            port = parse_port(slice(body, host_end + 1, end), full)?;
            end = host_end;
        }
    }

    let host = if end > start {
        Some(slice(body, start, end))
    } else {
        None
    };

    Ok(Body {
        protocol,
        username,
        password,
        host,
        port,
        path,
    })
}

fn missing_protocol(full: &str) -> UrlError {
    UrlError::MissingProtocol {
        input: snippet(full),
    }
}

/// `body[from..to]`, empty when the range is inverted or not on char boundaries (neither
/// happens for the positions the parser computes).
fn slice(body: &str, from: isize, to: isize) -> &str {
    if from < 0 || to < from {
        return "";
    }
    body.get(from as usize..to as usize).unwrap_or("")
}

/// `URLStrParser.indexOf(str, ch, from, toExclude)`.
fn index_of(b: &[u8], ch: u8, from: isize, to_exclude: isize) -> isize {
    let from = from.max(0);
    let to = to_exclude.min(b.len() as isize);
    if from > to {
        return -1;
    }
    (from..to).find(|&i| b[i as usize] == ch).unwrap_or(-1)
}

/// `URLStrParser.lastIndexOf(str, ch, from, toExclude)`. Like Java it also looks at
/// `toExclude` itself when that is inside the text; the parser only calls it where that
/// position holds `/` or `#`, so the result is the same as an exclusive search.
fn last_index_of(b: &[u8], ch: u8, from: isize, to_exclude: isize) -> isize {
    let from = from.max(0);
    let to = to_exclude.min(b.len() as isize - 1);
    if from > to {
        return -1;
    }
    (from..=to)
        .rev()
        .find(|&i| b[i as usize] == ch)
        .unwrap_or(-1)
}

/// Java `Integer.parseInt` on the port text, then `Math.max(port, 0)`; ports above 65535 are
/// refused.
fn parse_port(text: &str, full: &str) -> Result<u16, UrlError> {
    let value = parse_java_int(text).ok_or_else(|| UrlError::InvalidPort {
        text: snippet(text),
        input: snippet(full),
    })?;
    if value < 0 {
        return Ok(0);
    }
    u16::try_from(value).map_err(|_| UrlError::PortOutOfRange {
        port: i64::from(value),
    })
}

/// Java `Integer.parseInt(s)` for ASCII digits: an optional sign, at least one digit, and a
/// result within `i32`.
pub(crate) fn parse_java_int(s: &str) -> Option<i32> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    s.parse::<i32>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_int() {
        assert_eq!(parse_java_int("20880"), Some(20880));
        assert_eq!(parse_java_int("+1"), Some(1));
        assert_eq!(parse_java_int("-1"), Some(-1));
        assert_eq!(parse_java_int("007"), Some(7));
        assert_eq!(parse_java_int("2147483647"), Some(i32::MAX));
        assert_eq!(parse_java_int("2147483648"), None);
        assert_eq!(parse_java_int("-2147483648"), Some(i32::MIN));
        for bad in ["", "+", "-", "1]", " 1", "1 ", "0x1", "+-1", "١"] {
            assert_eq!(parse_java_int(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn index_helpers() {
        let b = b"a:b/c";
        assert_eq!(index_of(b, b'/', 0, 5), 3);
        assert_eq!(index_of(b, b'/', 4, 2), -1);
        assert_eq!(last_index_of(b, b':', 0, 3), 1);
        assert_eq!(last_index_of(b, b'a', 1, 5), -1);
        assert_eq!(last_index_of(b"", b'a', 0, 0), -1);
    }
}
