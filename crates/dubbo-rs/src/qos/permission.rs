//! Who may run which QoS command, decided as Java Dubbo 3.3 decides it.
//!
//! Two checks, in this order:
//!
//! 1. **The connection.** Unless `qos-accept-foreign-ip` is true or the anonymous level is
//!    anything but `NONE`, a foreign caller (not loopback) outside the whitelist is refused as
//!    soon as it connects.
//! 2. **The command.** Unless the anonymous level is `NONE`, each command needs a level: a
//!    command listed in `qos-anonymous-allow-commands` is open to all; otherwise a loopback
//!    caller has `PRIVATE`, a whitelisted one `PROTECTED`, any other the anonymous level
//!    (`PUBLIC` by default), and the caller's level must reach the command's.

use std::net::IpAddr;

use crate::config::{ApplicationConfig, ConfigError};

/// Java's refusal of a foreign caller at the connection.
pub(crate) const FOREIGN_IP_REFUSED: &str =
    "Foreign Ip Not Permitted, Consider Config It In Whitelist.";

/// How much a caller is trusted, and how much a command needs (Java's `PermissionLevel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum PermissionLevel {
    /// Reserved for the anonymous level: no permission check at all.
    None,
    /// The probes and `quit`.
    Public,
    /// Most commands (the default a command needs).
    Protected,
    /// What only this machine may run (`gracefulShutdown`).
    Private,
}

impl PermissionLevel {
    /// Reads Java's names (any case) and numbers (`1`, `2`, `3`).
    pub(crate) fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_uppercase().as_str() {
            "PUBLIC" | "1" => Some(Self::Public),
            "PROTECTED" | "2" => Some(Self::Protected),
            "PRIVATE" | "3" => Some(Self::Private),
            "NONE" => Some(Self::None),
            _ => None,
        }
    }
}

/// The access rules of one QoS port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AccessPolicy {
    pub(crate) accept_foreign_ip: bool,
    pub(crate) whitelist: Vec<IpPattern>,
    pub(crate) anonymous_level: PermissionLevel,
    pub(crate) anonymous_commands: Vec<String>,
}

/// The answer to "may this caller run this command?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    Allowed,
    Denied,
}

impl AccessPolicy {
    /// The rules the application configuration sets, or the key at fault.
    pub(crate) fn from_config(app: &ApplicationConfig) -> Result<Self, ConfigError> {
        let anonymous_level = match app.qos_anonymous_access_permission_level.as_deref() {
            None => PermissionLevel::Public,
            Some(text) => PermissionLevel::parse(text).ok_or_else(|| {
                ConfigError::invalid(
                    "dubbo.application.qos-anonymous-access-permission-level",
                    format!("{text:?} is not one of PUBLIC, PROTECTED, PRIVATE, NONE (or 1, 2, 3)"),
                )
            })?,
        };
        let whitelist = list(app.qos_accept_foreign_ip_whitelist.as_deref())
            .map(|p| {
                IpPattern::parse(&p).ok_or_else(|| {
                    ConfigError::invalid(
                        "dubbo.application.qos-accept-foreign-ip-whitelist",
                        format!(
                            "{p:?} is not an address, a CIDR range or an IPv4 pattern \
                             (`192.168.1.*`, `192.168.1.10-20`)"
                        ),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            accept_foreign_ip: app.qos_accept_foreign_ip.unwrap_or(false),
            whitelist,
            anonymous_level,
            anonymous_commands: list(app.qos_anonymous_allow_commands.as_deref()).collect(),
        })
    }

    /// Whether a caller from `peer` may stay connected at all (Java's foreign-host check).
    pub(crate) fn admits(&self, peer: IpAddr) -> bool {
        self.accept_foreign_ip
            || self.anonymous_level != PermissionLevel::None
            || peer.is_loopback()
            || self.whitelisted(peer)
    }

    /// Whether a caller from `peer` may run `command`, which needs `required`.
    pub(crate) fn decide(
        &self,
        peer: IpAddr,
        command: &str,
        required: PermissionLevel,
    ) -> Decision {
        if self.anonymous_level == PermissionLevel::None
            || self.anonymous_commands.iter().any(|c| c == command)
        {
            return Decision::Allowed;
        }
        let level = if peer.is_loopback() {
            PermissionLevel::Private
        } else if self.whitelisted(peer) {
            PermissionLevel::Protected
        } else {
            self.anonymous_level
        };
        if level >= required {
            Decision::Allowed
        } else {
            Decision::Denied
        }
    }

    /// Whether foreign callers could be answered at all, so the port must listen on every
    /// interface rather than on loopback only.
    pub(crate) fn serves_foreign_callers(&self, app: &ApplicationConfig) -> bool {
        self.accept_foreign_ip
            || !self.whitelist.is_empty()
            || app.qos_anonymous_access_permission_level.is_some()
            || !self.anonymous_commands.is_empty()
    }

    fn whitelisted(&self, peer: IpAddr) -> bool {
        let peer = canonical(peer);
        self.whitelist.iter().any(|p| p.matches(peer))
    }
}

/// The non-empty trimmed items of a comma-separated setting.
fn list(text: Option<&str>) -> impl Iterator<Item = String> + '_ {
    text.unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// An IPv4 address written as IPv6 (`::ffff:10.0.0.7`, what a dual-stack socket reports) as
/// the IPv4 address it is, so IPv4 patterns match it.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

/// One whitelist entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum IpPattern {
    /// An address and the number of leading bits that must match (all of them for a plain
    /// address).
    Cidr { network: IpAddr, bits: u8 },
    /// An IPv4 pattern: each octet an inclusive range (`*` is 0-255).
    Octets([(u8, u8); 4]),
}

impl IpPattern {
    /// Reads `10.0.0.7`, `10.0.0.0/8`, `fd00::/8`, `192.168.1.*` or `192.168.1.10-20`.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if let Some((address, bits)) = text.split_once('/') {
            let network: IpAddr = address.trim().parse().ok()?;
            let bits: u8 = bits.trim().parse().ok()?;
            let max = if network.is_ipv4() { 32 } else { 128 };
            return (bits <= max).then_some(Self::Cidr {
                network: canonical(network),
                bits,
            });
        }
        if let Ok(ip) = text.parse::<IpAddr>() {
            let ip = canonical(ip);
            let bits = if ip.is_ipv4() { 32 } else { 128 };
            return Some(Self::Cidr { network: ip, bits });
        }
        let parts: Vec<&str> = text.split('.').collect();
        let [a, b, c, d] = parts.as_slice() else {
            return None;
        };
        Some(Self::Octets([
            octet_range(a)?,
            octet_range(b)?,
            octet_range(c)?,
            octet_range(d)?,
        ]))
    }

