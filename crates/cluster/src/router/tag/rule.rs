//! Tag rules as written in YAML, and their tags resolved to provider addresses.

use std::collections::{HashMap, HashSet};

use dubbo_core::InvokerList;
use regex::Regex;
use serde_yaml_ng::{Mapping, Value};

use crate::router::yaml;
use crate::router::RuleError;

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

impl StringMatch {
    fn parse(tag: &str, map: &Mapping) -> Result<Self, RuleError> {
        let get = |k: &str| yaml::string(map, k);
        Ok(if let Some(v) = get("exact") {
            StringMatch::Exact(v)
        } else if let Some(v) = get("prefix") {
            StringMatch::Prefix(v)
        } else if let Some(v) = get("regex") {
            let anchored = format!("^(?:{v})$");
            StringMatch::Regex(Regex::new(&anchored).map_err(|source| RuleError::Regex {
                tag: tag.to_owned(),
                regex: v,
                source,
            })?)
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

/// One `{key, value}` of a tag's `match`: a provider URL parameter and how it must look.
#[derive(Debug, Clone)]
pub(crate) struct ParamMatch {
    pub(crate) key: String,
    /// `None`: no `value` given, matches nothing (Java).
    pub(crate) value: Option<StringMatch>,
}

/// One tag of a rule.
#[derive(Debug, Clone)]
pub(crate) struct Tag {
    pub(crate) name: String,
    pub(crate) addresses: Vec<String>,
    /// Only read for `configVersion: v3.0...` rules (Java).
    pub(crate) matches: Option<Vec<ParamMatch>>,
}

/// A parsed tag rule.
#[derive(Debug, Clone)]
pub struct TagRule {
    /// `configVersion`, if given.
    pub version: Option<String>,
    /// `key`: the provider application the rule is for.
    pub key: Option<String>,
    /// `force`: a request whose tag names providers in the rule never falls back.
    pub force: bool,
    /// `runtime`: when `Some(true)`, route every call (no caching).
    pub runtime: Option<bool>,
    /// `enabled`: a disabled rule routes by providers' static `dubbo.tag` only.
    pub enabled: bool,
    pub(crate) tags: Vec<Tag>,
}

impl TagRule {
    /// Parses a rule from its YAML text.
    pub fn from_yaml(text: &str) -> Result<Self, RuleError> {
        let map = yaml::parse_mapping(text, "tag")?;
        let version = yaml::string(&map, "configVersion");
        let v30 = version.as_deref().is_some_and(|v| v.starts_with("v3.0"));
        let tags = match map.get("tags") {
            Some(Value::Sequence(items)) if !items.is_empty() => items
                .iter()
                .map(|item| parse_tag(item, v30))
                .collect::<Result<Vec<_>, _>>()?,
            _ => return Err(RuleError::Empty("tag", "tags")),
        };
        Ok(Self {
            version,
            key: yaml::string(&map, "key"),
            force: yaml::boolean(&map, "force").unwrap_or(false),
            runtime: yaml::boolean(&map, "runtime"),
            enabled: yaml::boolean(&map, "enabled").unwrap_or(true),
            tags,
        })
    }

    /// Whether some tag is defined by `match` and so depends on the provider snapshot.
    pub(crate) fn has_match_tags(&self) -> bool {
        self.tags
            .iter()
            .any(|t| t.matches.is_some() && t.addresses.is_empty())
    }

    /// Java `TagRouterRule.init`: tag name to addresses, from `addresses` and from `match`
    /// evaluated on `snapshot` (a `match` tag no provider satisfies is left out).
    pub(crate) fn resolve(
        &self,
        snapshot: Option<&InvokerList>,
    ) -> HashMap<String, HashSet<String>> {
        let mut out: HashMap<String, HashSet<String>> = HashMap::new();
        for tag in self.tags.iter().filter(|t| !t.addresses.is_empty()) {
            out.insert(tag.name.clone(), tag.addresses.iter().cloned().collect());
        }
        let Some(snapshot) = snapshot.filter(|s| !s.is_empty()) else {
            return out;
        };
        for tag in self.tags.iter().filter(|t| t.addresses.is_empty()) {
            let Some(matches) = &tag.matches else {
                continue;
            };
            let addresses: HashSet<String> = snapshot
                .iter()
                .filter(|i| {
                    let url = i.url();
                    matches.iter().all(|m| {
                        m.value
                            .as_ref()
                            .is_some_and(|v| v.is_match(url.parameter(&m.key)))
                    })
                })
                .map(|i| i.url().address())
                .collect();
            if !addresses.is_empty() {
                out.insert(tag.name.clone(), addresses);
            }
        }
        out
    }
}

fn parse_tag(item: &Value, v30: bool) -> Result<Tag, RuleError> {
    let Value::Mapping(map) = item else {
        return Err(RuleError::Field {
            field: "tags",
            value: format!("{item:?}"),
            expected: "a mapping with `name`",
        });
    };
    let name = yaml::string(map, "name").unwrap_or_default();
    let addresses = match map.get("addresses") {
        Some(Value::Sequence(items)) => items.iter().filter_map(yaml::scalar).collect(),
        _ => Vec::new(),
    };
    let matches = match map.get("match") {
        Some(Value::Sequence(items)) if v30 => Some(
            items
                .iter()
                .map(|m| {
                    let Value::Mapping(m) = m else {
                        return Err(RuleError::TagMatch {
                            tag: name.clone(),
                            reason: format!("match entry {m:?} is not a mapping"),
                        });
                    };
                    let key = yaml::string(m, "key").ok_or_else(|| RuleError::TagMatch {
                        tag: name.clone(),
                        reason: "match entry has no `key`".to_owned(),
                    })?;
                    let value = match m.get("value") {
                        Some(Value::Mapping(v)) => Some(StringMatch::parse(&name, v)?),
                        _ => None,
                    };
                    Ok(ParamMatch { key, value })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
        _ => None,
    };
    Ok(Tag {
        name,
        addresses,
        matches,
    })
}
