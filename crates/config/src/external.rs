//! External configuration: `dubbo.properties` kept in a config centre, laid over the local
//! configuration with Java Dubbo's precedence.
//!
//! Java reads two texts from its config centre before anything else starts: the global one
//! (key `dubbo.properties`, group `dubbo`) and the application's own (the same key, group = the
//! application's name). From highest to lowest, a key's value comes from: the environment
//! (`DUBBO_*`), the application's external text, the global external text, then the local
//! configuration (YAML and builder calls). The texts are Java `.properties` files with dotted
//! keys such as `dubbo.protocol.port=20881` or `dubbo.registries.east.address=...`.

use std::collections::BTreeMap;

use super::{env, ConfigError, DubboConfig};

/// One external text, parsed, and where it came from (named in errors).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalConfig {
    /// Where the text was read, e.g. `config centre key dubbo.properties, group dubbo`.
    pub source: String,
    /// Its `key = value` pairs.
    pub entries: BTreeMap<String, String>,
}

impl ExternalConfig {
    /// Parses `text` as a Java `.properties` file (comments `#`/`!`, separators `=`, `:` or
    /// blanks, backslash continuations and escapes).
    pub fn parse(source: impl Into<String>, text: &str) -> Self {
        Self {
            source: source.into(),
            entries: parse_properties(text),
        }
    }

    /// Parses `text` as YAML (`dubbo: {protocol: {port: 20881}}`, the same tree as a local
    /// file), flattened to the dotted keys a `.properties` text would have.
    pub fn parse_yaml(source: impl Into<String>, text: &str) -> Result<Self, ConfigError> {
        let source = source.into();
        let tree: serde_yaml_ng::Value = serde_yaml_ng::from_str(text)
            .map_err(|e| ConfigError::Syntax(format!("{source}: {e}")))?;
        let mut entries = BTreeMap::new();
        flatten(&tree, &mut String::new(), &mut entries);
        Ok(Self { source, entries })
    }

    /// Parses the text stored under `key`: YAML when the key ends in `.yaml` or `.yml`, else
    /// Java `.properties`.
    pub fn parse_by_key(
        key: &str,
        source: impl Into<String>,
        text: &str,
    ) -> Result<Self, ConfigError> {
        if key.ends_with(".yaml") || key.ends_with(".yml") {
            Self::parse_yaml(source, text)
        } else {
            Ok(Self::parse(source, text))
        }
    }
}

/// Leaves of `value` under dotted keys; a list becomes its items joined by commas, as Java
/// flattens YAML lists into properties.
fn flatten(value: &serde_yaml_ng::Value, prefix: &mut String, out: &mut BTreeMap<String, String>) {
    use serde_yaml_ng::Value;
    match value {
        Value::Mapping(map) => {
            for (k, v) in map {
                let key = match k {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => continue,
                };
                let len = prefix.len();
                if !prefix.is_empty() {
                    prefix.push('.');
                }
                prefix.push_str(&key);
                flatten(v, prefix, out);
                prefix.truncate(len);
            }
        }
        Value::Sequence(items) => {
            let joined: Vec<String> = items.iter().filter_map(scalar).collect();
            out.insert(prefix.clone(), joined.join(","));
        }
        Value::Null => {}
        other => {
            if let Some(text) = scalar(other) {
                out.insert(prefix.clone(), text);
            }
        }
    }
}

