//! [`DefinitionId`]: which service definition a metadata report entry is (Java's
//! `MetadataIdentifier`), and where Java keeps it.

/// Interface, version, group, side and application of a published service definition.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DefinitionId {
    /// The Java interface name.
    pub interface: String,
    /// The version, empty for none.
    pub version: String,
    /// The group, empty for none.
    pub group: String,
    /// `provider` or `consumer`.
    pub side: String,
    /// The application that published it.
    pub application: String,
}

impl DefinitionId {
    /// The definition `application` publishes as a provider of `interface`.
    pub fn provider(interface: &str, version: &str, group: &str, application: &str) -> Self {
        Self {
            interface: interface.to_owned(),
            version: version.to_owned(),
            group: group.to_owned(),
            side: "provider".to_owned(),
            application: application.to_owned(),
        }
    }

    /// The entry `application` publishes as a consumer of `interface` (Java stores the
    /// reference's URL parameters there, not a definition).
    pub fn consumer(interface: &str, version: &str, group: &str, application: &str) -> Self {
        Self {
            side: "consumer".to_owned(),
            ..Self::provider(interface, version, group, application)
        }
    }

    /// Java's path key below the report's root: `metadata/{URL-encoded interface}/{version}/
    /// {group}/{side}/{application}`, empty segments left out (Java's `KeyTypeEnum.PATH`).
    pub fn path_key(&self) -> String {
        let interface = dubbo_url::encode(&self.interface);
        [
            "metadata",
            interface.as_str(),
            &self.version,
            &self.group,
            &self.side,
            &self.application,
        ]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("/")
    }

    /// The path key of the directory holding every application's entry of this service and
    /// side: [`path_key`](Self::path_key) without the application.
    pub fn side_path_key(&self) -> String {
        Self {
            application: String::new(),
            ..self.clone()
        }
        .path_key()
    }

    /// Java's unique key: `interface:version:group:side:application` (empty parts kept).
    pub fn unique_key(&self) -> String {
        [
            self.interface.as_str(),
            &self.version,
            &self.group,
            &self.side,
            &self.application,
        ]
        .join(":")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javas_path_leaves_empty_segments_out() {
        let id = DefinitionId::provider("org.foo.Svc", "1.0.0", "", "app");
        assert_eq!(id.path_key(), "metadata/org.foo.Svc/1.0.0/provider/app");
        let id = DefinitionId::provider("org.foo.Svc", "", "g", "app");
        assert_eq!(id.path_key(), "metadata/org.foo.Svc/g/provider/app");
        assert_eq!(id.unique_key(), "org.foo.Svc::g:provider:app");
        let id = DefinitionId::consumer("org.foo.Svc", "1.0.0", "", "app");
        assert_eq!(id.path_key(), "metadata/org.foo.Svc/1.0.0/consumer/app");
        assert_eq!(id.side_path_key(), "metadata/org.foo.Svc/1.0.0/consumer");
        let id = DefinitionId::consumer("org.foo.Svc", "", "", "app");
        assert_eq!(id.side_path_key(), "metadata/org.foo.Svc/consumer");
    }
}
