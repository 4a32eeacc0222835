//! [`ConfiguratorSource`]: where a directory's override rules come from.

/// The three places a consumer takes override rules from, applied to every provider URL in
/// this order (Java `RegistryDirectory.overrideWithConfigurator`), so a later source wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfiguratorSource {
    /// `override://` URLs the registry pushes in the interface-level `configurators`
    /// category ([`Configurators::from_override_urls`](super::Configurators::from_override_urls)).
    Registry,
    /// The consumer application's rule in the config centre (`{application}.configurators`).
    Application,
    /// The referenced service's rule in the config centre
    /// (`{interface}:{version}:{group}.configurators`, `{interface}::.configurators` for a
    /// service without version and group).
    Service,
}

impl ConfiguratorSource {
    /// Every source, in the order their rules are applied.
    pub const ALL: [ConfiguratorSource; 3] = [
        ConfiguratorSource::Registry,
        ConfiguratorSource::Application,
        ConfiguratorSource::Service,
    ];

    /// The position of this source in [`ALL`](Self::ALL).
    pub(crate) fn index(self) -> usize {
        match self {
            ConfiguratorSource::Registry => 0,
            ConfiguratorSource::Application => 1,
            ConfiguratorSource::Service => 2,
        }
    }
}