    fn matches(&self, ip: IpAddr) -> bool {
        match (self, ip) {
            (Self::Cidr { network, bits }, ip) => same_prefix(*network, ip, *bits),
            (Self::Octets(ranges), IpAddr::V4(v4)) => ranges
                .iter()
                .zip(v4.octets())
                .all(|((low, high), o)| (*low..=*high).contains(&o)),
            (Self::Octets(_), IpAddr::V6(_)) => false,
        }
    }
}

/// `*`, `7` or `10-20` as an inclusive range of octet values.
fn octet_range(text: &str) -> Option<(u8, u8)> {
    if text == "*" {
        return Some((0, 255));
    }
    let (low, high) = text.split_once('-').unwrap_or((text, text));
    let (low, high): (u8, u8) = (low.parse().ok()?, high.parse().ok()?);
    (low <= high).then_some((low, high))
}

fn same_prefix(network: IpAddr, ip: IpAddr, bits: u8) -> bool {
    let (network, ip, width) = match (network, ip) {
        (IpAddr::V4(n), IpAddr::V4(i)) => (u128::from(u32::from(n)), u128::from(u32::from(i)), 32),
        (IpAddr::V6(n), IpAddr::V6(i)) => (u128::from(n), u128::from(i), 128),
        _ => return false,
    };
    let shift = width - u32::from(bits);
    if shift >= 128 {
        return true;
    }
    (network >> shift) == (ip >> shift)
}

#[cfg(test)]
mod tests {
    use super::*;
    use PermissionLevel::{Private, Protected, Public};

