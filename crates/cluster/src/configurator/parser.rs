//! Reading an override rule's YAML into entries (Java `ConfigParser`).
//!
//! A rule is either the v2.7/v3.0 document (`configVersion`, `scope`, `key`, `enabled`,
//! `configs`) or, as Java also accepts, a list of `override://` URL strings.

use dubbo_url::keys::{ANYHOST_VALUE, ANY_VALUE, PROVIDER};
use dubbo_url::Url;
use serde_yaml_ng::{Mapping, Value};

use super::condition_match::ConditionMatch;
use super::configurator::{Configurator, CONFIG_VERSION, PROVIDER_ADDRESSES};
use crate::router::{yaml, RuleError};

/// The category of entries from a service-scope rule (and of every rule's parameters).
const DYNAMIC_CONFIGURATORS_CATEGORY: &str = "dynamicconfigurators";
/// The category of entries from an application-scope rule.
const APP_DYNAMIC_CONFIGURATORS_CATEGORY: &str = "appdynamicconfigurators";
/// Items whose `enabled` is the rule's rather than their own.
const GENERAL_TYPE: &str = "general";
/// Parameters a rule from the config centre may not set: they would let whoever writes rules
/// load scripts or files into the consumer (Java `AbstractConfiguratorListener.securityKey`).
const SECURITY_KEYS: [&str; 5] = ["accesslog.fixed.path", "router", "rule", "runtime", "type"];

/// The entries of the rule `text`, in the order the rule lists them.
pub(crate) fn parse(text: &str) -> Result<Vec<Configurator>, RuleError> {
    let entries = match yaml::parse_document(text, "override")? {
        Value::Sequence(items) => url_list(&items)?,
        Value::Mapping(map) => document(&map)?,
        other => {
            return Err(RuleError::Override {
                field: "(document)".to_owned(),
                reason: format!("expected a mapping of rule fields, found {other:?}"),
            })
        }
    };
    Ok(entries
        .into_iter()
        .map(|c| c.without_parameters(&SECURITY_KEYS))
        .collect())
}

/// Java's compatible form: `["override://...", ...]`.
fn url_list(items: &[Value]) -> Result<Vec<Configurator>, RuleError> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = format!("[{i}]");
            let text = yaml::scalar(item).ok_or_else(|| bad(&field, "not a URL string"))?;
            let url = Url::parse(text.trim())
                .map_err(|e| bad(&field, &format!("`{text}` is not a URL: {e}")))?;
            Configurator::from_url(url).ok_or_else(|| {
                bad(
                    &field,
                    &format!("`{text}` is not an override:// or absent:// URL"),
                )
            })
        })
        .collect()
}

/// The fields of a rule document that shape every entry.
struct Rule {
    version: String,
    application_scope: bool,
    key: String,
    enabled: bool,
}

fn document(map: &Mapping) -> Result<Vec<Configurator>, RuleError> {
    let key = yaml::string(map, "key")
        .filter(|k| !k.trim().is_empty())
        .ok_or_else(|| bad("key", "missing: name the service or application"))?;
    let rule = Rule {
        // Java writes whatever it found, `null` included; any value selects the 2.7+ matching.
        version: yaml::string(map, CONFIG_VERSION).unwrap_or_else(|| "null".to_owned()),
        application_scope: yaml::string(map, "scope").as_deref() == Some("application"),
        key,
        enabled: yaml::boolean(map, "enabled").unwrap_or(true),
    };
    let items = match map.get("configs") {
        Some(Value::Sequence(items)) => items,
        Some(_) => return Err(bad("configs", "not a list of entries")),
        None => return Err(bad("configs", "missing")),
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = format!("configs[{i}]");
        let Value::Mapping(item) = item else {
            return Err(bad(&field, "not a mapping"));
        };
        out.extend(item_entries(&rule, item, &field)?);
    }
    Ok(out)
}

/// One `configs[]` item as read.
struct Item {
    side: Option<String>,
    addresses: Vec<String>,
    provider_addresses: Vec<String>,
    services: Vec<String>,
    applications: Vec<String>,
    parameters: Vec<(String, String)>,
    /// What goes after `enabled=`: the rule's flag for general items, the item's own
    /// (`null` when absent, which Java reads as off) for typed ones.
    enabled: String,
    condition: Option<ConditionMatch>,
}

