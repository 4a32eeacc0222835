//! `triple.rest.cors` under a protocol: the CORS settings of the REST forms served on the
//! Triple port, under Java Dubbo 3.3's keys (`dubbo.protocol.triple.rest.cors.allowed-origins`
//! and the rest).
//!
//! The application has one Triple protocol, so the settings apply to every Triple port
//! whichever protocol entry carries them; two entries carrying different settings are
//! refused, naming the second.

use serde::{Deserialize, Serialize};

use super::{lenient, ConfigError, DubboConfig};

/// `triple` under a protocol (Java's `TripleConfig`); only `rest` is read.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ProtocolTripleConfig {
    /// `rest`: the REST forms on the Triple port.
    #[serde(default)]
    pub rest: Option<RestConfig>,
}

/// `triple.rest` under a protocol (Java's `RestConfig`); only `cors` is read.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RestConfig {
    /// `cors`: which cross-origin requests browsers may make.
    #[serde(default)]
    pub cors: Option<CorsConfig>,
    /// `openapi`: the OpenAPI document's settings (Swagger UI's).
    #[serde(default)]
    pub openapi: Option<super::OpenApiConfig>,
}

/// `triple.rest.cors` under a protocol (Java's `CorsConfig`). Lists are YAML lists or one
/// comma-separated text. Nothing set: no CORS. Anything set: CORS on, with Java's defaults for
/// the rest (any origin, `GET`, `HEAD`, `POST`, any header, max age 1800 s).
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CorsConfig {
    /// `allowed-origins`: `*`, origins (`https://a.example`) or patterns
    /// (`https://*.a.example`, `http://localhost:[8080,8081]`, `http://localhost:[*]`).
    #[serde(default, deserialize_with = "lenient::text_list")]
    pub allowed_origins: Vec<String>,
    /// `allowed-methods`: `*` or HTTP methods.
    #[serde(default, deserialize_with = "lenient::text_list")]
    pub allowed_methods: Vec<String>,
    /// `allowed-headers`: `*` or request headers a preflight may ask for.
    #[serde(default, deserialize_with = "lenient::text_list")]
    pub allowed_headers: Vec<String>,
    /// `exposed-headers`: response headers shown to the page.
    #[serde(default, deserialize_with = "lenient::text_list")]
    pub exposed_headers: Vec<String>,
    /// `allow-credentials`: whether pages may send credentials (then the origins must be
    /// listed, not `*`).
    #[serde(default, deserialize_with = "lenient::flag")]
    pub allow_credentials: Option<bool>,
    /// `max-age`: seconds a browser may keep a preflight answer.
    #[serde(default, deserialize_with = "lenient::number")]
    pub max_age: Option<u64>,
}

impl CorsConfig {
    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        *self == CorsConfig::default()
    }
}

/// The CORS settings of the application's Triple ports and the key they were read under
/// (`dubbo.protocols.tri.triple.rest.cors`); `None` when no protocol sets any. Two protocol
/// entries with different settings are refused.
pub fn rest_cors(config: &DubboConfig) -> Result<Option<(String, CorsConfig)>, ConfigError> {
    one_for_all_triple_ports(config, "cors", |rest| rest.cors.filter(|c| !c.is_empty()))
}

