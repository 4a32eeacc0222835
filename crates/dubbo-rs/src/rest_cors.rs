//! The CORS policy of the application's Triple ports, from `triple.rest.cors` under a
//! protocol (Java's `dubbo.protocol.triple.rest.cors.*`), checked at start: a value that
//! cannot be applied stops the start with an error naming its full key.

use crate::config::{ConfigError, DubboConfig};

/// The policy configured for the application's REST forms; `None` without settings.
#[cfg(feature = "triple")]
pub(crate) fn policy(
    config: &DubboConfig,
) -> Result<Option<std::sync::Arc<dubbo_protocol_triple::CorsPolicy>>, ConfigError> {
    let Some((key, c)) = crate::config::rest_cors(config)? else {
        return Ok(None);
    };
    dubbo_protocol_triple::CorsSettings {
        allowed_origins: c.allowed_origins,
        allowed_methods: c.allowed_methods,
        allowed_headers: c.allowed_headers,
        exposed_headers: c.exposed_headers,
        allow_credentials: c.allow_credentials,
        max_age: c.max_age,
    }
    .policy()
    .map_err(|e| ConfigError::invalid(format!("{key}.{}", e.key), e.reason))
}

/// Without the Triple protocol nothing serves REST: settings for it are refused.
#[cfg(not(feature = "triple"))]
pub(crate) fn policy(config: &DubboConfig) -> Result<Option<()>, ConfigError> {
    match crate::config::rest_cors(config)? {
        Some((key, _)) => Err(ConfigError::invalid(
            key,
            "this build has no Triple protocol (feature `triple`), which serves REST",
        )),
        None => Ok(None),
    }
}