    fn policy(yaml: &str) -> AccessPolicy {
        let config =
            crate::config::DubboConfig::from_yaml(&format!("application:\n  name: a\n{yaml}"))
                .unwrap();
        AccessPolicy::from_config(&config.application).unwrap()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    fn allows(p: &AccessPolicy, peer: &str, command: &str, required: PermissionLevel) -> bool {
        p.decide(ip(peer), command, required) == Decision::Allowed
    }

    #[test]
    fn loopback_runs_everything_and_anonymous_foreign_callers_only_public_commands() {
        let p = policy("");
        for required in [Public, Protected, Private] {
            assert!(allows(&p, "127.0.0.1", "x", required));
            assert!(allows(&p, "::1", "x", required));
        }
        assert!(allows(&p, "10.1.2.3", "ready", Public));
        assert!(!allows(&p, "10.1.2.3", "ls", Protected));
        assert!(!allows(&p, "10.1.2.3", "gracefulShutdown", Private));
        // The connection itself is admitted: PUBLIC commands are open to foreign callers.
        assert!(p.admits(ip("10.1.2.3")));
    }

    #[test]
    fn whitelisted_callers_get_protected_commands() {
        let p = policy("  qos-accept-foreign-ip-whitelist: 10.0.0.0/8, 192.168.1.10-20 ,fd00::1\n");
        assert!(allows(&p, "10.9.9.9", "ls", Protected));
        assert!(!allows(&p, "10.9.9.9", "x", Private));
        assert!(allows(&p, "192.168.1.15", "ls", Protected));
        assert!(!allows(&p, "192.168.1.21", "ls", Protected));
        assert!(allows(&p, "fd00::1", "ls", Protected));
        // A dual-stack socket reports IPv4 callers as mapped IPv6 addresses.
        assert!(allows(&p, "::ffff:10.1.1.1", "ls", Protected));
    }

    #[test]
    fn the_anonymous_level_and_allowed_commands_widen_what_strangers_run() {
        let p = policy("  qos-anonymous-access-permission-level: protected\n");
        assert!(allows(&p, "8.8.8.8", "ls", Protected));
        assert!(!allows(&p, "8.8.8.8", "x", Private));
        let p = policy("  qos-anonymous-allow-commands: metrics, ls\n");
        assert!(allows(&p, "8.8.8.8", "metrics", Protected));
        assert!(allows(&p, "8.8.8.8", "ls", Protected));
        assert!(!allows(&p, "8.8.8.8", "invoke", Protected));
        let p = policy("  qos-anonymous-access-permission-level: 3\n");
        assert!(allows(&p, "8.8.8.8", "x", Private));
    }

    #[test]
    fn level_none_skips_the_command_check_and_leaves_the_connection_rules() {
        let p = policy("  qos-anonymous-access-permission-level: NONE\n");
        assert!(!p.admits(ip("8.8.8.8")));
        assert!(p.admits(ip("127.0.0.1")));
        assert!(allows(&p, "8.8.8.8", "x", Private));
        let p = policy(
            "  qos-anonymous-access-permission-level: NONE\n  qos-accept-foreign-ip-whitelist: 8.8.8.*\n",
        );
        assert!(p.admits(ip("8.8.8.8")));
        assert!(!p.admits(ip("8.8.4.4")));
        let p = policy(
            "  qos-anonymous-access-permission-level: NONE\n  qos-accept-foreign-ip: true\n",
        );
        assert!(p.admits(ip("8.8.4.4")));
    }

    #[test]
    fn bad_settings_name_their_key() {
        let refused = |yaml: &str| {
            let config =
                crate::config::DubboConfig::from_yaml(&format!("application:\n  name: a\n{yaml}"))
                    .unwrap();
            AccessPolicy::from_config(&config.application)
                .unwrap_err()
                .to_string()
        };
        let err = refused("  qos-anonymous-access-permission-level: ADMIN\n");
        assert!(
            err.contains("dubbo.application.qos-anonymous-access-permission-level"),
            "{err}"
        );
        let err = refused("  qos-accept-foreign-ip-whitelist: 10.0.0/33\n");
        assert!(
            err.contains("dubbo.application.qos-accept-foreign-ip-whitelist"),
            "{err}"
        );
    }

    #[test]
    fn ip_patterns() {
        let m = |p: &str, a: &str| IpPattern::parse(p).unwrap().matches(canonical(ip(a)));
        assert!(m("10.0.0.7", "10.0.0.7"));
        assert!(!m("10.0.0.7", "10.0.0.8"));
        assert!(m("0.0.0.0/0", "1.2.3.4"));
        assert!(m("172.16.0.0/12", "172.31.255.1"));
        assert!(!m("172.16.0.0/12", "172.32.0.1"));
        assert!(m("192.168.*.1-5", "192.168.77.5"));
        assert!(!m("192.168.*.1-5", "192.168.77.6"));
        assert!(m("fd00::/8", "fd12::1"));
        assert!(!m("fd00::/8", "10.0.0.1"));
        for bad in [
            "",
            "10.0.0",
            "1.2.3.4/40",
            "1.2.3.300",
            "1.2.3.9-2",
            "host.example",
        ] {
            assert_eq!(IpPattern::parse(bad), None, "{bad}");
        }
    }
}
