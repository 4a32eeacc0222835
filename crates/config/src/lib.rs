//! dubbo-config: Dubbo's configuration model (YAML keys as Java Dubbo spells them),
//! environment-variable overrides, external configuration from a config centre, and
//! validation that names the offending key. Plain data and checks: nothing here starts a
//! task, opens a socket or knows an application; the `dubbo-rs` facade re-exports this crate
//! as `dubbo_rs::config` and builds applications from it.
//!
//! Configuration: Dubbo's YAML keys, environment-variable overrides, and validation that
//! names the offending key.
//!
//! ```
//! use dubbo_config::DubboConfig;
//!
//! let yaml = "
//! dubbo:
//!   application:
//!     name: demo-provider
//!   protocols:
//!     dubbo:
//!       port: 20880
//!     tri:
//!       port: 50051
//! ";
//! let env = [("DUBBO_PROTOCOLS_TRI_PORT", "50052")];
//! let config = DubboConfig::from_yaml_with_env(yaml, env).unwrap();
//! assert_eq!(config.protocols["tri"].port, Some(50052));
//! ```

#![warn(missing_docs)]

mod app_params;
mod env;
mod external;
mod filter_names;
mod lenient;
mod lookup;
mod model;
mod protocol_keys;
mod pushgateway_keys;
mod rest_cors;
mod rest_openapi;
mod security_keys;
mod ssl;
mod tracing_keys;
mod unsupported;
mod validate;

pub use env::deployment_vars;
pub use filter_names::refuse_unknown_filters;
pub use protocol_keys::refuse_unhonoured;
pub use pushgateway_keys::{
    pushgateway_target, PushTarget, DEFAULT_JOB, DEFAULT_PUSH_INTERVAL_SECONDS,
};
pub use rest_cors::{rest_cors, CorsConfig, ProtocolTripleConfig, RestConfig};
pub use rest_openapi::{rest_swagger_ui, OpenApiConfig, OpenApiSettings, SwaggerUiConfig};
pub use tracing_keys::tracer_config;
pub use unsupported::refuse_unimplemented;
pub use validate::validate;

use std::path::Path;

pub use external::{apply_external, ExternalConfig};

/// The sections of the configuration keyed by an id (`dubbo.protocols.<id>`), as opposed to
/// singletons (`dubbo.protocol`).
pub const ID_SECTIONS: [&str; 5] = [
    "protocols",
    "registries",
    "services",
    "references",
    "modules",
];
pub use model::*;
pub use security_keys::{AuthConfig, SecurityConfig, SerializeConfig};
pub use ssl::SslConfig;

/// A configuration that could not be loaded. The message always names the key or the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// The text is not valid YAML.
    #[error("config is not valid YAML: {0}")]
    Syntax(String),
    /// A key is unknown or its value has the wrong type.
    #[error("config key {key}: {reason}")]
    Invalid {
        /// The dotted key, e.g. `dubbo.protocols.tri.port`.
        key: String,
        /// What is wrong.
        reason: String,
    },
}

impl ConfigError {
    /// A stable code for the kind of error.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::Io { .. } => "config.io",
            ConfigError::Syntax(_) => "config.syntax",
            ConfigError::Invalid { .. } => "config.invalid",
        }
    }

    /// The error for `key` (dotted, e.g. `dubbo.protocols.tri.port`) whose value is wrong
    /// for `reason`.
    pub fn invalid(key: impl Into<String>, reason: impl Into<String>) -> Self {
        ConfigError::Invalid {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

impl DubboConfig {
    /// Parses YAML (with or without the top-level `dubbo:` key) and validates it; no
    /// environment overrides.
    pub fn from_yaml(text: &str) -> Result<Self, ConfigError> {
        Self::from_yaml_with_env(text, std::iter::empty::<(String, String)>())
    }

    /// Parses YAML, applies overrides from `env` (pairs such as `DUBBO_PROTOCOL_PORT=20881`),
    /// then validates.
    ///
    /// An environment variable overrides the key whose dotted path, upper-cased with `.` and
    /// `-` turned into `_`, equals its name: `DUBBO_PROTOCOLS_TRI_PORT` sets
    /// `dubbo.protocols.tri.port`, `DUBBO_APPLICATION_QOS_ENABLE` sets
    /// `dubbo.application.qos-enable`. Keys present in the file and the common singleton keys
    /// (`dubbo.application.name`, `dubbo.protocol.port`, `dubbo.registry.address`, ...) can be
    /// overridden this way.
    pub fn from_yaml_with_env<K, V>(
        text: &str,
        env: impl IntoIterator<Item = (K, V)>,
    ) -> Result<Self, ConfigError>
    where
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut tree: serde_yaml_ng::Value = if text.trim().is_empty() {
            serde_yaml_ng::Value::Mapping(Default::default())
        } else {
            serde_yaml_ng::from_str(text).map_err(|e| ConfigError::Syntax(e.to_string()))?
        };
        let mut root = match tree.get_mut("dubbo") {
            Some(inner) => std::mem::take(inner),
            None => std::mem::take(&mut tree),
        };
        if root.is_null() {
            root = serde_yaml_ng::Value::Mapping(Default::default());
        }
        let environment = env::deployment_vars(env);
        env::apply_overrides(&mut root, &environment)?;
        from_tree(root, environment)
    }

    /// Reads a YAML file and applies the process environment's `DUBBO_*` overrides.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        Self::from_yaml_with_env(&text, std::env::vars())
    }

    /// Every protocol, by id: `protocols` plus the single `protocol` (id = its name).
    pub fn all_protocols(&self) -> Vec<(String, ProtocolConfig)> {
        let mut out: Vec<(String, ProtocolConfig)> = self
            .protocols
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(p) = &self.protocol {
            let id = p.name.clone().unwrap_or_else(|| "dubbo".to_owned());
            if !out.iter().any(|(k, _)| *k == id) {
                out.push((id, p.clone()));
            }
        }
        out
    }

    /// The configuration key of the registry with `id`: `dubbo.registries.<id>`, or
    /// `dubbo.registry` for the single-registry form.
    pub fn registry_key(&self, id: &str) -> String {
        if self.registries.contains_key(id) {
            format!("dubbo.registries.{id}")
        } else {
            "dubbo.registry".to_owned()
        }
    }

    /// Every registry, by id: `registries` plus the single `registry` (id `default`).
    pub fn all_registries(&self) -> Vec<(String, RegistryConfig)> {
        let mut out: Vec<(String, RegistryConfig)> = self
            .registries
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(r) = &self.registry {
            if !out.iter().any(|(k, _)| k == "default") {
                out.push(("default".to_owned(), r.clone()));
            }
        }
        out
    }
}

