//! Where a provider binds, and the address it advertises (what goes into its exported URL and,
//! later, into a registry).
//!
//! The rules are Java Dubbo's (`ServiceConfig#findConfiguredHosts` / `findConfiguredPort`):
//!
//! | what | first of |
//! | --- | --- |
//! | bind host | `DUBBO_IP_TO_BIND`, the protocol's `host`, `0.0.0.0` (then `anyhost=true`) |
//! | advertised host | `DUBBO_IP_TO_REGISTRY`, the bind host unless it is an any-address, the machine's first suitable IPv4 address, `127.0.0.1` |
//! | bind port | `DUBBO_PORT_TO_BIND`, the protocol's `port` (`0`: a free one; absent or `-1`: the protocol's default) |
//! | advertised port | `DUBBO_PORT_TO_REGISTRY`, the bound port |
//!
//! Each variable may also be given for one protocol, which wins over the general one: Java's
//! `{PROTOCOL}_DUBBO_IP_TO_BIND` (`TRI_DUBBO_IP_TO_BIND`) or `DUBBO_{PROTOCOL}_IP_TO_BIND`.
//!
//! One difference from Java: a loopback `host` (`127.0.0.1`) is honoured as given, where Java
//! treats it as unset and binds every interface.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

use crate::config::{ConfigError, ProtocolConfig};

/// Java's name for the variable that picks the interface to advertise.
const PREFERRED_INTERFACE: &str = "DUBBO_PREFERRED_NETWORK_INTERFACE";

/// Where one protocol of a provider binds and what it advertises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProviderAddress {
    /// The host to bind (`0.0.0.0` when none is configured).
    pub(crate) bind_host: String,
    /// Whether the bind host is an any-address (`anyhost` URL parameter).
    pub(crate) anyhost: bool,
    /// The port to bind; `0` asks for a free one.
    pub(crate) bind_port: u16,
    /// The host consumers are told to connect to.
    pub(crate) advertised_host: String,
    /// The port consumers are told to connect to, when it is not the bound one.
    pub(crate) advertised_port: Option<u16>,
}

/// Resolves the addresses of protocol `name` configured as `pc` under `key` (e.g.
/// `dubbo.protocols.tri`), reading deployment variables from `env`. `machine` gives the
/// machine's address to advertise when nothing else says; it is only called when needed.
pub(crate) fn resolve(
    name: &str,
    key: &str,
    pc: &ProtocolConfig,
    default_port: u16,
    env: &BTreeMap<String, String>,
    machine: impl FnOnce(&BTreeMap<String, String>) -> Option<Ipv4Addr>,
) -> Result<ProviderAddress, ConfigError> {
    let bind_from_env = host_var(name, "IP_TO_BIND", env)?;
    let configured = pc
        .host
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty() && !is_any_host(h));
    let chosen = bind_from_env.or_else(|| configured.map(str::to_owned));
    let (bind_host, anyhost) = match &chosen {
        Some(h) => (h.clone(), false),
        None => ("0.0.0.0".to_owned(), true),
    };
    let advertised_host = match host_var(name, "IP_TO_REGISTRY", env)? {
        Some(h) => h,
        None => match chosen {
            Some(h) => h,
            None => machine(env).unwrap_or(Ipv4Addr::LOCALHOST).to_string(),
        },
    };
    let bind_port = match port_var(name, "PORT_TO_BIND", env, 0)? {
        Some(p) => p,
        None => match pc.port {
            None | Some(-1) => default_port,
            Some(p) => u16::try_from(p).map_err(|_| {
                ConfigError::invalid(
                    format!("{key}.port"),
                    format!("{p} is not a port (0-65535: 0 for a free port, -1 for the default)"),
                )
            })?,
        },
    };
    let advertised_port = port_var(name, "PORT_TO_REGISTRY", env, 1)?;
    Ok(ProviderAddress {
        bind_host,
        anyhost,
        bind_port,
        advertised_host,
        advertised_port,
    })
}

