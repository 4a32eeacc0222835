//! Value matchers shared by tag rules and override rules (Java's mesh-rule `StringMatch`,
//! `ListStringMatch` and the rules' `ParamMatch`).

use dubbo_url::Url;
use regex::Regex;
use serde_yaml_ng::Mapping;

use crate::router::yaml;

/// Java `StringMatch`: the first condition set decides (exact, prefix, regex, wildcard,
/// empty, noempty).
#[derive(Debug, Clone)]
pub(crate) enum StringMatch {
    Exact(String),
    Prefix(String),
    /// Matches the whole input (Java `String.matches`).
    Regex(Regex),
    /// Only `*` is a wildcard: equal text, or `*` matching anything present.
    Wildcard(String),
    Empty,
    NoEmpty,
    /// No condition: matches nothing.
    Nothing,
}

/// A `regex` matcher whose expression does not compile.
#[derive(Debug)]
pub(crate) struct BadRegex {
    pub(crate) regex: String,
    pub(crate) source: regex::Error,
}

impl StringMatch {
    /// Reads a matcher from its YAML mapping (`{exact: v}`, `{regex: v}`, ...).
    pub(crate) fn parse(map: &Mapping) -> Result<Self, BadRegex> {
        let get = |k: &str| yaml::string(map, k);
        Ok(if let Some(v) = get("exact") {
            StringMatch::Exact(v)
        } else if let Some(v) = get("prefix") {
            StringMatch::Prefix(v)
        } else if let Some(v) = get("regex") {
            let anchored = format!("^(?:{v})$");
            match Regex::new(&anchored) {
                Ok(r) => StringMatch::Regex(r),
                Err(source) => return Err(BadRegex { regex: v, source }),
            }
        } else if let Some(v) = get("wildcard") {
            StringMatch::Wildcard(v)
        } else if get("empty").is_some() {
            StringMatch::Empty
        } else if get("noempty").is_some() {
            StringMatch::NoEmpty
        } else {
            StringMatch::Nothing
        })
    }

    pub(crate) fn is_match(&self, input: Option<&str>) -> bool {
        match (self, input) {
            (StringMatch::Exact(v), Some(i)) => i == v,
            (StringMatch::Prefix(v), Some(i)) => i.starts_with(v.as_str()),
            (StringMatch::Regex(r), Some(i)) => r.is_match(i),
            (StringMatch::Wildcard(v), Some(i)) => i == v || v == "*",
            (StringMatch::Empty, i) => i.is_none_or(str::is_empty),
            (StringMatch::NoEmpty, i) => i.is_some_and(|i| !i.is_empty()),
            _ => false,
        }
    }
}

/// Compared by their source text: rules are compared to tell a real change from a re-push.
impl PartialEq for StringMatch {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (StringMatch::Exact(a), StringMatch::Exact(b))
            | (StringMatch::Prefix(a), StringMatch::Prefix(b))
            | (StringMatch::Wildcard(a), StringMatch::Wildcard(b)) => a == b,
            (StringMatch::Regex(a), StringMatch::Regex(b)) => a.as_str() == b.as_str(),
            (StringMatch::Empty, StringMatch::Empty)
            | (StringMatch::NoEmpty, StringMatch::NoEmpty)
            | (StringMatch::Nothing, StringMatch::Nothing) => true,
            _ => false,
        }
    }
}

/// One `{key, value}` condition on a URL parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ParamMatch {
    pub(crate) key: String,
    /// `None`: no `value` given, matches nothing (Java).
    pub(crate) value: Option<StringMatch>,
}

impl ParamMatch {
    /// Whether `url`'s parameter `key` satisfies the value matcher.
    pub(crate) fn is_match(&self, url: &Url) -> bool {
        self.value
            .as_ref()
            .is_some_and(|v| v.is_match(url.parameter(&self.key)))
    }
}
