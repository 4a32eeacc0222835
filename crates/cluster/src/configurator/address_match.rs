//! [`AddressMatch`]: the `address` and `providerAddress` conditions of a v3.0 `match`.

use serde_yaml_ng::Mapping;

use dubbo_url::keys::{ANYHOST_VALUE, ANY_VALUE};

use crate::router::tag::address;
use crate::router::yaml;

/// Java's mesh-rule `AddressMatch`: the first condition set decides; `cird` is an IP
/// expression (`10.0.0.0/24`, `10.0.0.*`, `10.0.0.1:20880`), `wildcard` a glob where `*` or
/// `0.0.0.0` alone match anything, `exact` equal text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AddressMatch {
    cird: Option<String>,
    wildcard: Option<String>,
    exact: Option<String>,
}

impl AddressMatch {
    pub(crate) fn parse(map: &Mapping) -> Self {
        Self {
            cird: yaml::string(map, "cird"),
            wildcard: yaml::string(map, "wildcard"),
            exact: yaml::string(map, "exact"),
        }
    }

    /// Whether `input` (a host, or `host:port`) matches; nothing matches an absent input.
    pub(crate) fn is_match(&self, input: Option<&str>) -> bool {
        let Some(input) = input else {
            return false;
        };
        if let Some(cird) = &self.cird {
            let (host, port) = split_host_port(input);
            return input == cird || address::matches(cird, host, port);
        }
        if let Some(wildcard) = &self.wildcard {
            return wildcard == ANYHOST_VALUE
                || wildcard == ANY_VALUE
                || crate::router::glob_matches(wildcard, input);
        }
        self.exact.as_deref() == Some(input)
    }
}

/// `host:port` split at its first `:` (Java `NetUtils.matchIpExpression`); port 0 without one.
fn split_host_port(input: &str) -> (&str, u16) {
    match input.split_once(':') {
        Some((host, port)) => (host, port.parse().unwrap_or(0)),
        None => (input, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(kind: &str, value: &str) -> AddressMatch {
        let map: Mapping =
            serde_yaml_ng::from_str(&format!("{kind}: '{value}'")).unwrap_or_default();
        AddressMatch::parse(&map)
    }

    #[test]
    fn follows_java_address_match() {
        assert!(m("cird", "10.0.0.0/24").is_match(Some("10.0.0.9")));
        assert!(!m("cird", "10.0.0.0/24").is_match(Some("10.0.1.9")));
        assert!(m("cird", "10.0.0.*").is_match(Some("10.0.0.9:20880")));
        assert!(m("wildcard", "*").is_match(Some("anything")));
        assert!(m("wildcard", "0.0.0.0").is_match(Some("10.0.0.1")));
        assert!(m("wildcard", "10.0.0.*").is_match(Some("10.0.0.1:20880")));
        assert!(!m("wildcard", "10.0.0.*").is_match(Some("10.0.1.1")));
        assert!(m("exact", "10.0.0.1:20880").is_match(Some("10.0.0.1:20880")));
        assert!(!m("exact", "10.0.0.1").is_match(Some("10.0.0.1:20880")));
        assert!(!m("exact", "10.0.0.1").is_match(None));
        assert!(!AddressMatch::parse(&Mapping::new()).is_match(Some("10.0.0.1")));
    }
}
