//! Reading the external configuration (`dubbo.properties`) from the config centre before the
//! application is made, as Java Dubbo does before it loads anything else.

use dubbo_core::Extensions;

use crate::config::{ConfigError, DubboConfig, ExternalConfig};

/// The external configuration's default key.
pub(crate) const DEFAULT_CONFIG_FILE: &str = "dubbo.properties";

/// The global and the application's external texts for `config`, lowest precedence first;
/// none when there is no config centre.
///
/// An explicitly configured centre that cannot be reached stops the start unless its `check`
/// is `false`. A registry serving as the centre does not: registries are reached in the
/// background, so an application must not fail to start because one is away.
pub(crate) async fn read(
    config: &DubboConfig,
    app: &str,
    ext: &Extensions,
) -> Result<Vec<ExternalConfig>, ConfigError> {
    let registries = crate::registry::from_config(config, app, ext)?;
    let Some(center) = super::from_config(config, app, ext, &registries)? else {
        return Ok(Vec::new());
    };
    let settings = config.config_center.clone();
    let explicit = settings.is_some();
    let settings = settings.unwrap_or_default();
    let check = settings.check.unwrap_or(explicit);
    let group = center
        .url
        .parameter("group")
        .filter(|g| !g.trim().is_empty())
        .unwrap_or(dubbo_config_center::DEFAULT_GROUP)
        .to_owned();
    let file = settings
        .config_file
        .clone()
        .filter(|f| !f.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_CONFIG_FILE.to_owned());
    let app_file = settings
        .app_config_file
        .clone()
        .filter(|f| !f.trim().is_empty())
        .unwrap_or_else(|| file.clone());
    let unreachable = |e: &dyn std::fmt::Display| {
        ConfigError::invalid(
            "dubbo.config-center.address",
            format!(
                "the config centre {}://{} cannot be read for the external configuration: \
                 {e} (set dubbo.config-center.check: false to start without it)",
                center.url.protocol().unwrap_or_default(),
                center.url.address()
            ),
        )
    };
    let connection = match center.connect(ext).await {
        Ok(c) => c,
        Err(e) if check => return Err(unreachable(&e)),
        Err(e) => {
            tracing::warn!(center = %center.url, code = e.code(), error = %e, "config centre unreachable: starting without its external configuration");
            return Ok(Vec::new());
        }
    };
    let mut out = Vec::new();
    for (key, group) in [(file.as_str(), group.as_str()), (app_file.as_str(), app)] {
        match connection.get_config(key, group).await {
            Ok(Some(text)) => {
                let source = format!("the config centre's {key} in group {group}");
                match ExternalConfig::parse_by_key(key, source, &text) {
                    Ok(parsed) => out.push(parsed),
                    Err(e) => {
                        connection.close().await;
                        return Err(e);
                    }
                }
            }
            Ok(None) => {}
            Err(e) if check => {
                connection.close().await;
                return Err(unreachable(&e));
            }
            Err(e) => {
                tracing::warn!(key, group, code = e.code(), error = %e, "external configuration not read");
            }
        }
    }
    connection.close().await;
    Ok(out)
}
