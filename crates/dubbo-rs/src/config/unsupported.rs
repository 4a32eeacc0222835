//! Keys that the configuration accepts but whose feature is not implemented yet: refused when an
//! application starts, naming the key, instead of being silently ignored.

use super::{ConfigError, DubboConfig};

/// Refuses every configured registry: there is no registry client yet, so a provider would not
/// be registered and a consumer would find nothing. `N/A` (Java's "no registry") is accepted.
pub(crate) fn refuse_unimplemented(config: &DubboConfig) -> Result<(), ConfigError> {
    for (id, registry) in config.all_registries() {
        let key = if config.registries.contains_key(&id) {
            format!("dubbo.registries.{id}.address")
        } else {
            "dubbo.registry.address".to_owned()
        };
        let address = registry.address.as_deref().unwrap_or("").trim();
        if !address.eq_ignore_ascii_case("N/A") {
            return Err(ConfigError::invalid(
                key,
                format!(
                    "registries are not implemented yet (got {address:?}); remove the registry \
                     or set its address to N/A, and give references a direct `url`"
                ),
            ));
        }
    }
    Ok(())
}
