//! Path templates as Spring MVC and JAX-RS write them, compiled to one regex each:
//! `/users/{id}`, `/v/{n:\d+}`, `/files/*.txt` (`*`: any text inside one segment),
//! `/static/**` (any number of segments), `/raw/{*rest}` (the rest of the path, slashes
//! included).
//!
//! Templates made only of literal segments and whole-segment `{name}` variables (most REST
//! mappings) are also matched segment by segment, without the regex: every request tries the
//! templates in turn, and a regex with captures cost about 2,000 instructions of a
//! `GET /users/7` (a tenth of the request; docs/performance.md, "The rest row").

use regex::Regex;

/// One segment of a template that [`PathTemplate::segments`] can match.
#[derive(Debug, PartialEq)]
enum Segment {
    /// This text exactly.
    Literal(String),
    /// Any non-empty text (the variable's value).
    Var,
}

/// A compiled path template.
#[derive(Debug)]
pub(crate) struct PathTemplate {
    regex: Regex,
    /// Variable names, in the order of their groups (`v0`, `v1`...), with each group's index.
    vars: Vec<(String, usize)>,
    /// The same template segment by segment, when it has no wildcard and no variable with a
    /// pattern or sharing its segment with text; then it matches without the regex.
    segments: Option<Vec<Segment>>,
    /// Sort key, most specific first: wildcards, then variables, then fewer literal
    /// characters (so `/users/form` wins over `/users/{id}`, as in Spring).
    pub(crate) specificity: (usize, usize, std::cmp::Reverse<usize>),
}

impl PathTemplate {
    /// Compiles `template`; the error says what is wrong with it.
    pub(crate) fn compile(template: &str) -> Result<Self, String> {
        if !template.starts_with('/') {
            return Err(format!(
                "path template {template:?} does not start with `/`"
            ));
        }
        let mut re = String::from("^");
        let mut vars = Vec::new();
        let (mut wildcards, mut literal) = (0, 0);
        let body = template.strip_suffix('/').unwrap_or(template);
        let mut segments = Some(Vec::new());
        for seg in body.split('/').skip(1) {
            if let Some(list) = segments.as_mut() {
                match simple_segment(seg) {
                    Some(s) => list.push(s),
                    None => segments = None,
                }
            }
            if seg == "**" {
                wildcards += 1;
                re.push_str("(?:/.*)?");
                continue;
            }
            re.push('/');
            let mut chars = seg.char_indices().peekable();
            while let Some((i, c)) = chars.next() {
                match c {
                    '{' => {
                        let close = matching_close(&seg[i..])
                            .ok_or_else(|| format!("unclosed `{{` in {template:?}"))?;
                        let inner = &seg[i + 1..i + close];
                        let (name, pattern) = match inner.split_once(':') {
                            Some((n, p)) => (n, p.to_owned()),
                            None => (inner, String::new()),
                        };
                        let (name, pattern) = match name.strip_prefix('*') {
                            Some(n) => (n, ".*".to_owned()),
                            None if pattern.is_empty() => (name, "[^/]+".to_owned()),
                            None => (name, pattern),
                        };
                        re.push_str(&format!("(?P<v{}>{pattern})", vars.len()));
                        vars.push(name.to_owned());
                        while chars.peek().is_some_and(|(j, _)| *j < i + close + 1) {
                            chars.next();
                        }
                    }
                    '*' => {
                        wildcards += 1;
                        re.push_str("[^/]*");
                    }
                    other => {
                        literal += 1;
                        re.push_str(&regex::escape(other.encode_utf8(&mut [0; 4])));
                    }
                }
            }
        }
        // A trailing slash matches too, as Java's default path matching allows.
        re.push_str("/?$");
        let regex = Regex::new(&re)
            .map_err(|e| format!("path template {template:?} has a bad regex: {e}"))?;
        let n = vars.len();
        let names: Vec<Option<&str>> = regex.capture_names().collect();
        let vars = vars
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let group = format!("v{i}");
                let index = names.iter().position(|n| *n == Some(group.as_str()));
                (name, index.unwrap_or(usize::MAX))
            })
            .collect();
        // The root template has no segment to compare; the regex serves it.
        let segments = segments.filter(|s| !s.is_empty());
        Ok(Self {
            regex,
            vars,
            segments,
            specificity: (wildcards, n, std::cmp::Reverse(literal)),
        })
    }

    /// The variables of `path` (percent-decoded) if it matches.
    pub(crate) fn matches(&self, path: &str) -> Option<Vec<(String, String)>> {
        if let Some(segments) = &self.segments {
            return self.matches_segments(segments, path);
        }
        let caps = self.regex.captures(path)?;
        let mut out = Vec::with_capacity(self.vars.len());
        for (name, group) in &self.vars {
            let raw = caps.get(*group).map_or("", |m| m.as_str());
            out.push((name.clone(), super::form::percent_decode(raw, false)));
        }
        Some(out)
    }

    /// [`Self::matches`] for a template of literal segments and `{name}` variables: the same
    /// answers as its regex (`^/a/(?P<v0>[^/]+)/?$`), one trailing slash allowed.
    fn matches_segments(&self, segments: &[Segment], path: &str) -> Option<Vec<(String, String)>> {
        let rest = path.strip_prefix('/')?;
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let mut parts = rest.split('/');
        let mut vars = self.vars.iter();
        let mut out = Vec::with_capacity(self.vars.len());
        for segment in segments {
            let part = parts.next()?;
            match segment {
                Segment::Literal(text) if text == part => {}
                Segment::Var if !part.is_empty() => {
                    let (name, _) = vars.next()?;
                    out.push((name.clone(), super::form::percent_decode(part, false)));
                }
                _ => return None,
            }
        }
        parts.next().is_none().then_some(out)
    }
}

