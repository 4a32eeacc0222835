//! Opening a config centre by URL scheme through an extension table of its own, without a
//! `Framework`.

use std::sync::Arc;

use dubbo_config_center::{ConfigCenterError, DynamicConfiguration, DynamicConfigurationFactory};
use dubbo_core::Extensions;
use dubbo_url::Url;

/// How long (milliseconds) connecting or one call may take when the URL does not say: an
/// operator at a terminal should hear of a wrong address in seconds, not in Java's 30.
pub const DEFAULT_TIMEOUT_MS: &str = "5000";

/// The config centres the tool knows, by scheme.
pub fn extensions() -> Extensions {
    let ext = Extensions::new();
    dubbo_registry_zookeeper::register_zookeeper(&ext);
    dubbo_registry_etcd::register_etcd(&ext);
    // The embedded file registry's config centre, for applications without a server.
    dubbo_registry::register_file(&ext);
    ext
}

/// Connects to the config centre `center` names, through the factory of its scheme.
pub async fn open(
    ext: &Extensions,
    center: &str,
) -> Result<Arc<dyn DynamicConfiguration>, ConfigCenterError> {
    let url = Url::parse(center).map_err(|e| ConfigCenterError::Config {
        key: "--center".to_owned(),
        reason: format!("{center:?}: {e}"),
    })?;
    let scheme = url.protocol().unwrap_or_default().to_owned();
    let factory = ext
        .get::<dyn DynamicConfigurationFactory>(&scheme)
        .ok_or(ConfigCenterError::UnknownScheme { scheme })?;
    let url = url.with_parameter_if_absent("timeout", DEFAULT_TIMEOUT_MS);
    factory.create(&url).await
}
