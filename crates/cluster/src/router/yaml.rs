//! Reading rule fields from YAML the lenient way Java Dubbo does (`String.valueOf`,
//! `Boolean.parseBoolean`, `Integer.parseInt` on whatever scalar is there).

use serde_yaml_ng::{Mapping, Value};

use super::RuleError;

/// Parses `text` into a YAML value of any shape.
pub(crate) fn parse_document(text: &str, kind: &'static str) -> Result<Value, RuleError> {
    serde_yaml_ng::from_str::<Value>(text).map_err(|source| RuleError::Yaml { kind, source })
}

/// Parses `text` into a YAML mapping.
pub(crate) fn parse_mapping(text: &str, kind: &'static str) -> Result<Mapping, RuleError> {
    match parse_document(text, kind)? {
        Value::Mapping(map) => Ok(map),
        other => Err(RuleError::Field {
            field: "(document)",
            value: scalar(&other).unwrap_or_else(|| format!("{other:?}")),
            expected: "a mapping of rule fields",
        }),
    }
}

/// A scalar's text as Java's `String.valueOf` gives it; `None` for null, lists and maps.
pub(crate) fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Tagged(t) => scalar(&t.value),
        _ => None,
    }
}

/// The text of `map[field]`, if present and a scalar.
pub(crate) fn string(map: &Mapping, field: &str) -> Option<String> {
    map.get(field).and_then(scalar)
}

/// `map[field]` as Java's `Boolean.parseBoolean(String.valueOf(..))`: `true` in any case is
/// true, anything else false; `None` when absent.
pub(crate) fn boolean(map: &Mapping, field: &str) -> Option<bool> {
    string(map, field).map(|s| s.eq_ignore_ascii_case("true"))
}

/// `map[field]` as an `i32`; `None` when absent, an error when not an integer.
pub(crate) fn integer(map: &Mapping, field: &'static str) -> Result<Option<i32>, RuleError> {
    string(map, field)
        .map(|s| {
            s.trim().parse().map_err(|_| RuleError::Field {
                field,
                value: s,
                expected: "an integer",
            })
        })
        .transpose()
}
