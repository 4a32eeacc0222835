//! Address expressions of tag rules (Java `NetUtils.matchIpExpression`): `10.0.0.1:20880`,
//! `10.0.0.*`, `10.0.0.1-20`, `10.0.0.0/24`, `*`, and `0.0.0.0:port` for any host.

use std::net::Ipv4Addr;

/// Whether the provider at `host:port` matches any of `patterns`.
pub(crate) fn matches_any<'a>(
    patterns: impl IntoIterator<Item = &'a String>,
    host: &str,
    port: u16,
) -> bool {
    patterns
        .into_iter()
        .any(|p| matches(p, host, port) || *p == format!("0.0.0.0:{port}"))
}

/// Whether the provider at `host:port` matches `pattern`; a malformed pattern matches nothing.
pub(crate) fn matches(pattern: &str, host: &str, port: u16) -> bool {
    if let Some((net, bits)) = pattern.split_once('/') {
        return cidr_contains(net.trim(), bits.trim(), host);
    }
    let pattern = pattern.trim();
    if pattern == "*" || pattern == "*.*.*.*" {
        return true;
    }
    // The provider's own address, as the rule's `match` tags are resolved to: this covers
    // IPv6 hosts (`[::ffff:127.0.0.1]:20880`), which the IPv4 forms below cannot express.
    if host.contains(':') {
        let bracketed = if host.starts_with('[') {
            host.to_owned()
        } else {
            format!("[{host}]")
        };
        if pattern == bracketed || pattern == format!("{bracketed}:{port}") {
            return true;
        }
    }
    let host_ip = host.parse::<Ipv4Addr>().ok();
    let pattern = match (host_ip.is_some(), pattern.rsplit_once(':')) {
        // IPv4 patterns may carry a port, which must then be equal.
        (true, Some((h, p))) => {
            if p != port.to_string() {
                return false;
            }
            h
        }
        _ => pattern,
    };
    if pattern == host {
        return true;
    }
    let Some(ip) = host_ip else {
        // Java resolves names through DNS; without it, only equal text matches.
        return false;
    };
    if !pattern.contains('*') && !pattern.contains('-') {
        return pattern.parse::<Ipv4Addr>().is_ok_and(|p| p == ip);
    }
    let mask: Vec<&str> = pattern.split('.').collect();
    if mask.len() != 4 {
        return false;
    }
    mask.iter()
        .zip(ip.octets())
        .all(|(m, octet)| segment_matches(m, octet))
}

fn segment_matches(mask: &str, octet: u8) -> bool {
    if mask == "*" {
        return true;
    }
    if let Some((lo, hi)) = mask.split_once('-') {
        return match (lo.parse::<u16>(), hi.parse::<u16>()) {
            (Ok(lo), Ok(hi)) => (lo..=hi).contains(&u16::from(octet)),
            _ => false,
        };
    }
    mask.parse::<u16>().is_ok_and(|m| m == u16::from(octet))
}

fn cidr_contains(net: &str, bits: &str, host: &str) -> bool {
    let (Ok(net), Ok(bits), Ok(ip)) = (
        net.parse::<Ipv4Addr>(),
        bits.parse::<u32>(),
        host.parse::<Ipv4Addr>(),
    ) else {
        return false;
    };
    if bits > 32 {
        return false;
    }
    let mask = u32::MAX.checked_shl(32 - bits).unwrap_or(0);
    u32::from(net) & mask == u32::from(ip) & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_expressions() {
        assert!(matches("10.0.0.1:20880", "10.0.0.1", 20880));
        assert!(!matches("10.0.0.1:20880", "10.0.0.1", 20881));
        assert!(matches("10.0.0.1", "10.0.0.1", 1));
        assert!(matches("10.0.0.*", "10.0.0.7", 1));
        assert!(matches("10.0.0.1-9", "10.0.0.7", 1));
        assert!(!matches("10.0.0.1-5", "10.0.0.7", 1));
        assert!(matches("10.0.0.0/24", "10.0.0.200", 1));
        assert!(!matches("10.0.0.0/24", "10.0.1.1", 1));
        assert!(matches("*", "anything", 1));
        assert!(matches_any(&["0.0.0.0:7".to_owned()], "10.1.1.1", 7));
    }

    #[test]
    fn ipv6_hosts_match_their_own_address() {
        let host = "[::ffff:127.0.0.1]";
        assert!(matches("[::ffff:127.0.0.1]:20880", host, 20880));
        assert!(!matches("[::ffff:127.0.0.1]:20881", host, 20880));
        assert!(matches("[::ffff:127.0.0.1]", host, 20880));
        assert!(matches("[::1]:7", "::1", 7));
        assert!(!matches("[::2]:7", "::1", 7));
    }
}
