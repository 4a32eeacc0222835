//! Keys that the configuration accepts but whose feature is not implemented yet: refused when an
//! application starts, naming the key, instead of being silently ignored.
//!
//! The rule: every key either has an effect or is refused by [`Application::build`]. Values that
//! ask for nothing (`qos-enable: false`, `generic: false`) are accepted,
//! because that is exactly what happens.
//!
//! [`Application::build`]: crate::Application::build

use super::{ConfigError, DubboConfig};

/// Refuses every key whose feature is missing: QoS, and generic references by configuration.
pub(crate) fn refuse_unimplemented(config: &DubboConfig) -> Result<(), ConfigError> {
    refuse_qos(config)?;
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

/// QoS (Java's telnet/HTTP operations port) is not implemented, and dubbo-rs never opens its
/// port. Java enables it by default on 22222, so a Java application's YAML often carries these
/// keys: `qos-enable: false` says what dubbo-rs does anyway and is accepted, together with a
/// `qos-port` or `qos-accept-foreign-ip` that a disabled QoS ignores in Java too. Asking for QoS
/// (`qos-enable: true`, or a port or foreign-IP setting without `qos-enable: false`, which Java
/// reads as "enabled") is refused rather than silently not served.
fn refuse_qos(config: &DubboConfig) -> Result<(), ConfigError> {
    let app = &config.application;
    if app.qos_enable == Some(false) {
        return Ok(());
    }
    let asked = if app.qos_enable == Some(true) {
        Some("qos-enable")
    } else if app.qos_port.is_some() {
        Some("qos-port")
    } else if app.qos_accept_foreign_ip.is_some() {
        Some("qos-accept-foreign-ip")
    } else {
        None
    };
    match asked {
        Some(key) => Err(ConfigError::invalid(
            format!("dubbo.application.{key}"),
            "QoS is not implemented yet and no QoS port is opened; set \
             dubbo.application.qos-enable to false (Java's default is true, on port 22222)",
        )),
        None => Ok(()),
    }
}
