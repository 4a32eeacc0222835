//! [`ConditionMatch`]: the `match` block of a v3.0 override rule entry.

use dubbo_url::keys::APPLICATION;
use dubbo_url::Url;
use serde_yaml_ng::{Mapping, Value};

use super::address_match::AddressMatch;
use crate::router::{yaml, ParamMatch, RuleError, StringMatch};

/// Java `ConditionMatch`: every condition given must hold for the entry to apply.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ConditionMatch {
    /// Against the host the entry is matched on (the consumer's for consumer-side entries).
    address: Option<AddressMatch>,
    /// Against the provider URL's `host:port`.
    provider_address: Option<AddressMatch>,
    /// Against the URL's service key (`group/interface:version`).
    service: Option<OneOf>,
    /// Against the URL's `application`.
    app: Option<OneOf>,
    /// Against the URL's parameters, all of them.
    param: Option<Vec<ParamMatch>>,
}

/// Java `ListStringMatch`: any one of the matchers.
#[derive(Debug, Clone, PartialEq)]
struct OneOf(Vec<StringMatch>);

impl OneOf {
    fn is_match(&self, input: Option<&str>) -> bool {
        self.0.iter().any(|m| m.is_match(input))
    }
}

impl ConditionMatch {
    /// Reads the `match` mapping found at `field` (a path such as `configs[0].match`).
    pub(crate) fn parse(map: &Mapping, field: &str) -> Result<Self, RuleError> {
        let address = |key: &str| -> Result<Option<AddressMatch>, RuleError> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Mapping(m)) => Ok(Some(AddressMatch::parse(m))),
                Some(_) => Err(not_a_mapping(&format!("{field}.{key}"))),
            }
        };
        let one_of = |key: &str| -> Result<Option<OneOf>, RuleError> {
            let path = format!("{field}.{key}");
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::Mapping(m)) => {
                    let items = match m.get("oneof") {
                        None | Some(Value::Null) => &[][..],
                        Some(Value::Sequence(items)) => items.as_slice(),
                        Some(_) => {
                            return Err(RuleError::Override {
                                field: format!("{path}.oneof"),
                                reason: "not a list of string matchers".to_owned(),
                            })
                        }
                    };
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| string_match(item, &format!("{path}.oneof[{i}]")))
                        .collect::<Result<Vec<_>, _>>()
                        .map(|v| Some(OneOf(v)))
                }
                Some(_) => Err(not_a_mapping(&path)),
            }
        };
        let param = match map.get("param") {
            None | Some(Value::Null) => None,
            Some(Value::Sequence(items)) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| param_match(item, &format!("{field}.param[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Some(_) => {
                return Err(RuleError::Override {
                    field: format!("{field}.param"),
                    reason: "not a list of {key, value} conditions".to_owned(),
                })
            }
        };
        Ok(Self {
            address: address("address")?,
            provider_address: address("providerAddress")?,
            service: one_of("service")?,
            app: one_of("app")?,
            param,
        })
    }

    /// Whether `url`, matched on `host`, satisfies every condition given.
    pub(crate) fn is_match(&self, host: &str, url: &Url) -> bool {
        if self
            .address
            .as_ref()
            .is_some_and(|m| !m.is_match(Some(host)))
        {
            return false;
        }
        if self
            .provider_address
            .as_ref()
            .is_some_and(|m| !m.is_match(Some(&url.address())))
        {
            return false;
        }
        if self
            .service
            .as_ref()
            .is_some_and(|m| !m.is_match(url.service_key().as_deref()))
        {
            return false;
        }
        if self
            .app
            .as_ref()
            .is_some_and(|m| !m.is_match(url.parameter(APPLICATION)))
        {
            return false;
        }
        self.param
            .as_ref()
            .is_none_or(|params| params.iter().all(|p| p.is_match(url)))
    }
}

fn not_a_mapping(field: &str) -> RuleError {
    RuleError::Override {
        field: field.to_owned(),
        reason: "not a mapping".to_owned(),
    }
}

fn string_match(item: &Value, field: &str) -> Result<StringMatch, RuleError> {
    let Value::Mapping(m) = item else {
        return Err(not_a_mapping(field));
    };
    StringMatch::parse(m).map_err(|bad| RuleError::Override {
        field: field.to_owned(),
        reason: format!("invalid regex `{}`: {}", bad.regex, bad.source),
    })
}

fn param_match(item: &Value, field: &str) -> Result<ParamMatch, RuleError> {
    let Value::Mapping(m) = item else {
        return Err(not_a_mapping(field));
    };
    let key = yaml::string(m, "key").ok_or_else(|| RuleError::Override {
        field: format!("{field}.key"),
        reason: "missing".to_owned(),
    })?;
    let value = match m.get("value") {
        None | Some(Value::Null) => None,
        Some(v) => Some(string_match(v, &format!("{field}.value"))?),
    };
    Ok(ParamMatch { key, value })
}