/// The segment as [`PathTemplate::matches_segments`] compares it, if it can: literal text
/// without wildcards, or exactly one `{name}` without a pattern.
fn simple_segment(seg: &str) -> Option<Segment> {
    if let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
        let plain =
            !name.is_empty() && !name.starts_with('*') && !name.contains(['{', '}', ':', '/']);
        return plain.then_some(Segment::Var);
    }
    if seg.contains(['{', '}', '*']) {
        return None;
    }
    Some(Segment::Literal(seg.to_owned()))
}

/// The offset of the `}` closing the `{` at the start of `s` (regexes may nest braces).
fn matching_close(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(t: &str, p: &str) -> Option<Vec<(String, String)>> {
        PathTemplate::compile(t).unwrap().matches(p)
    }

    #[test]
    fn templates() {
        assert_eq!(
            vars("/users/{id}", "/users/7"),
            Some(vec![("id".into(), "7".into())])
        );
        assert_eq!(
            vars("/users/{id}", "/users/7/"),
            Some(vec![("id".into(), "7".into())])
        );
        assert_eq!(vars("/users/{id}", "/users/7/x"), None);
        assert_eq!(vars("/users/{id}", "/users/"), None);
        assert_eq!(
            vars("/users/{id}", "/users/a%20b"),
            Some(vec![("id".into(), "a b".into())])
        );
        assert_eq!(vars(r"/v/{n:\d{2}}", "/v/12").unwrap()[0].1, "12");
        assert_eq!(vars(r"/v/{n:\d{2}}", "/v/123"), None);
        assert_eq!(vars("/files/*.txt", "/files/a.txt"), Some(vec![]));
        assert_eq!(vars("/files/*.txt", "/files/a.png"), None);
        assert_eq!(vars("/static/**", "/static/a/b/c"), Some(vec![]));
        assert_eq!(vars("/static/**", "/static"), Some(vec![]));
        assert_eq!(vars("/raw/{*rest}", "/raw/a/b").unwrap()[0].1, "a/b");
        assert_eq!(vars("/a.b/{x}", "/aXb/1"), None);
        assert!(PathTemplate::compile("/v/{n:(}").is_err());
        assert!(PathTemplate::compile("/v/{n").is_err());
        assert_eq!(vars("/", "/"), Some(vec![]));
        assert_eq!(
            vars("/users/{id}/", "/users/7"),
            Some(vec![("id".into(), "7".into())])
        );
        let lit = PathTemplate::compile("/users/form").unwrap().specificity;
        let var = PathTemplate::compile("/users/{id}").unwrap().specificity;
        let any = PathTemplate::compile("/users/**").unwrap().specificity;
        assert!(lit < var && var < any);
    }

    /// Segment matching answers exactly as the template's regex, on paths that differ by one
    /// slash, an empty segment, a percent escape or a suffix.
    #[test]
    fn segments_agree_with_the_regex() {
        let templates = [
            "/users/{id}",
            "/users/{id}/",
            "/users/form",
            "/a/{x}/b/{y}",
            "/a.b/{x}",
            "/v1/users",
            "/x//{y}",
        ];
        let paths = [
            "",
            "/",
            "/users",
            "/users/",
            "/users/7",
            "/users/7/",
            "/users/7//",
            "/users//",
            "/users/form",
            "/users/form/",
            "/users/a%20b",
            "/Users/7",
            "/users/7/x",
            "/a/1/b/2",
            "/a/1/b/2/",
            "/a//b/2",
            "/a/1/b",
            "/a/1/c/2",
            "/a.b/1",
            "/aXb/1",
            "/v1/users",
            "/v1/users/",
            "/v1/usersx",
            "//users/7",
            "/x//1",
            "/x/1",
            "users/7",
        ];
        for t in templates {
            let compiled = PathTemplate::compile(t).unwrap();
            let segments = compiled.segments.as_deref().unwrap();
            for p in paths {
                let by_regex = compiled.regex.captures(p).map(|caps| {
                    compiled
                        .vars
                        .iter()
                        .map(|(n, g)| {
                            let raw = caps.get(*g).map_or("", |m| m.as_str());
                            (
                                n.clone(),
                                crate::server::rest::form::percent_decode(raw, false),
                            )
                        })
                        .collect::<Vec<_>>()
                });
                assert_eq!(
                    compiled.matches_segments(segments, p),
                    by_regex,
                    "template {t:?}, path {p:?}"
                );
            }
        }
        for complex in [
            "/files/*.txt",
            "/static/**",
            "/raw/{*rest}",
            r"/v/{n:\d+}",
            "/f/{id}.json",
            "/",
        ] {
            assert!(
                PathTemplate::compile(complex).unwrap().segments.is_none(),
                "{complex}"
            );
        }
    }
}
