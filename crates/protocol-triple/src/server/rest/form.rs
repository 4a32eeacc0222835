//! `application/x-www-form-urlencoded` (query strings and form bodies), cookies and
//! percent-decoding.

/// Decodes `%XX` escapes (and `+` as a space when `plus_is_space`, as query strings and forms
/// write it); invalid escapes are kept as written, invalid UTF-8 is replaced.
pub(crate) fn percent_decode(s: &str, plus_is_space: bool) -> String {
    if !s.contains(['%', '+']) {
        return s.to_owned();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' if plus_is_space => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// The `name=value` pairs of a query string or form body, decoded, in order.
pub(crate) fn parse_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k, true), percent_decode(v, true))
        })
        .collect()
}

/// The cookies of a `Cookie` header value.
pub(crate) fn parse_cookies(header: &str) -> Vec<(String, String)> {
    header
        .split(';')
        .filter_map(|c| {
            let (k, v) = c.split_once('=')?;
            Some((k.trim().to_owned(), v.trim().trim_matches('"').to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        assert_eq!(percent_decode("a%20b+c", true), "a b c");
        assert_eq!(percent_decode("a%20b+c", false), "a b+c");
        assert_eq!(percent_decode("100%", true), "100%");
        assert_eq!(percent_decode("%zz%4", true), "%zz%4");
        assert_eq!(percent_decode("%C3%A9", true), "é");
        assert_eq!(
            parse_pairs("limit=3&prefix=user-1&x&"),
            vec![
                ("limit".into(), "3".into()),
                ("prefix".into(), "user-1".into()),
                ("x".into(), "".into())
            ]
        );
        assert_eq!(
            parse_cookies("a=1; b=\"two\""),
            vec![("a".into(), "1".into()), ("b".into(), "two".into())]
        );
    }
}