fn scalar(value: &serde_yaml_ng::Value) -> Option<String> {
    use serde_yaml_ng::Value;
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Fields whose value is a map: every segment after them is one key (`parameters.a.b` sets the
/// parameter `a.b`).
const MAP_FIELDS: &[&str] = &["parameters", "headers"];

/// `config` with `layers` laid over it, lowest first, then the environment it was loaded with
/// on top. Keys outside `dubbo.` are not configuration and are skipped; a `dubbo.` key that
/// the configuration does not know is an error naming the key and the text it came from.
pub fn apply_external(
    config: &DubboConfig,
    layers: &[ExternalConfig],
) -> Result<DubboConfig, ConfigError> {
    let mut tree = serde_yaml_ng::to_value(config)
        .map_err(|e| ConfigError::invalid("dubbo", format!("cannot be re-read: {e}")))?;
    for layer in layers {
        for (key, value) in &layer.entries {
            let Some(mut path) = key_path(key) else {
                continue;
            };
            by_interface(config, &mut path);
            env::set_path(&mut tree, &path, env::value_of(value)).map_err(|e| from(e, layer))?;
        }
        // Checked per layer, so that an error names the text that brought the bad key.
        super::from_tree(tree.clone(), config.environment.clone()).map_err(|e| from(e, layer))?;
    }
    env::apply_overrides(&mut tree, &config.environment)?;
    super::from_tree(tree, config.environment.clone())
}

/// Java names a service or reference by its interface (`dubbo.service.<interface>.timeout`);
/// the configuration keys them by id, so an id that is not one but is an entry's interface
/// means that entry.
fn by_interface(config: &DubboConfig, path: &mut [String]) {
    let [section, id, ..] = path else { return };
    let found = match section.as_str() {
        "services" if !config.services.contains_key(id.as_str()) => config
            .services
            .iter()
            .find(|(_, s)| s.interface.as_deref() == Some(id.as_str()))
            .map(|(k, _)| k.clone()),
        "references" if !config.references.contains_key(id.as_str()) => config
            .references
            .iter()
            .find(|(_, r)| r.interface.as_deref() == Some(id.as_str()))
            .map(|(k, _)| k.clone()),
        _ => None,
    };
    if let Some(found) = found {
        *id = found;
    }
}

fn from(e: ConfigError, layer: &ExternalConfig) -> ConfigError {
    match e {
        ConfigError::Invalid { key, reason } => {
            ConfigError::invalid(key, format!("{reason} (from {})", layer.source))
        }
        other => other,
    }
}

/// The configuration path of a dotted key, or `None` for a key outside `dubbo.`.
fn key_path(key: &str) -> Option<Vec<String>> {
    let rest = key.trim().strip_prefix("dubbo.")?;
    let segments: Vec<&str> = rest.split('.').filter(|s| !s.is_empty()).collect();
    let (first, tail) = segments.split_first()?;
    let mut path = Vec::new();
    // Java's singular `dubbo.service.<interface>` / `dubbo.reference.<interface>` name the
    // same sections as the plural forms.
    let section = match kebab(first).as_str() {
        "service" => "services".to_owned(),
        "reference" => "references".to_owned(),
        other => other.to_owned(),
    };
    let fields: &[&str] = match super::ID_SECTIONS.iter().find(|s| **s == section) {
        Some(section) => {
            // The id may itself contain dots (an interface name): it runs up to the field, which
            // is the last segment or the one before a map field's key.
            let field_at = tail
                .iter()
                .position(|s| MAP_FIELDS.contains(&kebab(s).as_str()))
                .unwrap_or(tail.len().saturating_sub(1));
            if field_at == 0 {
                return Some(vec![(*section).to_owned(), tail.join(".")]);
            }
            path.push((*section).to_owned());
            path.push(tail[..field_at].join("."));
            &tail[field_at..]
        }
        None => {
            path.push(kebab(first));
            tail
        }
    };
    for (i, segment) in fields.iter().enumerate() {
        let name = kebab(segment);
        let is_map = MAP_FIELDS.contains(&name.as_str());
        path.push(name);
        if is_map && i + 1 < fields.len() {
            path.push(fields[i + 1..].join("."));
            break;
        }
    }
    Some(path)
}

/// Java's camel-case spelling (`qosEnable`) as the configuration's (`qos-enable`).
fn kebab(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len() + 4);
    for c in segment.chars() {
        if c.is_ascii_uppercase() {
            if !out.is_empty() {
                out.push('-');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The pairs of a Java `.properties` text; a later key replaces an earlier one.
fn parse_properties(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(first) = lines.next() {
        let mut logical = first.trim_start().to_owned();
        if logical.is_empty() || logical.starts_with('#') || logical.starts_with('!') {
            continue;
        }
        // An odd number of trailing backslashes joins the next line, minus its indentation.
        while ends_in_continuation(&logical) {
            logical.pop();
            match lines.next() {
                Some(next) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        let (key, value) = split_pair(&logical);
        out.insert(unescape(key), unescape(value));
    }
    out
}

fn ends_in_continuation(line: &str) -> bool {
    line.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1
}

/// Splits at the first unescaped `=`, `:` or blank; blanks around the separator are dropped.
fn split_pair(line: &str) -> (&str, &str) {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'=' | b':' | b' ' | b'\t' | b'\x0c' => break,
            _ => i += 1,
        }
    }
    let end = i.min(bytes.len());
    let key = &line[..end];
    let mut rest = line[end..].trim_start_matches([' ', '\t', '\x0c']);
    if let Some(r) = rest.strip_prefix(['=', ':']) {
        rest = r.trim_start_matches([' ', '\t', '\x0c']);
    }
    (key, rest)
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\x0c'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    // Java refuses a malformed \u escape; keeping the text is kinder than
                    // dropping the whole file, and the value is then checked like any other.
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_follow_java_rules() {
        let text = "# comment\n! also a comment\n  dubbo.a = 1\ndubbo.b:2\ndubbo.c 3\n\
                    dubbo.d=x\\\n    y\ndubbo.e=tab\\there\ndubbo.f=\\u0041\\=\nkey\\ with\\ blanks=v\n\
                    dubbo.a=again\nempty\n";
        let p = parse_properties(text);
        assert_eq!(p["dubbo.a"], "again");
        assert_eq!(p["dubbo.b"], "2");
        assert_eq!(p["dubbo.c"], "3");
        assert_eq!(p["dubbo.d"], "xy");
        assert_eq!(p["dubbo.e"], "tab\there");
        assert_eq!(p["dubbo.f"], "A=");
        assert_eq!(p["key with blanks"], "v");
        assert_eq!(p["empty"], "");
        assert_eq!(p.len(), 8);
    }

    fn path(key: &str) -> Vec<String> {
        key_path(key).unwrap_or_default()
    }

    #[test]
    fn keys_map_onto_the_configuration_tree() {
        assert_eq!(path("dubbo.protocol.port"), ["protocol", "port"]);
        assert_eq!(
            path("dubbo.application.qosEnable"),
            ["application", "qos-enable"]
        );
        assert_eq!(
            path("dubbo.protocols.tri.port"),
            ["protocols", "tri", "port"]
        );
        assert_eq!(
            path("dubbo.service.org.apache.dubbo.Greeter.timeout"),
            ["services", "org.apache.dubbo.Greeter", "timeout"]
        );
        assert_eq!(
            path("dubbo.references.g.parameters.a.b"),
            ["references", "g", "parameters", "a.b"]
        );
        assert_eq!(
            path("dubbo.registry.parameters.x.y"),
            ["registry", "parameters", "x.y"]
        );
        assert_eq!(
            path("dubbo.application.migration.step"),
            ["application", "migration", "step"]
        );
        assert_eq!(key_path("spring.datasource.url"), None);
    }

    fn yaml(text: &str) -> DubboConfig {
        DubboConfig::from_yaml_with_env(text, [("DUBBO_CONSUMER_RETRIES", "7")])
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn precedence_is_environment_then_application_then_global_then_local() {
        let local = yaml(
            "application: {name: a}\nprotocols: {dubbo: {port: 20880}}\nconsumer: {timeout: 100}\n",
        );
        let global = ExternalConfig::parse(
            "global",
            "dubbo.consumer.timeout=200\ndubbo.protocols.dubbo.port=20881\ndubbo.consumer.retries=1\ndubbo.provider.weight=50\n",
        );
        let app = ExternalConfig::parse("app", "dubbo.consumer.timeout=300\n");
        let merged = apply_external(&local, &[global, app]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            merged.consumer.timeout,
            Some(300),
            "application text beats global"
        );
        assert_eq!(
            merged.protocols["dubbo"].port,
            Some(20881),
            "global beats local"
        );
        assert_eq!(
            merged.consumer.retries,
            Some(7),
            "environment beats everything"
        );
        assert_eq!(merged.application.name.as_deref(), Some("a"));
        assert_eq!(merged.environment, local.environment);
    }

    #[test]
    fn an_unknown_key_is_refused_naming_it_and_its_text() {
        let local = yaml("application: {name: a}\n");
        let bad = ExternalConfig::parse(
            "config centre key dubbo.properties, group dubbo",
            "dubbo.consumer.timeot=5\n",
        );
        let err = apply_external(&local, &[bad])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("dubbo.consumer"), "{err}");
        assert!(err.contains("timeot"), "{err}");
        assert!(err.contains("group dubbo"), "{err}");
    }

    #[test]
    fn a_service_is_found_by_its_interface() {
        let local =
            yaml("application: {name: a}\nservices: {greeter: {interface: org.demo.Greeter}}\n");
        let ext = ExternalConfig::parse("x", "dubbo.service.org.demo.Greeter.timeout=900\n");
        let merged = apply_external(&local, &[ext]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(merged.services["greeter"].timeout, Some(900));
        assert_eq!(merged.services.len(), 1);
    }

    #[test]
    fn yaml_texts_flatten_to_the_same_keys() {
        let ext = ExternalConfig::parse_by_key(
            "dubbo.yaml",
            "x",
            "dubbo:\n  protocols:\n    dubbo:\n      port: 0\n    tri:\n      port: 50052\n  consumer:\n    timeout: 700\n  services:\n    g:\n      protocols: [dubbo, tri]\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(ext.entries["dubbo.protocols.tri.port"], "50052");
        assert_eq!(ext.entries["dubbo.consumer.timeout"], "700");
        assert_eq!(ext.entries["dubbo.services.g.protocols"], "dubbo,tri");
        let local = yaml("application: {name: a}\n");
        let merged = apply_external(&local, &[ext]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(merged.protocols["tri"].port, Some(50052));
        assert_eq!(merged.services["g"].protocols, ["dubbo", "tri"]);
        assert!(ExternalConfig::parse_by_key("a.yml", "x", "a: [").is_err());
    }

    #[test]
    fn a_bad_value_is_refused() {
        let local = yaml("application: {name: a}\n");
        let bad = ExternalConfig::parse("x", "dubbo.consumer.timeout=soon\n");
        assert!(apply_external(&local, &[bad]).is_err());
    }
}
