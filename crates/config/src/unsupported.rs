//! Keys that the configuration accepts but whose feature is not implemented yet: refused when an
//! application starts, naming the key, instead of being silently ignored.
//!
//! The rule: every key either has an effect or is refused when `dubbo_rs::Application::build`
//! runs this check. Values that
//! ask for nothing (`generic: false`, `register: false`) are accepted,
//! because that is exactly what happens. The QoS keys (`qos-enable`, `qos-port`,
//! `qos-accept-foreign-ip` and its whitelist, the anonymous permission level and allowed
//! commands) all have an effect now (see the QoS port).

use super::{ConfigError, DubboConfig, RegistryConfig};

/// Refuses every key whose feature is missing or that has nothing to act on:
/// registration without a registry, settings of an `N/A` registry, and generic references by
/// configuration.
pub fn refuse_unimplemented(config: &DubboConfig) -> Result<(), ConfigError> {
    refuse_na_registry_settings(config)?;
    refuse_registration(config)?;
    for (id, r) in &config.references {
        if let Some(generic) = r.generic.as_deref().map(str::trim) {
            if !generic.eq_ignore_ascii_case("false") && !generic.is_empty() {
                return Err(ConfigError::invalid(
                    format!("dubbo.references.{id}.generic"),
                    format!(
                        "generic references are made in code, not by configuration (got \
                         {generic:?}): refer to the service and call it through \
                         `GenericClient`; remove the key or set it to false"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// An `N/A` registry (Java's "no registry") takes no further settings: they would have
/// nothing to act on.
fn refuse_na_registry_settings(config: &DubboConfig) -> Result<(), ConfigError> {
    for (id, registry) in config.all_registries() {
        let address = registry.address.as_deref().unwrap_or("").trim();
        if !address.eq_ignore_ascii_case("N/A") {
            continue;
        }
        let key = config.registry_key(&id);
        if let Some(field) = registry_setting(&registry) {
            return Err(ConfigError::invalid(
                format!("{key}.{field}"),
                "has no effect on a registry whose address is N/A (no registry); remove it",
            ));
        }
    }
    Ok(())
}

/// The first setting of a registry besides its address.
fn registry_setting(r: &RegistryConfig) -> Option<&'static str> {
    [
        ("protocol", r.protocol.is_some()),
        ("timeout", r.timeout.is_some()),
        ("group", r.group.is_some()),
        ("register", r.register.is_some()),
        ("register-mode", r.register_mode.is_some()),
        ("use-as-config-center", r.use_as_config_center.is_some()),
        ("use-as-metadata-center", r.use_as_metadata_center.is_some()),
        ("zone", r.zone.is_some()),
        ("preferred", r.preferred.is_some()),
        ("parameters", !r.parameters.is_empty()),
    ]
    .into_iter()
    .find_map(|(name, set)| set.then_some(name))
}

/// Registration needs a registry: without one (none configured, or only `N/A`),
/// `register: true` and any `register-mode` would not be acted on, so they are refused;
/// `register: false` is what happens and is accepted.
fn refuse_registration(config: &DubboConfig) -> Result<(), ConfigError> {
    const WHY: &str = "nothing is registered: no registry is configured";
    let has_registry = config.all_registries().iter().any(|(_, r)| {
        !r.address
            .as_deref()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("N/A")
    });
    if has_registry {
        return Ok(());
    }
    if config.application.register_mode.is_some() {
        return Err(ConfigError::invalid(
            "dubbo.application.register-mode",
            format!("{WHY}; remove the key"),
        ));
    }
    if config.provider.register == Some(true) {
        return Err(ConfigError::invalid(
            "dubbo.provider.register",
            format!("{WHY}; remove the key or set it to false"),
        ));
    }
    for (id, s) in &config.services {
        if s.register == Some(true) {
            return Err(ConfigError::invalid(
                format!("dubbo.services.{id}.register"),
                format!("{WHY}; remove the key or set it to false"),
            ));
        }
    }
    Ok(())
}
