//! Value patterns of condition rules: globs with `*`, `$param` references and integer ranges.

use dubbo_url::Url;

use super::matcher::url_value;

/// Whether `value` matches `pattern`.
///
/// A pattern containing `~` is an integer range (`1~10`, `~10`); any other is a glob. `param`
/// is the consumer URL when matching providers (the right side of `=>`), whose parameters
/// `$name` patterns refer to; it is `None` on the left side, where `$name` is literal.
/// `when_side` decides what an unusable range yields: no match on the left side, a match on
/// the right side (Java `RangeValuePattern`).
pub(crate) fn matches(pattern: &str, value: &str, param: Option<&Url>, when_side: bool) -> bool {
    if pattern.contains('~') {
        range_matches(pattern, value).unwrap_or(!when_side)
    } else {
        glob_matches_with_param(pattern, value, param)
    }
}

/// Java's `String.valueOf(Integer.parseInt(s))` through `StringUtils.parseInteger`: digits
/// only, anything else is 0; `None` when the digits overflow an `i32`.
fn parse_integer(s: &str) -> Option<i32> {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse().ok()
    } else {
        Some(0)
    }
}

/// `Some(matched)`, or `None` when the range or the value cannot be used.
fn range_matches(pattern: &str, value: &str) -> Option<bool> {
    let value = parse_integer(value)?;
    // Java's `split("~")` drops trailing empty parts, so `1~` and `~` have fewer than two.
    let mut parts: Vec<&str> = pattern.split('~').collect();
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    if parts.len() < 2 {
        return None;
    }
    let (start, end) = (parts[0], parts[1]);
    if start.is_empty() {
        Some(value <= parse_integer(end)?)
    } else {
        let start = parse_integer(start)?;
        let end = parse_integer(end)?;
        Some(start <= value && value <= end)
    }
}

fn glob_matches_with_param(pattern: &str, value: &str, param: Option<&Url>) -> bool {
    match (param, pattern.strip_prefix('$')) {
        (Some(url), Some(name)) => match url_value(url, name) {
            Some(resolved) => glob_matches(&resolved, value),
            None => value.is_empty(),
        },
        _ => glob_matches(pattern, value),
    }
}

/// Java `UrlUtils.isMatchGlobPattern`: `*` alone matches anything; otherwise only the last `*`
/// is a wildcard (prefix, suffix, or prefix and suffix around it); no `*` means equality.
pub(crate) fn glob_matches(pattern: &str, value: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    if pattern.is_empty() || value.is_empty() {
        return pattern.is_empty() && value.is_empty();
    }
    match pattern.rfind('*') {
        None => value == pattern,
        Some(i) if i == pattern.len() - 1 => value.starts_with(&pattern[..i]),
        Some(0) => value.ends_with(&pattern[1..]),
        Some(i) => value.starts_with(&pattern[..i]) && value.ends_with(&pattern[i + 1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_follow_java() {
        assert!(glob_matches("*", ""));
        assert!(glob_matches("find*", "findAll"));
        assert!(glob_matches("*All", "findAll"));
        assert!(glob_matches("f*l", "findAll"));
        assert!(!glob_matches("f*x", "findAll"));
        assert!(glob_matches("10.20.*", "10.20.153.10"));
        assert!(!glob_matches("10.20.*", "10.21.0.1"));
        assert!(glob_matches("", ""));
        assert!(!glob_matches("a", ""));
    }

    #[test]
    fn ranges_follow_java() {
        assert!(matches("1~10", "5", None, true));
        assert!(!matches("1~10", "11", None, true));
        assert!(matches("~10", "3", None, true));
        // `1~` splits into one part: unusable, so no match on the left, a match on the right.
        assert!(!matches("1~", "3", None, true));
        assert!(matches("1~", "3", None, false));
        // Non-numeric values count as 0.
        assert!(matches("0~1", "abc", None, true));
    }
}