fn read_item(rule: &Rule, map: &Mapping, field: &str) -> Result<Item, RuleError> {
    let parameters = match map.get("parameters") {
        Some(Value::Mapping(p)) if !p.is_empty() => p
            .iter()
            .map(|(k, v)| {
                let key = yaml::scalar(k)
                    .ok_or_else(|| bad(&format!("{field}.parameters"), "a key is not a scalar"))?;
                let value = yaml::scalar(v).ok_or_else(|| {
                    bad(
                        &format!("{field}.parameters.{key}"),
                        "the value is not a scalar",
                    )
                })?;
                Ok((key, value))
            })
            .collect::<Result<Vec<_>, RuleError>>()?,
        Some(Value::Mapping(_)) | None | Some(Value::Null) => {
            return Err(bad(
                &format!("{field}.parameters"),
                "missing: name at least one parameter to change",
            ))
        }
        Some(_) => return Err(bad(&format!("{field}.parameters"), "not a mapping")),
    };
    let kind = yaml::string(map, "type");
    let enabled = if kind.is_none() || kind.as_deref() == Some(GENERAL_TYPE) {
        rule.enabled.to_string()
    } else {
        yaml::boolean(map, "enabled").map_or_else(|| "null".to_owned(), |b| b.to_string())
    };
    let condition = match map.get("match") {
        None | Some(Value::Null) => None,
        Some(Value::Mapping(m)) => Some(ConditionMatch::parse(m, &format!("{field}.match"))?),
        Some(_) => return Err(bad(&format!("{field}.match"), "not a mapping")),
    };
    Ok(Item {
        side: yaml::string(map, "side"),
        addresses: list(map, "addresses"),
        provider_addresses: list(map, "providerAddresses"),
        services: list(map, "services"),
        applications: list(map, "applications"),
        parameters,
        enabled,
        condition,
    })
}

/// The entries of one item: one per address (`0.0.0.0` when none), times one per service
/// (application scope) or per application (service scope, when listed).
fn item_entries(rule: &Rule, map: &Mapping, field: &str) -> Result<Vec<Configurator>, RuleError> {
    let item = read_item(rule, map, field)?;
    let addresses = if item.addresses.is_empty() {
        vec![ANYHOST_VALUE.to_owned()]
    } else {
        item.addresses.clone()
    };
    let mut texts = Vec::new();
    for address in &addresses {
        if rule.application_scope {
            let services = if item.services.is_empty() {
                vec![ANY_VALUE.to_owned()]
            } else {
                item.services.clone()
            };
            for service in &services {
                let service = service_path(service, &format!("{field}.services"))?;
                texts.push(format!(
                    "override://{address}/{service}{}&application={}&enabled={}&category={APP_DYNAMIC_CONFIGURATORS_CATEGORY}&{CONFIG_VERSION}={}",
                    parameter_text(&item, &addresses),
                    rule.key,
                    item.enabled,
                    rule.version
                ));
            }
        } else {
            let base = format!(
                "override://{address}/{}{}&enabled={}&{CONFIG_VERSION}={}",
                service_path(&rule.key, "key")?,
                parameter_text(&item, &addresses),
                item.enabled,
                rule.version
            );
            if item.applications.is_empty() {
                texts.push(base);
            } else {
                texts.extend(
                    item.applications
                        .iter()
                        .map(|app| format!("{base}&application={app}")),
                );
            }
        }
    }
    texts
        .into_iter()
        .map(|text| {
            let url = Url::parse(&text)
                .map_err(|e| bad(field, &format!("gives the invalid URL `{text}`: {e}")))?;
            Configurator::from_url(url)
                .map(|c| c.with_condition(item.condition.clone()))
                .ok_or_else(|| bad(field, "gives no override URL"))
        })
        .collect()
}

/// `interface?group=g&version=v&` from `g/interface:v` (Java `ConfigParser.appendService`).
fn service_path(service: &str, field: &str) -> Result<String, RuleError> {
    if service.is_empty() {
        return Err(bad(field, "an empty service name"));
    }
    let mut query = String::new();
    let mut interface = service;
    if let Some(i) = interface.find('/').filter(|&i| i > 0) {
        query.push_str(&format!("group={}&", &interface[..i]));
        interface = &interface[i + 1..];
    }
    if let Some(j) = interface.find(':').filter(|&j| j > 0) {
        query.push_str(&format!("version={}&", &interface[j + 1..]));
        interface = &interface[..j];
    }
    Ok(format!("{interface}?{query}"))
}

/// `category=...&side=...&k=v...&providerAddresses=...` (Java `ConfigParser.toParameterString`).
fn parameter_text(item: &Item, addresses: &[String]) -> String {
    let mut text = format!("category={DYNAMIC_CONFIGURATORS_CATEGORY}");
    if let Some(side) = &item.side {
        text.push_str(&format!("&side={side}"));
    }
    for (k, v) in &item.parameters {
        text.push_str(&format!("&{k}={v}"));
    }
    if !item.provider_addresses.is_empty() {
        text.push_str(&format!(
            "&{PROVIDER_ADDRESSES}={}",
            item.provider_addresses.join(",")
        ));
    } else if item.side.as_deref() == Some(PROVIDER) {
        // A provider-side item's addresses are the providers it is for.
        text.push_str(&format!("&{PROVIDER_ADDRESSES}={}", addresses.join(",")));
    }
    text
}

/// The scalars of the list `map[field]`; empty when absent or not a list (as Java ignores it).
fn list(map: &Mapping, field: &str) -> Vec<String> {
    match map.get(field) {
        Some(Value::Sequence(items)) => items.iter().filter_map(yaml::scalar).collect(),
        _ => Vec::new(),
    }
}

fn bad(field: &str, reason: &str) -> RuleError {
    RuleError::Override {
        field: field.to_owned(),
        reason: reason.to_owned(),
    }
}
