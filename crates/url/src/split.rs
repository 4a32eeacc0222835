//! Java `Pattern.split` for Dubbo's separator patterns.

/// Splits like Java's `Pattern.compile("\\s*[<delims>]+\\s*").split(s)`.
///
/// Whitespace is Java regex `\s` (`[ \t\n\x0B\f\r]`). As in Java, a match at the very start
/// yields a leading empty item, trailing empty items are dropped, and input without any
/// separator comes back whole (even when empty).
pub(crate) fn java_split<'a>(s: &'a str, delims: &[char]) -> Vec<&'a str> {
    let b = s.as_bytes();
    let is_ws = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
    let is_delim = |c: u8| delims.iter().any(|&d| d.is_ascii() && c == d as u8);

    let mut parts = Vec::new();
    let mut last = 0;
    let mut search = 0;
    let mut matched = false;
    while search < b.len() {
        // The leftmost match from `search`: the first delimiter, extended backwards over the
        // whitespace that directly precedes it (but not before `search`).
        let Some(first_delim) = (search..b.len()).find(|&i| is_delim(b[i])) else {
            break;
        };
        let mut start = first_delim;
        while start > search && is_ws(b[start - 1]) {
            start -= 1;
        }
        let mut end = first_delim;
        while end < b.len() && is_delim(b[end]) {
            end += 1;
        }
        while end < b.len() && is_ws(b[end]) {
            end += 1;
        }
        matched = true;
        parts.push(&s[last..start]);
        last = end;
        search = end;
    }
    if !matched {
        return vec![s];
    }
    parts.push(&s[last..]);
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::java_split;

    #[test]
    fn matches_java_pattern_split() {
        let comma = &[','][..];
        assert_eq!(java_split("a,b", comma), ["a", "b"]);
        assert_eq!(java_split(" a , b ", comma), [" a", "b "]);
        assert_eq!(java_split("a,,b", comma), ["a", "b"]);
        assert_eq!(java_split(",a", comma), ["", "a"]);
        assert_eq!(java_split("a,", comma), ["a"]);
        assert_eq!(java_split(",", comma), Vec::<&str>::new());
        assert_eq!(java_split("", comma), [""]);
        assert_eq!(java_split("a", comma), ["a"]);
        assert_eq!(java_split(", , a", comma), ["", "", "a"]);
        assert_eq!(java_split("é,ü", comma), ["é", "ü"]);
        let reg = &['|', ';'][..];
        assert_eq!(java_split("a | b;c||d", reg), ["a", "b", "c", "d"]);
    }
}
