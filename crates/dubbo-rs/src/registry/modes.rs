//! How providers register (`register-mode`) and how consumers discover (`migration.step`).

/// Where a provider registers (Java's `register-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterMode {
    /// Interface-level only: one URL per service under `/dubbo/{interface}/providers`.
    Interface,
    /// Application-level only: one instance per application, with its metadata.
    Instance,
    /// Both (Java 3.3's default), so consumers of either model find the provider.
    All,
}

impl RegisterMode {
    /// The mode named `name` (`interface`, `instance`, `all`).
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "interface" => Some(Self::Interface),
            "instance" => Some(Self::Instance),
            "all" => Some(Self::All),
            _ => None,
        }
    }

    /// Whether service URLs are registered one by one.
    pub fn interface_level(self) -> bool {
        matches!(self, Self::Interface | Self::All)
    }

    /// Whether the application registers an instance.
    pub fn instance_level(self) -> bool {
        matches!(self, Self::Instance | Self::All)
    }
}

/// Which addresses a consumer uses (Java's `MigrationStep`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MigrationStep {
    /// Interface-level addresses only.
    ForceInterface,
    /// Application-level addresses when there are some and their count reaches the migration
    /// `threshold` times the interface-level count, else interface-level ones. Java 3.3's
    /// default.
    ApplicationFirst,
    /// Application-level addresses only; the provider's application comes from the
    /// service-name mapping or `provided-by`.
    ForceApplication,
}

impl MigrationStep {
    /// The step named `name`, as Java spells it.
    pub fn parse(name: &str) -> Option<Self> {
        match name.trim() {
            "FORCE_INTERFACE" => Some(Self::ForceInterface),
            "APPLICATION_FIRST" => Some(Self::ApplicationFirst),
            "FORCE_APPLICATION" => Some(Self::ForceApplication),
            _ => None,
        }
    }

    /// Whether interface-level addresses are subscribed to.
    pub fn uses_interface(self) -> bool {
        !matches!(self, Self::ForceApplication)
    }

    /// Whether application-level addresses are subscribed to.
    pub fn uses_application(self) -> bool {
        !matches!(self, Self::ForceInterface)
    }
}
