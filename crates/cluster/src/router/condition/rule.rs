//! Condition rules as written in YAML: `configVersion` v3.0 (a list of `when => then`
//! strings) or v3.1 (`from`/`to` with weighted destinations).

use serde_yaml_ng::{Mapping, Value};

use super::matcher::ConditionMatcher;
use super::parser::{parse_condition, parse_terms, Condition};
use crate::router::yaml;
use crate::router::RuleError;

/// The weight of a v3.1 destination without one, or with one of 0 or less (Java
/// `DefaultRouteConditionSubSetWeight`).
pub const DEFAULT_DESTINATION_WEIGHT: u32 = 100;

/// Whether a rule applies to one service or to a whole application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleScope {
    /// `scope: service` (the default): key `interface:version:group`; runs at priority 140.
    Service,
    /// `scope: application`: key is an application name; runs at priority 150.
    Application,
    /// A rule read from the providers' application's key (`{provider app}.condition-router`,
    /// Java's `ProviderAppStateRouter`); runs at priority 145.
    ProviderApplication,
}

impl RuleScope {
    /// The router priority of this scope (Java `ServiceStateRouterFactory` order 140,
    /// `ProviderAppStateRouterFactory` 145, `AppStateRouterFactory` 150).
    pub fn priority(self) -> i32 {
        match self {
            RuleScope::Service => 140,
            RuleScope::ProviderApplication => 145,
            RuleScope::Application => 150,
        }
    }
}

/// One v3.1 destination: the providers its terms select, and how often it is chosen.
#[derive(Debug, Clone)]
pub(crate) struct Destination {
    /// Terms a provider must satisfy; empty selects every provider (Java).
    pub(crate) then: Vec<ConditionMatcher>,
    pub(crate) weight: u32,
}

/// One v3.1 condition.
#[derive(Debug, Clone)]
pub(crate) struct MultiDestCondition {
    pub(crate) when: Vec<ConditionMatcher>,
    /// No destination: matching calls are blocked (traffic disabled).
    pub(crate) to: Vec<Destination>,
}

/// The conditions of a rule, in one of the two forms.
#[derive(Debug, Clone)]
pub(crate) enum Conditions {
    /// v3.0 and older.
    Simple(Vec<Condition>),
    /// v3.1.
    MultiDest(Vec<MultiDestCondition>),
}

/// A parsed condition rule.
#[derive(Debug, Clone)]
pub struct ConditionRule {
    /// `configVersion`, if given.
    pub version: Option<String>,
    /// `scope`.
    pub scope: RuleScope,
    /// `key`: the service or application the rule is for.
    pub key: Option<String>,
    /// `force`: keep an empty result instead of falling back to the providers given.
    pub force: bool,
    /// `runtime`: when `Some(true)`, route every call (no caching).
    pub runtime: Option<bool>,
    /// `enabled`: a disabled rule lets every provider pass.
    pub enabled: bool,
    /// `priority` as written; kept for reference (Java orders routers by scope, not by it).
    pub priority: i32,
    pub(crate) conditions: Conditions,
}

impl ConditionRule {
    /// Parses a rule from its YAML text, refusing anything Java Dubbo would not apply.
    pub fn from_yaml(text: &str) -> Result<Self, RuleError> {
        let map = yaml::parse_mapping(text, "condition")?;
        let version = yaml::string(&map, "configVersion");
        let multi = match version.as_deref().map(str::to_ascii_lowercase) {
            Some(v) if v.starts_with("v3.1") => true,
            Some(v) if v.as_str() > "v3.1" => {
                return Err(RuleError::UnsupportedVersion(version.unwrap_or_default()))
            }
            _ => false,
        };
        let scope = match yaml::string(&map, "scope").as_deref() {
            Some("application") => RuleScope::Application,
            _ => RuleScope::Service,
        };
        let conditions = match map.get("conditions") {
            Some(Value::Sequence(items)) if !items.is_empty() => {
                if multi {
                    Conditions::MultiDest(
                        items
                            .iter()
                            .map(parse_multi_dest)
                            .collect::<Result<_, _>>()?,
                    )
                } else {
                    Conditions::Simple(
                        items
                            .iter()
                            .map(|item| {
                                let text = yaml::scalar(item).ok_or_else(|| RuleError::Field {
                                    field: "conditions",
                                    value: format!("{item:?}"),
                                    expected: "a `when => then` string",
                                })?;
                                parse_condition(&text)
                            })
                            .collect::<Result<_, _>>()?,
                    )
                }
            }
            _ => return Err(RuleError::Empty("condition", "conditions")),
        };
        Ok(Self {
            version,
            scope,
            key: yaml::string(&map, "key"),
            force: yaml::boolean(&map, "force").unwrap_or(false),
            runtime: yaml::boolean(&map, "runtime"),
            enabled: yaml::boolean(&map, "enabled").unwrap_or(true),
            priority: yaml::integer(&map, "priority")?.unwrap_or(0),
            conditions,
        })
    }

    /// Whether any term reads call arguments (results then depend on more than the method).
    pub(crate) fn reads_arguments(&self) -> bool {
        self.terms()
            .any(|t| matches!(t.source(), super::matcher::Source::Argument(_)))
    }

    /// Every left-side term (the ones that read the call).
    pub(crate) fn terms(&self) -> impl Iterator<Item = &ConditionMatcher> {
        let (simple, multi) = match &self.conditions {
            Conditions::Simple(c) => (c.as_slice(), &[][..]),
            Conditions::MultiDest(c) => (&[][..], c.as_slice()),
        };
        simple
            .iter()
            .flat_map(|c| c.when.iter())
            .chain(multi.iter().flat_map(|c| c.when.iter()))
    }
}

fn match_text(map: &Mapping) -> Option<String> {
    yaml::string(map, "match")
}

fn parse_multi_dest(item: &Value) -> Result<MultiDestCondition, RuleError> {
    let not_map = |field: &'static str, v: &Value| RuleError::Field {
        field,
        value: format!("{v:?}"),
        expected: "a mapping with `match`",
    };
    let Value::Mapping(cond) = item else {
        return Err(not_map("conditions", item));
    };
    let when = match cond.get("from") {
        None | Some(Value::Null) => None,
        Some(Value::Mapping(from)) => match_text(from),
        Some(other) => return Err(not_map("from", other)),
    };
    let when = match when.as_deref().map(str::trim) {
        None | Some("") | Some("true") => Vec::new(),
        Some(text) => parse_terms(text)?,
    };
    let to = match cond.get("to") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| {
                let Value::Mapping(dest) = item else {
                    return Err(not_map("to", item));
                };
                let then = match match_text(dest).as_deref().map(str::trim) {
                    None | Some("") | Some("false") => Vec::new(),
                    Some(text) => parse_terms(text)?,
                };
                let weight = match yaml::integer(dest, "weight")? {
                    Some(w) if w > 0 => w.unsigned_abs(),
                    _ => DEFAULT_DESTINATION_WEIGHT,
                };
                Ok(Destination { then, weight })
            })
            .collect::<Result<_, _>>()?,
        Some(other) => return Err(not_map("to", other)),
    };
    Ok(MultiDestCondition { when, to })
}
