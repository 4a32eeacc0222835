//! [`ConfiguratorKind`]: whether an override entry replaces parameters or only fills gaps.

/// How an override entry changes a URL; Java picks its `ConfiguratorFactory` extension by the
/// entry URL's protocol, and so does [`Configurators`](super::Configurators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfiguratorKind {
    /// `override://`: the entry's parameters replace the URL's (Java `OverrideConfigurator`).
    Override,
    /// `absent://`: the entry's parameters are added only where the URL has none (Java
    /// `AbsentConfigurator`).
    Absent,
}

impl ConfiguratorKind {
    /// The kind named by an entry URL's protocol; `None` for any other protocol.
    pub fn from_protocol(protocol: &str) -> Option<Self> {
        match protocol {
            "override" => Some(ConfiguratorKind::Override),
            "absent" => Some(ConfiguratorKind::Absent),
            _ => None,
        }
    }
}
