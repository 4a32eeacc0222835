//! Where the Swagger UI page of the application's Triple ports takes Swagger UI from, from
//! `triple.rest.openapi.settings.swagger-ui` under a protocol, checked at start: an `assets`
//! directory that does not hold Swagger UI stops the start with an error naming its full key.

use crate::config::{ConfigError, DubboConfig};

/// The Swagger UI settings configured; `None` without settings (the page's defaults).
#[cfg(feature = "triple")]
pub(crate) fn settings(
    config: &DubboConfig,
) -> Result<Option<std::sync::Arc<dubbo_protocol_triple::SwaggerUi>>, ConfigError> {
    let Some((key, c)) = crate::config::rest_swagger_ui(config)? else {
        return Ok(None);
    };
    let assets = match c.assets.filter(|a| !a.trim().is_empty()) {
        Some(dir) => {
            let dir = std::path::PathBuf::from(dir);
            // The bundle is the file the page cannot work without.
            if !dir.join("swagger-ui-bundle.js").is_file() {
                return Err(ConfigError::invalid(
                    format!("{key}.assets"),
                    format!(
                        "{} holds no swagger-ui-bundle.js: name a directory of the \
                         swagger-ui-dist package (npm pack swagger-ui-dist)",
                        dir.display()
                    ),
                ));
            }
            Some(dir)
        }
        None => None,
    };
    Ok(Some(std::sync::Arc::new(
        dubbo_protocol_triple::SwaggerUi {
            cdn: c.cdn.filter(|c| !c.trim().is_empty()),
            assets,
            settings: c.settings.into_iter().collect(),
        },
    )))
}

/// Without the Triple protocol nothing serves REST: settings for it are refused.
#[cfg(not(feature = "triple"))]
pub(crate) fn settings(config: &DubboConfig) -> Result<Option<()>, ConfigError> {
    match crate::config::rest_swagger_ui(config)? {
        Some((key, _)) => Err(ConfigError::invalid(
            key,
            "this build has no Triple protocol (feature `triple`), which serves REST",
        )),
        None => Ok(None),
    }
}
