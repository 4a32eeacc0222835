//! Environment-variable overrides of configuration keys.

use serde_yaml_ng::{Mapping, Value};

use super::ConfigError;

/// Singleton keys that can be set from the environment even when the file does not mention them.
const KNOWN_KEYS: &[&str] = &[
    "application.name",
    "application.version",
    "application.environment",
    "application.qos-enable",
    "application.qos-port",
    "application.qos-accept-foreign-ip",
    "application.qos-accept-foreign-ip-whitelist",
    "application.qos-anonymous-access-permission-level",
    "application.qos-anonymous-allow-commands",
    "application.register-mode",
    "application.shutdown-wait",
    "protocol.name",
    "protocol.port",
    "protocol.host",
    "protocol.threads",
    "protocol.dispatcher",
    "protocol.payload",
    "protocol.heartbeat",
    "protocol.ssl-enabled",
    "ssl.server-key-cert-chain-path",
    "ssl.server-private-key-path",
    "ssl.server-key-password",
    "ssl.server-trust-cert-collection-path",
    "ssl.client-key-cert-chain-path",
    "ssl.client-private-key-path",
    "ssl.client-key-password",
    "ssl.client-trust-cert-collection-path",
    "ssl.server-allow-plaintext",
    "ssl.cert-reload-interval",
    "registry.address",
    "registry.timeout",
    "registry.group",
    "provider.timeout",
    "provider.version",
    "provider.group",
    "provider.filter",
    "provider.token",
    "provider.weight",
    "provider.retries",
    "provider.loadbalance",
    "provider.executes",
    "provider.flowcontrol",
    "provider.accesslog",
    "consumer.timeout",
    "consumer.retries",
    "consumer.loadbalance",
    "consumer.cluster",
    "consumer.check",
    "consumer.filter",
    "consumer.connections",
    "consumer.lazy",
    "consumer.protocol",
    "consumer.actives",
    "security.auth.access-key-id",
    "security.auth.secret-access-key",
    "security.auth.username",
    "security.auth.password",
    "security.auth.timestamp-window",
    "tracing.enabled",
    "tracing.sampling.probability",
    "tracing.propagation.type",
    "tracing.tracing-exporter.otlp-config.endpoint",
    "tracing.tracing-exporter.otlp-config.timeout",
    "tracing.tracing-exporter.otlp-config.compression-method",
];

fn env_name(path: &[String]) -> String {
    let mut name = String::from("DUBBO");
    for part in path {
        name.push('_');
        name.extend(part.chars().map(|c| match c {
            '.' | '-' => '_',
            c => c.to_ascii_uppercase(),
        }));
    }
    name
}

fn collect_paths(value: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match value {
        Value::Mapping(m) => {
            for (k, v) in m {
                if let Some(k) = k.as_str() {
                    prefix.push(k.to_owned());
                    collect_paths(v, prefix, out);
                    prefix.pop();
                }
            }
        }
        _ => out.push(prefix.clone()),
    }
}

pub(super) fn set_path(root: &mut Value, path: &[String], new: Value) -> Result<(), ConfigError> {
    let mut node = root;
    for (i, part) in path.iter().enumerate() {
        if node.is_null() {
            *node = Value::Mapping(Mapping::new());
        }
        let Value::Mapping(map) = node else {
            return Err(ConfigError::invalid(
                format!("dubbo.{}", path[..i].join(".")),
                "cannot override a key inside a value that is not a mapping",
            ));
        };
        let key = Value::String(part.clone());
        if i + 1 == path.len() {
            map.insert(key, new);
            return Ok(());
        }
        node = map.entry(key).or_insert(Value::Null);
    }
    Ok(())
}

/// A value given as text (an environment variable, an external `.properties` entry).
///
/// Kept as the text it is, as Java keeps it (`1.10` stays `1.10`); the typed tree takes
/// numbers and booleans written as text. Only a YAML list or mapping (`[dubbo, tri]`) is read
/// as one.
pub(super) fn value_of(raw: &str) -> Value {
    match serde_yaml_ng::from_str::<Value>(raw) {
        Ok(v @ (Value::Sequence(_) | Value::Mapping(_))) => v,
        _ => Value::String(raw.to_owned()),
    }
}

/// Applies every `DUBBO_*` pair of `env` that names a known or present key.
pub(super) fn apply_overrides<K, V>(
    root: &mut Value,
    env: impl IntoIterator<Item = (K, V)>,
) -> Result<(), ConfigError>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    let mut paths = Vec::new();
    collect_paths(root, &mut Vec::new(), &mut paths);
    for key in KNOWN_KEYS {
        let p: Vec<String> = key.split('.').map(str::to_owned).collect();
        if !paths.contains(&p) {
            paths.push(p);
        }
    }
    let names: Vec<(String, Vec<String>)> = paths.into_iter().map(|p| (env_name(&p), p)).collect();
    for (name, value) in env {
        let name = name.as_ref();
        if !name.starts_with("DUBBO_") {
            continue;
        }
        if let Some((_, path)) = names.iter().find(|(n, _)| n == name) {
            set_path(root, path, value_of(value.as_ref()))?;
        }
    }
    Ok(())
}

/// The deployment variables among `env`: names starting with `DUBBO_` or containing
/// `_DUBBO_` (Java's per-protocol form, `TRI_DUBBO_IP_TO_BIND`).
pub fn deployment_vars<K, V>(
    env: impl IntoIterator<Item = (K, V)>,
) -> std::collections::BTreeMap<String, String>
where
    K: AsRef<str>,
    V: AsRef<str>,
{
    env.into_iter()
        .filter(|(k, _)| k.as_ref().starts_with("DUBBO_") || k.as_ref().contains("_DUBBO_"))
        .map(|(k, v)| (k.as_ref().to_owned(), v.as_ref().to_owned()))
        .collect()
}
