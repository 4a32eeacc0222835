//! One key of a condition and the values it must (`=`) or must not (`!=`) have.

use std::borrow::Cow;

use dubbo_core::{Invocation, Value};
use dubbo_url::Url;

use super::pattern;

/// The value Java's argument matcher reads when the index is out of range: present, so `!=`
/// rules pass, but equal to no sensible pattern.
const NOT_FOUND: &str = "dubbo_internal_not_found_argument_condition_value";

/// Where a condition key reads its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Source {
    /// `arguments[i]`: the i-th argument of the call (`None`: the key does not parse).
    Argument(Option<usize>),
    /// `attachments[k]`: an attachment of the call (`None`: the key does not parse).
    Attachment(Option<String>),
    /// Anything else: a URL parameter or special key (`host`, `port`, `address`, ...), or the
    /// invoked method for `method`/`methods` on the left side.
    Param(String),
}

impl Source {
    /// Java's matcher factories: `attachments...`, then `arguments...`, else a URL parameter.
    fn of(key: &str) -> Self {
        // Java reads only the part before the first `.` (`arguments[0].name` is `arguments[0]`).
        let head = key.split('.').next().unwrap_or(key);
        if key.starts_with("attachments") {
            let inner = head
                .find("attachments[")
                .map(|at| &head[at + "attachments[".len()..])
                .and_then(|rest| rest.rfind(']').map(|end| &rest[..end]))
                .filter(|k| !k.is_empty());
            Source::Attachment(inner.map(str::to_owned))
        } else if key.starts_with("arguments") {
            let index = head
                .find("arguments[")
                .map(|at| &head[at + "arguments[".len()..])
                .and_then(|rest| {
                    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                    (digits > 0 && rest[digits..].starts_with(']')).then(|| &rest[..digits])
                })
                .and_then(|d| d.parse().ok());
            Source::Argument(index)
        } else {
            Source::Param(key.to_owned())
        }
    }
}

/// One `key = a,b & ...` / `key != c` term.
#[derive(Debug, Clone)]
pub(crate) struct ConditionMatcher {
    pub(crate) key: String,
    source: Source,
    pub(crate) matches: Vec<String>,
    pub(crate) mismatches: Vec<String>,
}

/// What a term is matched against.
pub(crate) struct Sample<'a> {
    /// The URL whose parameters are read: the consumer's on the left, a provider's on the right.
    pub(crate) url: &'a Url,
    /// The call, on the left side only.
    pub(crate) invocation: Option<&'a Invocation>,
    /// The consumer URL `$name` patterns refer to, on the right side only.
    pub(crate) param: Option<&'a Url>,
}

impl ConditionMatcher {
    pub(crate) fn new(key: &str) -> Self {
        Self {
            key: key.to_owned(),
            source: Source::of(key),
            matches: Vec::new(),
            mismatches: Vec::new(),
        }
    }

    /// Where the term reads its value.
    pub(crate) fn source(&self) -> &Source {
        &self.source
    }

    fn value<'a>(&self, sample: &Sample<'a>) -> Option<Cow<'a, str>> {
        match &self.source {
            Source::Argument(index) => {
                // A condition on arguments reads them: a typed or encoded one is made a tree.
                let arg = index.and_then(|i| sample.invocation.and_then(|inv| inv.args().get(i)));
                Some(
                    arg.and_then(|a| a.to_value().ok())
                        .as_ref()
                        .and_then(java_string)
                        .map_or(Cow::Borrowed(NOT_FOUND), Cow::Owned),
                )
            }
            Source::Attachment(None) => Some(Cow::Borrowed(NOT_FOUND)),
            Source::Attachment(Some(k)) => sample
                .invocation
                .and_then(|inv| attachment_text(inv, k))
                .map(Cow::Owned),
            Source::Param(key) => match sample.invocation {
                Some(inv) if key == "method" || key == "methods" => {
                    Some(Cow::Owned(inv.method_name().to_owned()))
                }
                _ => url_value(sample.url, key),
            },
        }
    }

    /// Java `AbstractConditionMatcher.isMatch`: an absent value never matches; a `!=` value
    /// that matches wins over any `=` value.
    pub(crate) fn is_match(&self, sample: &Sample<'_>, when_side: bool) -> bool {
        let Some(value) = self.value(sample) else {
            return false;
        };
        let hit = |p: &String| pattern::matches(p, &value, sample.param, when_side);
        if self.mismatches.iter().any(hit) {
            return false;
        }
        if self.matches.is_empty() {
            return !self.mismatches.is_empty();
        }
        self.matches.iter().any(hit)
    }
}

/// The attachment `key` of `invocation` as text (Java `getAttachment`).
pub(crate) fn attachment_text(invocation: &Invocation, key: &str) -> Option<String> {
    invocation.attachments().get(key).and_then(java_string)
}

/// The value of `key` in `url` as Java's `URL.toOriginalMap` has it: the parameters plus
/// `protocol`, `username`, `password`, `host`, `port` (when not 0), `path` and `address`.
pub(crate) fn url_value<'a>(url: &'a Url, key: &str) -> Option<Cow<'a, str>> {
    let special = match key {
        "protocol" => url.protocol().map(Cow::Borrowed),
        "username" => url.username().map(Cow::Borrowed),
        "password" => url.password().map(Cow::Borrowed),
        "host" => url.host().map(Cow::Borrowed),
        "port" => (url.port() > 0).then(|| Cow::Owned(url.port().to_string())),
        "path" => url.path().map(Cow::Borrowed),
        "address" => url.host().map(|_| Cow::Owned(url.address())),
        _ => return url.parameter(key).map(Cow::Borrowed),
    };
    special.or_else(|| url.parameter(key).map(Cow::Borrowed))
}

/// Java's `String.valueOf` of a scalar argument; `None` for values whose Java `toString`
/// cannot be reproduced (objects, maps, dates, binary).
fn java_string(value: &Value) -> Option<String> {
    Some(match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Long(l) => l.to_string(),
        Value::Double(d) if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e7 => format!("{d:.1}"),
        Value::Double(d) => d.to_string(),
        Value::String(s) => s.clone(),
        // A Java array's `toString` is `[Ljava.lang.String;@1b6d3586`: not reproducible.
        Value::List(list)
            if list
                .type_name
                .as_deref()
                .is_some_and(|t| t.starts_with('[')) =>
        {
            return None
        }
        Value::List(list) => {
            let items: Option<Vec<String>> = list.items.iter().map(java_string).collect();
            format!("[{}]", items?.join(", "))
        }
        _ => return None,
    })
}