/// The machine's address to advertise: the first IPv4 address, neither loopback nor
/// unspecified nor link-local, of an interface that is up, preferring the interface named by
/// `DUBBO_PREFERRED_NETWORK_INTERFACE`. Only enumerates interfaces; sends nothing.
pub(crate) fn machine_ipv4(env: &BTreeMap<String, String>) -> Option<Ipv4Addr> {
    let interfaces = match if_addrs::get_if_addrs() {
        Ok(i) => i,
        Err(e) => {
            tracing::warn!(error = %e, "cannot list network interfaces; advertising 127.0.0.1");
            return None;
        }
    };
    let suitable = |i: &&if_addrs::Interface| {
        matches!(i.ip(), IpAddr::V4(ip) if !ip.is_loopback() && !ip.is_unspecified() && !ip.is_link_local())
            && !matches!(
                i.oper_status,
                if_addrs::IfOperStatus::Down | if_addrs::IfOperStatus::NotPresent
            )
    };
    let v4 = |i: &if_addrs::Interface| match i.ip() {
        IpAddr::V4(ip) => Some(ip),
        IpAddr::V6(_) => None,
    };
    if let Some(preferred) = env.get(PREFERRED_INTERFACE).filter(|p| !p.is_empty()) {
        if let Some(ip) = interfaces
            .iter()
            .filter(suitable)
            .find(|i| &i.name == preferred)
            .and_then(v4)
        {
            return Some(ip);
        }
    }
    interfaces.iter().find(suitable).and_then(v4)
}

/// Whether `host` stands for every interface.
pub(crate) fn is_any_host(host: &str) -> bool {
    let h = host.trim_start_matches('[').trim_end_matches(']');
    h.parse::<IpAddr>().is_ok_and(|ip| ip.is_unspecified())
}

/// The variables for `suffix` (`IP_TO_BIND`) in the order they are consulted: the protocol's
/// (Java's form, then `DUBBO_{PROTOCOL}_...`), then the general one.
fn var_names(protocol: &str, suffix: &str) -> [String; 3] {
    let p = protocol.to_ascii_uppercase();
    [
        format!("{p}_DUBBO_{suffix}"),
        format!("DUBBO_{p}_{suffix}"),
        format!("DUBBO_{suffix}"),
    ]
}

fn lookup<'a>(
    protocol: &str,
    suffix: &str,
    env: &'a BTreeMap<String, String>,
) -> Option<(String, &'a str)> {
    var_names(protocol, suffix).into_iter().find_map(|n| {
        env.get(&n)
            .map(|v| v.trim())
            .filter(|v| !v.is_empty())
            .map(|v| (n, v))
    })
}

fn host_var(
    protocol: &str,
    suffix: &str,
    env: &BTreeMap<String, String>,
) -> Result<Option<String>, ConfigError> {
    let Some((name, value)) = lookup(protocol, suffix, env) else {
        return Ok(None);
    };
    if is_any_host(value) || value.contains(|c: char| c.is_whitespace() || c == '/') {
        return Err(ConfigError::invalid(
            name,
            format!("{value:?} is not an address a consumer can reach"),
        ));
    }
    Ok(Some(value.to_owned()))
}

