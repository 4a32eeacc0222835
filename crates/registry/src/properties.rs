//! The text format of `java.util.Properties` (`load` / `store`), so a registry cache file
//! written by Java Dubbo can be read here and the other way round.
//!
//! `store` writes ISO-8859-1 with everything outside printable ASCII as `\uXXXX`, so the files
//! are plain ASCII; `load` accepts that, hand-edited UTF-8, and Latin-1.

/// The pairs of a Properties text, in file order (a later duplicate key wins, as in Java).
pub(crate) fn parse(data: &[u8]) -> Vec<(String, String)> {
    // Java reads the stream as Latin-1; valid UTF-8 (a hand-edited file) is taken as such.
    let text: String = match std::str::from_utf8(data) {
        Ok(s) => s.to_owned(),
        Err(_) => data.iter().map(|&b| char::from(b)).collect(),
    };
    let mut out = Vec::new();
    for line in logical_lines(&text) {
        let (key, value) = split_pair(&line);
        out.push((unescape(key), unescape(value)));
    }
    out
}

/// `entries` in Properties text, after a `#comment` line.
pub(crate) fn store<'a, I>(comment: &str, entries: I) -> String
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    let mut out = String::new();
    out.push('#');
    out.push_str(comment);
    out.push('\n');
    for (k, v) in entries {
        escape_into(&mut out, k, true);
        out.push('=');
        escape_into(&mut out, v, false);
        out.push('\n');
    }
    out
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t' || c == '\x0c'
}

/// Joins continuation lines and drops comments and blank lines.
fn logical_lines(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut continuing = false;
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        // A lone '\r' also ends a line in Java.
        for piece in raw.split('\r') {
            let piece = piece.trim_start_matches(is_blank);
            if !continuing && (piece.is_empty() || piece.starts_with('#') || piece.starts_with('!'))
            {
                continue;
            }
            let trailing = piece.chars().rev().take_while(|&c| c == '\\').count();
            if trailing % 2 == 1 {
                current.push_str(&piece[..piece.len() - 1]);
                continuing = true;
            } else {
                current.push_str(piece);
                lines.push(std::mem::take(&mut current));
                continuing = false;
            }
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// Splits at the first unescaped `=`, `:` or blank, then skips blanks and one separator.
fn split_pair(line: &str) -> (&str, &str) {
    let mut escaped = false;
    let mut key_end = line.len();
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '=' | ':' => {
                key_end = i;
                let rest = line[i + 1..].trim_start_matches(is_blank);
                return (&line[..key_end], rest);
            }
            c if is_blank(c) => {
                key_end = i;
                break;
            }
            _ => {}
        }
    }
    let rest = line[key_end..].trim_start_matches(is_blank);
    let rest = rest
        .strip_prefix('=')
        .or_else(|| rest.strip_prefix(':'))
        .map(|r| r.trim_start_matches(is_blank))
        .unwrap_or(rest);
    (&line[..key_end], rest)
}

fn unescape(s: &str) -> String {
    let mut units: Vec<u16> = Vec::with_capacity(s.len());
    let mut chars = s.chars();
    let mut buf = [0u16; 2];
    while let Some(c) = chars.next() {
        let c = if c != '\\' {
            c
        } else {
            match chars.next() {
                Some('t') => '\t',
                Some('n') => '\n',
                Some('r') => '\r',
                Some('f') => '\x0c',
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    match u16::from_str_radix(&hex, 16) {
                        Ok(u) if hex.len() == 4 => units.push(u),
                        // Java throws here; a damaged escape is kept as text instead.
                        _ => units.extend("\\u".encode_utf16().chain(hex.encode_utf16())),
                    }
                    continue;
                }
                Some(other) => other,
                None => continue,
            }
        };
        units.extend_from_slice(c.encode_utf16(&mut buf));
    }
    String::from_utf16_lossy(&units)
}

fn escape_into(out: &mut String, s: &str, is_key: bool) {
    for (i, c) in s.chars().enumerate() {
        match c {
            '\\' => out.push_str("\\\\"),
            ' ' if i == 0 || is_key => out.push_str("\\ "),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\x0c' => out.push_str("\\f"),
            '=' | ':' | '#' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c if (' '..='~').contains(&c) => out.push(c),
            c => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{u:04X}"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_java_writes() {
        let java = b"#Dubbo Registry Cache\n#Mon Nov 30 10:00:00 UTC 2026\n\
g/org.Foo\\:1.0=dubbo\\://10.0.0.1\\:20880/org.Foo?a\\=1 empty\\://h/x?category\\=routers\n\
org.Bar=\\u00e9t\\u00e9 \\\n    next\n! comment\nkey value\n";
        let p = parse(java);
        assert_eq!(
            p,
            vec![
                (
                    "g/org.Foo:1.0".to_owned(),
                    "dubbo://10.0.0.1:20880/org.Foo?a=1 empty://h/x?category=routers".to_owned()
                ),
                ("org.Bar".to_owned(), "été next".to_owned()),
                ("key".to_owned(), "value".to_owned()),
            ]
        );
    }

    #[test]
    fn store_then_parse_round_trips() {
        let entries = [
            ("g/org.Foo:1.0", "dubbo://h:1/x?a=b#c!d ünï 😀"),
            ("with space", " leading"),
        ];
        let text = store("Dubbo Registry Cache", entries);
        assert!(text.is_ascii());
        assert!(text.contains(
            "g/org.Foo\\:1.0=dubbo\\://h\\:1/x?a\\=b\\#c\\!d \\u00FCn\\u00EF \\uD83D\\uDE00"
        ));
        let back = parse(text.as_bytes());
        assert_eq!(
            back,
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<Vec<_>>()
        );
    }
}