impl DubboConfig {
    /// The provider defaults of module `module`: `dubbo.provider` with
    /// `dubbo.modules.<module>.provider` laid over it.
    pub fn provider_for(&self, module: &str) -> std::borrow::Cow<'_, ProviderConfig> {
        match self.modules.get(module).and_then(|m| m.provider.as_ref()) {
            Some(own) => std::borrow::Cow::Owned(overlay(&self.provider, own)),
            None => std::borrow::Cow::Borrowed(&self.provider),
        }
    }

    /// The consumer defaults of module `module`: `dubbo.consumer` with
    /// `dubbo.modules.<module>.consumer` laid over it.
    pub fn consumer_for(&self, module: &str) -> std::borrow::Cow<'_, ConsumerConfig> {
        match self.modules.get(module).and_then(|m| m.consumer.as_ref()) {
            Some(own) => std::borrow::Cow::Owned(overlay(&self.consumer, own)),
            None => std::borrow::Cow::Borrowed(&self.consumer),
        }
    }
}

/// `base` with every key `top` sets replacing base's (maps merged key by key).
fn overlay<T>(base: &T, top: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned + Clone,
{
    fn merge(base: &mut serde_yaml_ng::Value, top: serde_yaml_ng::Value) {
        use serde_yaml_ng::Value;
        match (base, top) {
            (_, Value::Null) => {}
            (Value::Mapping(b), Value::Mapping(t)) => {
                for (k, v) in t {
                    match b.get_mut(&k) {
                        Some(slot) => merge(slot, v),
                        None => {
                            b.insert(k, v);
                        }
                    }
                }
            }
            (slot, v) => *slot = v,
        }
    }
    let (Ok(mut merged), Ok(top)) = (serde_yaml_ng::to_value(base), serde_yaml_ng::to_value(top))
    else {
        return base.clone();
    };
    merge(&mut merged, top);
    // Both sides were valid configurations of the same type, so their union is too.
    serde_yaml_ng::from_value(merged).unwrap_or_else(|_| base.clone())
}

impl ProtocolConfig {
    /// The protocol name: `name`, else the id it was configured under.
    pub fn protocol_name<'a>(&'a self, id: &'a str) -> &'a str {
        dubbo_url::canonical_protocol(self.name.as_deref().unwrap_or(id))
    }
}

/// The typed configuration of a YAML tree (the part under `dubbo:`), validated; `environment`
/// is kept as the deployment variables.
fn from_tree(
    root: serde_yaml_ng::Value,
    environment: std::collections::BTreeMap<String, String>,
) -> Result<DubboConfig, ConfigError> {
    let mut config: DubboConfig = serde_path_to_error::deserialize(root).map_err(|e| {
        let path = e.path().to_string();
        let key = if path == "." || path.is_empty() {
            "dubbo".to_owned()
        } else {
            format!("dubbo.{path}")
        };
        ConfigError::invalid(key, e.into_inner().to_string())
    })?;
    config.environment = environment;
    validate::validate(&config)?;
    Ok(config)
}

#[cfg(test)]
mod tests;
