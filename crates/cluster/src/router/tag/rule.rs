//! Tag rules as written in YAML, and their tags resolved to provider addresses.

use std::collections::{HashMap, HashSet};

use dubbo_core::InvokerList;
use serde_yaml_ng::Value;

use crate::router::string_match::{ParamMatch, StringMatch};
use crate::router::yaml;
use crate::router::RuleError;

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
                .filter(|i| matches.iter().all(|m| m.is_match(i.url())))
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
                        Some(Value::Mapping(v)) => {
                            Some(StringMatch::parse(v).map_err(|bad| RuleError::Regex {
                                tag: name.clone(),
                                regex: bad.regex,
                                source: bad.source,
                            })?)
                        }
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
