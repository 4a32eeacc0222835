//! `getConfig [TYPE [ID]]`: the configuration the application runs with, after the YAML, the
//! builder, the config centre's external configuration and the environment were merged: what
//! an operator needs to see when a setting seems not to apply.
//!
//! Types have Java's names (`ApplicationConfig`, `ProtocolConfig`, `ServiceConfig`, ...); the
//! values are printed as the YAML keys this application reads. Secrets (`token`, `password`,
//! the secret access key as `secret-access-key` or a `.secretAccessKey` parameter) are masked.

use serde_yaml_ng::{Mapping, Value};

use crate::config::DubboConfig;

/// Java's config type and the sections of the configuration that hold it.
const TYPES: &[(&str, &[&str])] = &[
    ("ApplicationConfig", &["application"]),
    ("ProtocolConfig", &["protocol", "protocols"]),
    ("RegistryConfig", &["registry", "registries"]),
    ("ConfigCenterConfig", &["config-center"]),
    ("ProviderConfig", &["provider"]),
    ("ConsumerConfig", &["consumer"]),
    ("ModuleConfig", &["modules"]),
    ("ServiceConfig", &["services"]),
    ("ReferenceConfig", &["references"]),
    ("MetricsConfig", &["metrics"]),
    ("TracingConfig", &["tracing"]),
    // dubbo-rs's own: the credentials of `auth=true` (secrets masked) and the class lists.
    ("SecurityConfig", &["security"]),
];

/// Keys whose values are not shown.
const SECRETS: &[&str] = &[
    "token",
    "password",
    "secret-access-key",
    dubbo_core::filters::auth::SECRET_ACCESS_KEY_KEY,
];

/// The answer to `getConfig` with `args`.
pub(crate) fn run(app_name: &str, config: &DubboConfig, args: &[String]) -> String {
    let tree = match serde_yaml_ng::to_value(config) {
        Ok(mut t) => {
            mask(&mut t);
            t
        }
        Err(e) => return format!("the configuration cannot be shown: {e}"),
    };
    let wanted: Vec<&(&str, &[&str])> = match args.first() {
        None => TYPES.iter().collect(),
        Some(kind) => match TYPES.iter().find(|(name, _)| name == kind) {
            Some(t) => vec![t],
            None => {
                let known: Vec<&str> = TYPES.iter().map(|(n, _)| *n).collect();
                return format!("no such config type: {kind} (known: {})", known.join(", "));
            }
        },
    };
    let id = args.get(1).map(String::as_str);
    let mut out = format!("ApplicationModel: {app_name}\n");
    for (name, sections) in wanted {
        for section in *sections {
            let Some(value) = tree.get(*section).filter(|v| !is_empty(v)) else {
                continue;
            };
            let is_map = crate::config::ID_SECTIONS.contains(section);
            if is_map {
                let Value::Mapping(entries) = value else {
                    continue;
                };
                for (key, entry) in entries {
                    let key = key.as_str().unwrap_or_default();
                    let interface = entry.get("interface").and_then(Value::as_str);
                    if id.is_some_and(|id| id != key && Some(id) != interface) {
                        continue;
                    }
                    out.push_str(&format!("{name} {key}:\n{}", indented(entry)));
                }
            } else if id.is_none() || *section == "protocol" || *section == "registry" {
                // A singleton has no id but its own (`dubbo.protocol` is named by its name).
                let own = value.get("name").and_then(Value::as_str);
                if id.is_some_and(|id| {
                    Some(id) != own && !(*section == "registry" && id == "default")
                }) {
                    continue;
                }
                out.push_str(&format!("{name}:\n{}", indented(value)));
            }
        }
    }
    out
}

fn mask(value: &mut Value) {
    match value {
        Value::Mapping(map) => {
            for (k, v) in map.iter_mut() {
                if k.as_str().is_some_and(|k| SECRETS.contains(&k)) && !v.is_null() {
                    *v = Value::String("******".to_owned());
                } else {
                    mask(v);
                }
            }
        }
        Value::Sequence(items) => items.iter_mut().for_each(mask),
        _ => {}
    }
}

/// Null values and empty maps carry nothing worth printing.
fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Mapping(m) => m.values().all(is_empty),
        Value::Sequence(s) => s.is_empty(),
        _ => false,
    }
}

/// `value` as YAML without its empty keys, indented two spaces.
fn indented(value: &Value) -> String {
    let pruned = prune(value);
    let text = serde_yaml_ng::to_string(&pruned).unwrap_or_default();
    text.lines().map(|l| format!("  {l}\n")).collect()
}

fn prune(value: &Value) -> Value {
    match value {
        Value::Mapping(m) => {
            let mut out = Mapping::new();
            for (k, v) in m {
                if !is_empty(v) {
                    out.insert(k.clone(), prune(v));
                }
            }
            Value::Mapping(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> DubboConfig {
        DubboConfig::from_yaml(
            "application: {name: shop}\nprotocols: {dubbo: {port: 20880}, tri: {port: 50051}}\nprovider: {token: s3cret, timeout: 300}\nservices: {greeter: {interface: org.demo.Greeter, timeout: 900}}\n",
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn shows_every_type_with_secrets_masked() {
        let out = run("shop", &config(), &[]);
        assert!(out.starts_with("ApplicationModel: shop\n"), "{out}");
        assert!(out.contains("ApplicationConfig:\n  name: shop\n"), "{out}");
        assert!(
            out.contains("ProtocolConfig tri:\n  port: 50051\n"),
            "{out}"
        );
        assert!(out.contains("ProviderConfig:\n"), "{out}");
        assert!(
            out.contains("token: '******'") || out.contains("token: ******"),
            "{out}"
        );
        assert!(!out.contains("s3cret"), "{out}");
        assert!(!out.contains("ReferenceConfig"), "{out}");
    }

    #[test]
    fn credentials_are_masked() {
        let c = DubboConfig::from_yaml(
            "application: {name: shop}\nprovider: {parameters: {auth: 'true', authenticator: accesskey, .secretAccessKey: sk-in-params}}\nsecurity: {auth: {access-key-id: shop-ak, secret-access-key: sk-in-security, password: pw-in-security}}\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let out = run("shop", &c, &[]);
        for secret in ["sk-in-params", "sk-in-security", "pw-in-security"] {
            assert!(!out.contains(secret), "{secret} shown: {out}");
        }
        assert!(out.contains("SecurityConfig:\n"), "{out}");
        assert!(out.contains("shop-ak"), "{out}");
        assert!(out.contains("authenticator: accesskey"), "{out}");
    }

    #[test]
    fn one_type_and_one_id() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let out = run(
            "shop",
            &config(),
            &args(&["ServiceConfig", "org.demo.Greeter"]),
        );
        assert!(out.contains("ServiceConfig greeter:\n"), "{out}");
        assert!(out.contains("timeout: 900"), "{out}");
        assert!(!out.contains("ProtocolConfig"), "{out}");
        let out = run("shop", &config(), &args(&["ProtocolConfig", "dubbo"]));
        assert!(
            out.contains("ProtocolConfig dubbo:") && !out.contains("tri"),
            "{out}"
        );
        let out = run("shop", &config(), &args(&["NoConfig"]));
        assert!(out.starts_with("no such config type: NoConfig"), "{out}");
    }
}
