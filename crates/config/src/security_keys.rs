//! `dubbo.security`: the application's credentials for authentication and the classes generic
//! calls may name.
//!
//! The values become URL parameters of every service and reference that does not set its own
//! (Java's names: `.accessKeyId`, `.secretAccessKey`, `username`, `password`), and those are
//! never registered: keys starting with `.` and `password` are kept off registry URLs, and
//! `getConfig` masks the secrets. So the secret access key can come from the environment
//! (`DUBBO_SECURITY_AUTH_SECRET_ACCESS_KEY`) rather than a file, and never from a registry.
//!
//! ```yaml
//! dubbo:
//!   provider:
//!     parameters: { auth: "true", authenticator: accesskey }
//!   security:
//!     auth:
//!       access-key-id: my-app
//!       secret-access-key: ${from the environment}
//!       timestamp-window: 300000
//!     serialize:
//!       allowedClassList: org.example.model.,java.util.
//! ```

use serde::{Deserialize, Serialize};

use super::lenient;

use dubbo_core::filters::auth::{
    ACCESS_KEY_ID_KEY, PASSWORD_KEY, SECRET_ACCESS_KEY_KEY, TIMESTAMP_WINDOW_KEY, USERNAME_KEY,
};
use dubbo_core::filters::{ALLOWED_CLASS_LIST_KEY, BLOCKED_CLASS_LIST_KEY};

/// `dubbo.security`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct SecurityConfig {
    /// `dubbo.security.auth`: credentials for `auth=true`.
    #[serde(default)]
    pub auth: AuthConfig,
    /// `dubbo.security.serialize`: classes generic calls may name.
    #[serde(default)]
    pub serialize: SerializeConfig,
}

/// `dubbo.security.auth`: the credentials a service checks and a reference signs with.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AuthConfig {
    /// The access key id (`authenticator=accesskey`), URL key `.accessKeyId`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub access_key_id: Option<String>,
    /// The secret access key, URL key `.secretAccessKey`; masked by `getConfig`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub secret_access_key: Option<String>,
    /// The HTTP Basic user name (`authenticator=basic`), URL key `username`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub username: Option<String>,
    /// The HTTP Basic password, URL key `password`; masked by `getConfig`.
    #[serde(default, deserialize_with = "lenient::text")]
    pub password: Option<String>,
    /// How far, in ms, an access-key call's timestamp may be from the provider's clock
    /// (default 300000, 0 for no check), URL key `auth.timestamp.window`.
    #[serde(default, deserialize_with = "lenient::number")]
    pub timestamp_window: Option<u64>,
}

/// `dubbo.security.serialize`: Java's `dubbo.security.serialize.*` class lists, for the
/// `class` fields of the maps a generic call (`$invoke`) passes.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SerializeConfig {
    /// Comma-separated class-name prefixes a generic call may name; when set, any other class
    /// is refused.
    #[serde(
        default,
        rename = "allowedClassList",
        alias = "allowed-class-list",
        deserialize_with = "lenient::text"
    )]
    pub allowed_class_list: Option<String>,
    /// Comma-separated class-name prefixes a generic call may not name.
    #[serde(
        default,
        rename = "blockedClassList",
        alias = "blocked-class-list",
        deserialize_with = "lenient::text"
    )]
    pub blocked_class_list: Option<String>,
}

impl SecurityConfig {
    /// The URL parameters these settings give every service and reference that does not set
    /// them itself.
    pub fn url_parameters(&self) -> Vec<(&'static str, String)> {
        let a = &self.auth;
        let s = &self.serialize;
        let window = a.timestamp_window.map(|w| w.to_string());
        [
            (ACCESS_KEY_ID_KEY, &a.access_key_id),
            (SECRET_ACCESS_KEY_KEY, &a.secret_access_key),
            (USERNAME_KEY, &a.username),
            (PASSWORD_KEY, &a.password),
            (TIMESTAMP_WINDOW_KEY, &window),
            (ALLOWED_CLASS_LIST_KEY, &s.allowed_class_list),
            (BLOCKED_CLASS_LIST_KEY, &s.blocked_class_list),
        ]
        .into_iter()
        .filter_map(|(k, v)| {
            v.as_ref()
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .map(|v| (k, v.to_owned()))
        })
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::DubboConfig;

    #[test]
    fn credentials_come_from_yaml_and_the_environment() {
        let yaml = "
dubbo:
  application: { name: a }
  security:
    auth: { access-key-id: ID, timestamp-window: 1000 }
    serialize: { allowedClassList: 'org.example.' }
";
        let env = [("DUBBO_SECURITY_AUTH_SECRET_ACCESS_KEY", "from-env")];
        let c = match DubboConfig::from_yaml_with_env(yaml, env) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        };
        let p = c.security.url_parameters();
        assert!(p.contains(&(".accessKeyId", "ID".into())), "{p:?}");
        assert!(
            p.contains(&(".secretAccessKey", "from-env".into())),
            "{p:?}"
        );
        assert!(
            p.contains(&("auth.timestamp.window", "1000".into())),
            "{p:?}"
        );
        assert!(
            p.contains(&(".serialize.allowedClassList", "org.example.".into())),
            "{p:?}"
        );
        let bad = DubboConfig::from_yaml_with_env(
            "dubbo:\n  application: { name: a }\n  security:\n    auth: { secret: x }\n",
            Vec::<(String, String)>::new(),
        );
        let Err(e) = bad else {
            panic!("unknown key accepted")
        };
        assert!(e.to_string().contains("secret"), "{e}");
    }
}