/// The setting `pick` takes from `triple.rest` of every protocol entry, with the full key it
/// was read from (`...triple.rest.{suffix}`). The application has one Triple protocol, so
/// a setting applies to every Triple port whichever entry carries it; two entries carrying
/// different values are refused, naming the second.
pub(crate) fn one_for_all_triple_ports<T: PartialEq>(
    config: &DubboConfig,
    suffix: &str,
    pick: impl Fn(RestConfig) -> Option<T>,
) -> Result<Option<(String, T)>, ConfigError> {
    let mut found: Option<(String, T)> = None;
    for (id, pc) in config.all_protocols() {
        let Some(value) = pc.triple.and_then(|t| t.rest).and_then(&pick) else {
            continue;
        };
        let key = if config.protocols.contains_key(&id) {
            format!("dubbo.protocols.{id}.triple.rest.{suffix}")
        } else {
            format!("dubbo.protocol.triple.rest.{suffix}")
        };
        match &found {
            Some((first, settings)) if *settings != value => {
                return Err(ConfigError::invalid(
                    key,
                    format!(
                        "differs from {first}: the application's Triple ports share one \
                         configuration of their REST forms; set it once"
                    ),
                ))
            }
            Some(_) => {}
            None => found = Some((key, value)),
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn read_from_yaml_lists_or_text_and_env() {
        let yaml = "
dubbo:
  protocols:
    tri:
      port: 50051
      triple:
        rest:
          cors:
            allowed-origins: [https://a.example, 'https://*.b.example']
            allowed-methods: GET, POST
            allowed-headers:
            allow-credentials: 'true'
            max-age: '600'
";
        let env = [(
            "DUBBO_PROTOCOLS_TRI_TRIPLE_REST_CORS_ALLOWED_HEADERS",
            "X-Token,Content-Type",
        )];
        let config = DubboConfig::from_yaml_with_env(yaml, env).unwrap();
        let (key, cors) = rest_cors(&config).unwrap().unwrap();
        assert_eq!(key, "dubbo.protocols.tri.triple.rest.cors");
        assert_eq!(
            cors.allowed_origins,
            ["https://a.example", "https://*.b.example"]
        );
        assert_eq!(cors.allowed_methods, ["GET", "POST"]);
        assert_eq!(cors.allowed_headers, ["X-Token", "Content-Type"]);
        assert_eq!(cors.allow_credentials, Some(true));
        assert_eq!(cors.max_age, Some(600));
    }

    #[test]
    fn javas_singleton_form_and_none() {
        let yaml = "
protocol:
  name: tri
  triple:
    rest:
      cors:
        allowed-origins: '*'
";
        let config = DubboConfig::from_yaml(yaml).unwrap();
        let (key, cors) = rest_cors(&config).unwrap().unwrap();
        assert_eq!(key, "dubbo.protocol.triple.rest.cors");
        assert_eq!(cors.allowed_origins, ["*"]);
        let config = DubboConfig::from_yaml("protocols: {tri: {port: 1}}").unwrap();
        assert_eq!(rest_cors(&config).unwrap(), None);
    }

    #[test]
    fn bad_keys_are_named() {
        let err = |yaml: &str| match DubboConfig::from_yaml(yaml).unwrap_err() {
            ConfigError::Invalid { key, .. } => key,
            other => panic!("{other}"),
        };
        assert_eq!(
            err("protocols: {tri: {triple: {rest: {cors: {max-age: soon}}}}}"),
            "dubbo.protocols.tri.triple.rest.cors.max-age"
        );
        assert_eq!(
            err("protocols: {tri: {triple: {rest: {cors: {allow-credentials: maybe}}}}}"),
            "dubbo.protocols.tri.triple.rest.cors.allow-credentials"
        );
        let unknown = DubboConfig::from_yaml(
            "protocols: {tri: {triple: {rest: {cors: {allowed-origin: x}}}}}",
        )
        .unwrap_err()
        .to_string();
        assert!(
            unknown.contains("dubbo.protocols.tri.triple.rest.cors")
                && unknown.contains("allowed-origin"),
            "{unknown}"
        );
        let config = DubboConfig::from_yaml(
            "protocols:
  a: {name: tri, port: 1, triple: {rest: {cors: {allowed-origins: 'https://a.example'}}}}
  b: {name: tri, port: 2, triple: {rest: {cors: {allowed-origins: 'https://b.example'}}}}",
        )
        .unwrap();
        match rest_cors(&config).unwrap_err() {
            ConfigError::Invalid { key, .. } => {
                assert_eq!(key, "dubbo.protocols.b.triple.rest.cors")
            }
            other => panic!("{other}"),
        }
    }
}
