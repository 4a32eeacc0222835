//! Identity of an exported or referenced service.

use std::fmt;
use std::sync::Arc;

/// The key Dubbo uses to find an exporter: interface name, optional group, optional version.
///
/// Java Dubbo treats the version `"0.0.0"` and the empty version as "no version"; so does
/// `ServiceKey`: both normalise to `None`, and an empty group is `None` too.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServiceKey {
    interface: Arc<str>,
    group: Option<Arc<str>>,
    version: Option<Arc<str>>,
}

impl ServiceKey {
    /// A key for `interface` with the given group and version (empty and `"0.0.0"` mean none).
    pub fn new(interface: impl Into<Arc<str>>, group: Option<&str>, version: Option<&str>) -> Self {
        Self {
            interface: interface.into(),
            group: group.filter(|g| !g.is_empty()).map(Arc::from),
            version: version
                .filter(|v| !v.is_empty() && *v != "0.0.0")
                .map(Arc::from),
        }
    }

    /// A key with neither group nor version.
    pub fn interface_only(interface: impl Into<Arc<str>>) -> Self {
        Self::new(interface, None, None)
    }

    /// The Java interface name (or the IDL service name).
    pub fn interface(&self) -> &str {
        &self.interface
    }

    /// The group, if any.
    pub fn group(&self) -> Option<&str> {
        self.group.as_deref()
    }

    /// The version, if any.
    pub fn version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    /// The version as a Java consumer puts it on the dubbo:// wire: `"0.0.0"` when none is set.
    pub fn wire_version(&self) -> &str {
        self.version.as_deref().unwrap_or("0.0.0")
    }

    /// The same service with another version.
    pub fn with_version(&self, version: Option<&str>) -> Self {
        Self::new(self.interface.clone(), self.group.as_deref(), version)
    }

    /// The same service with another group.
    pub fn with_group(&self, group: Option<&str>) -> Self {
        Self::new(self.interface.clone(), group, self.version.as_deref())
    }
}

/// Formats as Java's `URL.buildKey`: `group/interface:version`, leaving out absent parts.
impl fmt::Display for ServiceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.group {
            write!(f, "{g}/")?;
        }
        f.write_str(&self.interface)?;
        if let Some(v) = &self.version {
            write!(f, ":{v}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ServiceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ServiceKey({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_version_and_empty_group_are_none() {
        let k = ServiceKey::new("a.B", Some(""), Some("0.0.0"));
        assert_eq!(k, ServiceKey::interface_only("a.B"));
        assert_eq!(k.wire_version(), "0.0.0");
        assert_eq!(k.to_string(), "a.B");
    }

    #[test]
    fn display_matches_java_build_key() {
        let k = ServiceKey::new("a.B", Some("g"), Some("1.0.0"));
        assert_eq!(k.to_string(), "g/a.B:1.0.0");
    }
}
