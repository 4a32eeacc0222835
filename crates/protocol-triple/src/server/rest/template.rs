//! Path templates as Spring MVC and JAX-RS write them, compiled to one regex each:
//! `/users/{id}`, `/v/{n:\d+}`, `/files/*.txt` (`*`: any text inside one segment),
//! `/static/**` (any number of segments), `/raw/{*rest}` (the rest of the path, slashes
//! included).

use regex::Regex;

/// A compiled path template.
#[derive(Debug)]
pub(crate) struct PathTemplate {
    regex: Regex,
    /// Variable names, in the order of their groups (`v0`, `v1`...).
    vars: Vec<String>,
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
        for seg in body.split('/').skip(1) {
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
        Ok(Self {
            regex,
            vars,
            specificity: (wildcards, n, std::cmp::Reverse(literal)),
        })
    }

    /// The variables of `path` (percent-decoded) if it matches.
    pub(crate) fn matches(&self, path: &str) -> Option<Vec<(String, String)>> {
        let caps = self.regex.captures(path)?;
        let mut out = Vec::with_capacity(self.vars.len());
        for (i, name) in self.vars.iter().enumerate() {
            let raw = caps.name(&format!("v{i}")).map_or("", |m| m.as_str());
            out.push((name.clone(), super::form::percent_decode(raw, false)));
        }
        Some(out)
    }
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
        let lit = PathTemplate::compile("/users/form").unwrap().specificity;
        let var = PathTemplate::compile("/users/{id}").unwrap().specificity;
        let any = PathTemplate::compile("/users/**").unwrap().specificity;
        assert!(lit < var && var < any);
    }
}
