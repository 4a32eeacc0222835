//! Checks that go beyond types, each naming the key at fault.

use super::{ConfigError, DubboConfig};

/// The protocol names a configuration may use, as error messages list them.
const PROTOCOLS: &[&str] = &["dubbo", "tri", "triple"];

/// Whether `name` is a protocol dubbo-rs speaks, under any of its names (aliases are mapped
/// in one place, `dubbo_url::canonical_protocol`).
fn known_protocol(name: &str) -> bool {
    matches!(dubbo_url::canonical_protocol(name), "dubbo" | "tri")
}

/// Checks every value that its type alone does not constrain (names, ports, modes, ids that
/// must refer to configured protocols and registries), naming the first key at fault.
pub fn validate(config: &DubboConfig) -> Result<(), ConfigError> {
    super::pushgateway_target(config)?;
    super::tracer_config(config)?;
    super::ssl::validate(config)?;
    if let Some(name) = &config.application.name {
        if name.trim().is_empty() {
            return Err(ConfigError::invalid(
                "dubbo.application.name",
                "must not be empty",
            ));
        }
    }
    if let Some(env) = &config.application.environment {
        if !matches!(env.as_str(), "develop" | "test" | "product") {
            return Err(ConfigError::invalid(
                "dubbo.application.environment",
                format!("{env:?} is not one of develop, test, product"),
            ));
        }
    }
    if let Some(mode) = &config.application.register_mode {
        check_register_mode("dubbo.application.register-mode", mode)?;
    }
    if let Some(t) = &config.application.metadata_type {
        if !matches!(t.as_str(), "local" | "remote") {
            return Err(ConfigError::invalid(
                "dubbo.application.metadata-type",
                format!("{t:?} is not one of local, remote"),
            ));
        }
    }
    if let Some(m) = &config.application.migration {
        if let Some(step) = &m.step {
            if !matches!(
                step.as_str(),
                "FORCE_INTERFACE" | "APPLICATION_FIRST" | "FORCE_APPLICATION"
            ) {
                return Err(ConfigError::invalid(
                    "dubbo.application.migration.step",
                    format!(
                        "{step:?} is not one of FORCE_INTERFACE, APPLICATION_FIRST, \
                         FORCE_APPLICATION"
                    ),
                ));
            }
        }
        if let Some(t) = &m.threshold {
            if !t
                .trim()
                .parse::<f64>()
                .is_ok_and(|t| t.is_finite() && t >= 0.0)
            {
                return Err(ConfigError::invalid(
                    "dubbo.application.migration.threshold",
                    format!("{t:?} is not a number of at least 0"),
                ));
            }
        }
    }
    let mut checked = Vec::new();
    if let Some(p) = &config.protocol {
        checked.push((
            "dubbo.protocol".to_owned(),
            p.name.clone().unwrap_or_else(|| "dubbo".into()),
            p,
        ));
    }
    for (id, p) in &config.protocols {
        checked.push((
            format!("dubbo.protocols.{id}"),
            p.protocol_name(id).to_owned(),
            p,
        ));
    }
    for (key, name, p) in checked {
        if !known_protocol(&name) {
            return Err(ConfigError::invalid(
                format!("{key}.name"),
                format!("unknown protocol {name:?}; expected one of {PROTOCOLS:?}"),
            ));
        }
        if let Some(port) = p.port {
            if !(-1..=65535).contains(&port) {
                return Err(ConfigError::invalid(
                    format!("{key}.port"),
                    format!("{port} is not a port (0-65535, or -1 for the default)"),
                ));
            }
        }
        if let Some(d) = &p.dispatcher {
            if !matches!(
                d.as_str(),
                "all" | "direct" | "message" | "execution" | "connection"
            ) {
                return Err(ConfigError::invalid(
                    format!("{key}.dispatcher"),
                    format!("unknown dispatcher {d:?}; expected all or direct"),
                ));
            }
        }
        if p.threads == Some(0) {
            return Err(ConfigError::invalid(
                format!("{key}.threads"),
                "must be at least 1",
            ));
        }
        if p.payload == Some(0) {
            return Err(ConfigError::invalid(
                format!("{key}.payload"),
                "must be at least 1",
            ));
        }
    }
    for (id, r) in config.all_registries() {
        let key = config.registry_key(&id);
        match &r.address {
            None => {
                return Err(ConfigError::invalid(
                    format!("{key}.address"),
                    "is required",
                ))
            }
            Some(a) if a.trim().is_empty() => {
                return Err(ConfigError::invalid(
                    format!("{key}.address"),
                    "must not be empty",
                ))
            }
            _ => {}
        }
        if let Some(mode) = &r.register_mode {
            check_register_mode(&format!("{key}.register-mode"), mode)?;
        }
    }
    let protocol_ids: Vec<String> = config
        .all_protocols()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    for (id, s) in &config.services {
        for p in &s.protocols {
            if !protocol_ids.contains(p) {
                return Err(ConfigError::invalid(
                    format!("dubbo.services.{id}.protocols"),
                    format!("no protocol with id {p:?} is configured (have {protocol_ids:?})"),
                ));
            }
        }
    }
    let registry_ids: Vec<String> = config
        .all_registries()
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let check_registries = |key: String, ids: &[String]| -> Result<(), ConfigError> {
        for r in ids {
            if !registry_ids.contains(r) {
                return Err(ConfigError::invalid(
                    key,
                    format!("no registry with id {r:?} is configured (have {registry_ids:?})"),
                ));
            }
        }
        Ok(())
    };
    for (id, s) in &config.services {
        check_registries(format!("dubbo.services.{id}.registries"), &s.registries)?;
    }
    check_flow_control(
        "dubbo.provider.flowcontrol",
        config.provider.flowcontrol.as_deref(),
    )?;
    for (name, m) in &config.modules {
        if let Some(p) = &m.provider {
            check_flow_control(
                &format!("dubbo.modules.{name}.provider.flowcontrol"),
                p.flowcontrol.as_deref(),
            )?;
        }
    }
    for (id, s) in &config.services {
        check_flow_control(
            &format!("dubbo.services.{id}.flowcontrol"),
            s.flowcontrol.as_deref(),
        )?;
    }
    for (id, r) in &config.references {
        check_registries(format!("dubbo.references.{id}.registries"), &r.registries)?;
    }
    for (id, r) in &config.references {
        let key = format!("dubbo.references.{id}");
        if let Some(urls) = &r.url {
            for u in urls.split(';').map(str::trim).filter(|u| !u.is_empty()) {
                // `host:port` without a scheme speaks the reference's protocol.
                let scheme = u.split_once("://").map(|(s, _)| s);
                if scheme.is_some_and(|s| !known_protocol(s)) {
                    return Err(ConfigError::invalid(
                        format!("{key}.url"),
                        format!("{u:?} is not a dubbo:// or tri:// address"),
                    ));
                }
            }
        }
        if let Some(p) = &r.protocol {
            if !known_protocol(p) {
                return Err(ConfigError::invalid(
                    format!("{key}.protocol"),
                    format!("unknown protocol {p:?}; expected one of {PROTOCOLS:?}"),
                ));
            }
        }
        if r.timeout == Some(0) {
            return Err(ConfigError::invalid(
                format!("{key}.timeout"),
                "must be at least 1 ms",
            ));
        }
    }
    Ok(())
}

fn check_flow_control(key: &str, value: Option<&str>) -> Result<(), ConfigError> {
    match value {
        Some(v) if !dubbo_core::filters::is_flow_control_name(v.trim()) => {
            Err(ConfigError::invalid(
                key,
                format!(
                    "{v:?} names no flow control; expected one of {:?}",
                    dubbo_core::filters::FLOW_CONTROL_NAMES
                ),
            ))
        }
        _ => Ok(()),
    }
}

fn check_register_mode(key: &str, mode: &str) -> Result<(), ConfigError> {
    if matches!(mode, "interface" | "instance" | "all") {
        Ok(())
    } else {
        Err(ConfigError::invalid(
            key,
            format!("{mode:?} is not one of interface, instance, all"),
        ))
    }
}