fn port_var(
    protocol: &str,
    suffix: &str,
    env: &BTreeMap<String, String>,
    min: u16,
) -> Result<Option<u16>, ConfigError> {
    let Some((name, value)) = lookup(protocol, suffix, env) else {
        return Ok(None);
    };
    match value.parse::<u16>() {
        Ok(p) if p >= min => Ok(Some(p)),
        _ => Err(ConfigError::invalid(
            name,
            format!("{value:?} is not a port ({min}-65535)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn pc(host: Option<&str>, port: Option<i32>) -> ProtocolConfig {
        ProtocolConfig {
            host: host.map(str::to_owned),
            port,
            ..ProtocolConfig::default()
        }
    }

    fn machine(_: &BTreeMap<String, String>) -> Option<Ipv4Addr> {
        Some(Ipv4Addr::new(192, 0, 2, 7))
    }

    fn resolve_with(
        p: &ProtocolConfig,
        e: &[(&str, &str)],
    ) -> Result<ProviderAddress, ConfigError> {
        resolve("tri", "dubbo.protocols.tri", p, 50051, &env(e), machine)
    }

    #[test]
    fn unset_host_binds_any_and_advertises_the_machine() {
        let a = resolve_with(&pc(None, None), &[]).unwrap();
        assert_eq!(a.bind_host, "0.0.0.0");
        assert!(a.anyhost);
        assert_eq!(a.advertised_host, "192.0.2.7");
        assert_eq!(a.bind_port, 50051);
        assert_eq!(a.advertised_port, None);
        let a = resolve_with(&pc(Some("0.0.0.0"), Some(0)), &[]).unwrap();
        assert!(a.anyhost);
        assert_eq!(a.bind_port, 0);
        let none = resolve("tri", "k", &pc(None, None), 1, &env(&[]), |_| None).unwrap();
        assert_eq!(none.advertised_host, "127.0.0.1");
    }

    #[test]
    fn configured_host_is_bound_and_advertised() {
        let a = resolve_with(&pc(Some("127.0.0.1"), Some(20000)), &[]).unwrap();
        assert_eq!(a.bind_host, "127.0.0.1");
        assert!(!a.anyhost);
        assert_eq!(a.advertised_host, "127.0.0.1");
        assert_eq!(a.bind_port, 20000);
    }

    #[test]
    fn variables_win_and_the_protocol_one_first() {
        let a = resolve_with(
            &pc(Some("127.0.0.1"), Some(20000)),
            &[
                ("DUBBO_IP_TO_REGISTRY", "10.1.1.1"),
                ("TRI_DUBBO_IP_TO_REGISTRY", "10.2.2.2"),
                ("DUBBO_IP_TO_BIND", "127.0.0.2"),
                ("DUBBO_PORT_TO_BIND", "0"),
                ("DUBBO_TRI_PORT_TO_REGISTRY", "30000"),
            ],
        )
        .unwrap();
        assert_eq!(a.advertised_host, "10.2.2.2");
        assert_eq!(a.bind_host, "127.0.0.2");
        assert_eq!(a.bind_port, 0);
        assert_eq!(a.advertised_port, Some(30000));
        // The bind variable is advertised when no registry one is set.
        let a = resolve_with(&pc(None, None), &[("DUBBO_IP_TO_BIND", "127.0.0.3")]).unwrap();
        assert_eq!(a.advertised_host, "127.0.0.3");
        assert!(!a.anyhost);
    }

    #[test]
    fn bad_values_name_their_key() {
        type Case<'a> = (ProtocolConfig, &'a [(&'a str, &'a str)], &'a str);
        let cases: [Case; 4] = [
            (
                pc(None, None),
                &[("DUBBO_IP_TO_REGISTRY", "0.0.0.0")],
                "DUBBO_IP_TO_REGISTRY",
            ),
            (
                pc(None, None),
                &[("DUBBO_PORT_TO_BIND", "70000")],
                "DUBBO_PORT_TO_BIND",
            ),
            (
                pc(None, None),
                &[("DUBBO_TRI_PORT_TO_REGISTRY", "0")],
                "DUBBO_TRI_PORT_TO_REGISTRY",
            ),
            (pc(None, Some(70000)), &[], "dubbo.protocols.tri.port"),
        ];
        for (p, e, key) in cases {
            let err = resolve_with(&p, e).unwrap_err();
            assert!(err.to_string().contains(key), "{err}");
        }
    }

    #[test]
    fn machine_address_is_not_loopback() {
        if let Some(ip) = machine_ipv4(&BTreeMap::new()) {
            assert!(!ip.is_loopback() && !ip.is_unspecified());
        }
    }
}
