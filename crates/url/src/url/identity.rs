//! The service a [`Url`] names: interface, group, version and the keys built from them.

use super::java::java_is_blank;
use super::Url;
use crate::keys;

impl Url {
    /// The non-empty `interface` parameter, else the path (Java `getServiceInterface`).
    pub fn service_interface(&self) -> Option<&str> {
        non_empty(self.parameter(keys::INTERFACE)).or_else(|| self.path())
    }

    /// The non-empty `group` parameter.
    pub fn group(&self) -> Option<&str> {
        non_empty(self.parameter(keys::GROUP))
    }

    /// The non-empty `version` parameter.
    pub fn version(&self) -> Option<&str> {
        non_empty(self.parameter(keys::VERSION))
    }

    /// The non-empty `side` parameter (`provider` / `consumer`).
    pub fn side(&self) -> Option<&str> {
        non_empty(self.parameter(keys::SIDE))
    }

    /// The non-empty `application` parameter.
    pub fn application(&self) -> Option<&str> {
        non_empty(self.parameter(keys::APPLICATION))
    }

    /// The non-empty `category` parameter.
    pub fn category(&self) -> Option<&str> {
        non_empty(self.parameter(keys::CATEGORY))
    }

    /// `group/interface:version`, each decoration only when non-empty (Java `getServiceKey`,
    /// `URL.buildKey`). Version `0.0.0` is kept, as Java keeps it; see
    /// [`service_key_for_matching`](Self::service_key_for_matching).
    ///
    /// ```
    /// let url = dubbo_url::Url::parse("dubbo://h:1/org.Foo?group=g&version=1.0").unwrap();
    /// assert_eq!(url.service_key().as_deref(), Some("g/org.Foo:1.0"));
    /// ```
    pub fn service_key(&self) -> Option<String> {
        Some(build_key(
            self.service_interface()?,
            self.group(),
            self.version(),
        ))
    }

    /// The service key with version `0.0.0` or `*` treated as no version, the form under which
    /// Java's dubbo protocol registers exporters (`GroupServiceKeyCache`) and so the form two
    /// sides must agree on.
    pub fn service_key_for_matching(&self) -> Option<String> {
        let version = self
            .version()
            .filter(|v| *v != keys::DEFAULT_VERSION && *v != keys::ANY_VALUE);
        Some(build_key(self.service_interface()?, self.group(), version))
    }

    /// Like [`service_key`](Self::service_key) but with the path (when non-empty) instead of
    /// the interface (Java `getPathKey`).
    pub fn path_key(&self) -> Option<String> {
        let inf = non_empty(self.path()).or_else(|| self.service_interface())?;
        Some(build_key(inf, self.group(), self.version()))
    }

    /// `interface[:version]` (Java `getDisplayServiceKey`).
    pub fn display_service_key(&self) -> Option<String> {
        let inf = self.service_interface()?;
        Some(match self.version() {
            Some(v) => format!("{inf}:{v}"),
            None => inf.to_owned(),
        })
    }

    /// The service key followed by `:protocol`, except for `consumer://` Urls (Java
    /// `getProtocolServiceKey`).
    pub fn protocol_service_key(&self) -> Option<String> {
        let key = self.service_key()?;
        Some(if self.protocol() == Some(keys::CONSUMER) {
            key
        } else {
            format!("{key}:{}", self.protocol().unwrap_or("null"))
        })
    }

    /// `interface:version:group` with empty parts keeping their colon, e.g. `org.Foo::` (Java
    /// `getColonSeparatedKey`; versions and groups made of whitespace count as empty). This is
    /// the key of service-scope rules in the config center.
    pub fn colon_separated_key(&self) -> String {
        let mut out = String::from(self.service_interface().unwrap_or(""));
        for key in [keys::VERSION, keys::GROUP] {
            out.push(':');
            if let Some(v) = self.parameter(key).filter(|v| !java_is_blank(v)) {
                out.push_str(v);
            }
        }
        out
    }
}

/// `Some(s)` only when `s` is non-empty: Java's `StringUtils.isEmpty` checks.
pub(crate) fn non_empty(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// `BaseServiceMetadata.buildServiceKey(path, group, version)`.
pub(crate) fn build_key(path: &str, group: Option<&str>, version: Option<&str>) -> String {
    let mut out = String::with_capacity(path.len() + 16);
    if let Some(g) = non_empty(group) {
        out.push_str(g);
        out.push('/');
    }
    out.push_str(path);
    if let Some(v) = non_empty(version) {
        out.push(':');
        out.push_str(v);
    }
    out
}
