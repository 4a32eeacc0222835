//! `triple.rest.openapi` under a protocol: the OpenAPI settings of the REST forms served on the
//! Triple port, as Java Dubbo 3.3 names them (`settings` keyed `swagger-ui.cdn`,
//! `swagger-ui.settings.*`), plus `swagger-ui.assets`, a local copy of Swagger UI for hosts
//! that cannot reach a CDN.
//!
//! ```yaml
//! dubbo:
//!   protocol:
//!     name: tri
//!     triple:
//!       rest:
//!         openapi:
//!           settings:
//!             swagger-ui:
//!               assets: /srv/swagger-ui-dist
//!               settings:
//!                 filter: true
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{lenient, ConfigError, DubboConfig};

/// `triple.rest.openapi`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct OpenApiConfig {
    /// `settings`: Java's free-form OpenAPI settings, of which Swagger UI's are read.
    #[serde(default)]
    pub settings: Option<OpenApiSettings>,
}

/// `triple.rest.openapi.settings`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct OpenApiSettings {
    /// `swagger-ui.*`.
    #[serde(default)]
    pub swagger_ui: Option<SwaggerUiConfig>,
}

/// `triple.rest.openapi.settings.swagger-ui`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SwaggerUiConfig {
    /// `cdn`: the base URL of a `swagger-ui-dist` build the page loads.
    #[serde(default, deserialize_with = "lenient::text")]
    pub cdn: Option<String>,
    /// `assets`: a directory holding the files of `swagger-ui-dist`, served with the page.
    #[serde(default, deserialize_with = "lenient::text")]
    pub assets: Option<String>,
    /// `settings.NAME`: options of the `SwaggerUIBundle` call, each a JavaScript literal.
    #[serde(default, deserialize_with = "lenient::text_map")]
    pub settings: BTreeMap<String, String>,
}

/// The Swagger UI settings of the application's Triple ports and the full key they were read
/// from; `None` without any. Every protocol entry that sets them must set the same.
pub fn rest_swagger_ui(
    config: &DubboConfig,
) -> Result<Option<(String, SwaggerUiConfig)>, ConfigError> {
    super::rest_cors::one_for_all_triple_ports(config, "openapi.settings.swagger-ui", |rest| {
        rest.openapi
            .and_then(|o| o.settings)
            .and_then(|s| s.swagger_ui)
            .filter(|ui| *ui != SwaggerUiConfig::default())
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn read_from_yaml_and_env() {
        // The environment overrides a key the file has (as for every key but the singletons).
        let yaml = "
dubbo:
  protocol:
    name: tri
    port: 50051
    triple:
      rest:
        openapi:
          settings:
            swagger-ui:
              cdn: https://unpkg.example/swagger-ui-dist@5
              assets: /srv/swagger
              settings:
                filter: true
                docExpansion: '\"list\"'
";
        let env = [(
            "DUBBO_PROTOCOL_TRIPLE_REST_OPENAPI_SETTINGS_SWAGGER_UI_CDN",
            "https://cdn.example/swagger-ui-dist@5",
        )];
        let config = DubboConfig::from_yaml_with_env(yaml, env).unwrap();
        let (key, ui) = rest_swagger_ui(&config).unwrap().unwrap();
        assert_eq!(
            key,
            "dubbo.protocol.triple.rest.openapi.settings.swagger-ui"
        );
        assert_eq!(ui.assets.as_deref(), Some("/srv/swagger"));
        assert_eq!(
            ui.cdn.as_deref(),
            Some("https://cdn.example/swagger-ui-dist@5")
        );
        assert_eq!(ui.settings.get("filter").map(String::as_str), Some("true"));
        assert_eq!(
            ui.settings.get("docExpansion").map(String::as_str),
            Some("\"list\"")
        );
    }

    #[test]
    fn an_unknown_key_is_refused_by_name() {
        let yaml = "
dubbo:
  protocol:
    name: tri
    triple:
      rest:
        openapi:
          settings:
            swagger-ui:
              cnd: https://typo.example
";
        let err = DubboConfig::from_yaml(yaml).unwrap_err().to_string();
        assert!(err.contains("cnd"), "{err}");
    }

    #[test]
    fn nothing_set_is_none() {
        let config = DubboConfig::from_yaml("dubbo:\n  protocol:\n    name: tri\n").unwrap();
        assert!(rest_swagger_ui(&config).unwrap().is_none());
    }
}
