//! [`MetadataInfo`]: what an application serves, keyed by revision; the revision rule is
//! Java's (`MetadataInfo.calAndGetRevision`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use dubbo_url::Url;
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use crate::error::RegistryError;

/// The revision of an application that serves nothing.
pub const EMPTY_REVISION: &str = "0";

/// Provider URL parameters that never go into service metadata (Java's
/// `DefaultMetadataParamsFilter` exclusions): they differ per instance or per start, and
/// would give every instance its own revision.
const EXCLUDED_PARAMS: &[&str] = &[
    "monitor",
    "bind.ip",
    "bind.port",
    "validation",
    "interfaces",
    "pid",
    "timestamp",
    "heartbeat.timeout",
    "ipv6",
];

/// One service of an application's metadata (Java's `MetadataInfo.ServiceInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServiceInfo {
    /// The interface name.
    pub name: String,
    /// The group, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The version, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The protocol it is served over.
    pub protocol: String,
    /// The port it is served on.
    #[serde(default)]
    pub port: u16,
    /// The URL path (usually the interface name).
    #[serde(default)]
    pub path: String,
    /// The provider URL's parameters, minus the per-instance ones.
    #[serde(default)]
    pub params: BTreeMap<String, String>,
}

impl ServiceInfo {
    /// The service info of a provider URL.
    pub fn from_url(url: &Url) -> Self {
        let params = url
            .params()
            .iter()
            .filter(|(k, _)| !EXCLUDED_PARAMS.contains(k) && !k.starts_with("qos."))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let non_empty = |s: Option<&str>| s.filter(|s| !s.is_empty()).map(str::to_owned);
        let name = url
            .service_interface()
            .or(url.path())
            .unwrap_or_default()
            .to_owned();
        Self {
            path: url.path().unwrap_or(&name).to_owned(),
            name,
            group: non_empty(url.group()),
            version: non_empty(url.version()),
            protocol: url.protocol().unwrap_or("dubbo").to_owned(),
            port: url.port(),
            params,
        }
    }

    /// The service key, `{group/}{interface}{:version}`.
    pub fn service_key(&self) -> String {
        let mut key = String::new();
        if let Some(g) = self.group.as_deref().filter(|g| !g.is_empty()) {
            key.push_str(g);
            key.push('/');
        }
        key.push_str(&self.name);
        if let Some(v) = self.version.as_deref().filter(|v| !v.is_empty()) {
            key.push(':');
            key.push_str(v);
        }
        key
    }

    /// The key services are stored under in [`MetadataInfo::services`]: the service key and
    /// the protocol, `{group/}{interface}{:version}:{protocol}`.
    pub fn match_key(&self) -> String {
        if self.protocol.is_empty() {
            self.service_key()
        } else {
            format!("{}:{}", self.service_key(), self.protocol)
        }
    }

    /// Java's `toDescString`: match key, port, path, then the parameters as a Java `TreeMap`
    /// prints them (`{k1=v1, k2=v2}`, keys in Java's `String` order, see [`java_order`]).
    fn desc(&self) -> String {
        let mut s = self.match_key();
        let _ = write!(s, "{}{}{{", self.port, self.path);
        for (i, (k, v)) in java_order(&self.params).into_iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "{k}={v}");
        }
        s.push('}');
        s
    }
}

/// The entries of `map` in the order of a Java `TreeMap<String, _>`: `String.compareTo` compares
/// UTF-16 code units, which differs from Rust's byte (code point) order when U+E000..U+FFFF
/// meets a character above U+FFFF (a surrogate pair sorts first in Java).
fn java_order<V>(map: &BTreeMap<String, V>) -> Vec<(&String, &V)> {
    let mut entries: Vec<(&String, &V)> = map.iter().collect();
    if entries
        .iter()
        .any(|(k, _)| k.chars().any(|c| c > '\u{FFFF}'))
    {
        entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    }
    entries
}

/// What one application serves (Java's `MetadataInfo`): consumers fetch it once per revision
/// and share it among every instance that announces that revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetadataInfo {
    /// The application name.
    pub app: String,
    /// The revision, see [`MetadataInfo::calculate_revision`].
    pub revision: String,
    /// The services, keyed by [`ServiceInfo::match_key`].
    #[serde(default)]
    pub services: BTreeMap<String, ServiceInfo>,
}

impl MetadataInfo {
    /// An application's metadata with no service; its revision is `"0"`.
    pub fn new(app: impl Into<String>) -> Self {
        Self {
            app: app.into(),
            revision: EMPTY_REVISION.to_owned(),
            services: BTreeMap::new(),
        }
    }

    /// Adds (or replaces) a service and recomputes the revision.
    pub fn add_service(&mut self, service: ServiceInfo) {
        self.services.insert(service.match_key(), service);
        self.revision = self.calculate_revision();
    }

    /// Removes the service stored under `match_key` and recomputes the revision.
    pub fn remove_service(&mut self, match_key: &str) -> Option<ServiceInfo> {
        let removed = self.services.remove(match_key);
        self.revision = self.calculate_revision();
        removed
    }

    /// The revision Java computes for the same application and services: lowercase hex MD5 of
    /// the application name followed by every service's description in key order (Java's
    /// `String` order, see [`java_order`]); `"0"` with no service.
    pub fn calculate_revision(&self) -> String {
        if self.services.is_empty() {
            return EMPTY_REVISION.to_owned();
        }
        let mut text = self.app.clone();
        for (_, service) in java_order(&self.services) {
            text.push_str(&service.desc());
        }
        let digest = Md5::digest(text.as_bytes());
        let mut hex = String::with_capacity(32);
        for b in digest {
            let _ = write!(hex, "{b:02x}");
        }
        hex
    }

    /// The JSON the metadata report stores at `/dubbo/metadata/{app}/{revision}`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Reads metadata JSON found at `path` (for the error message); unknown fields are
    /// ignored.
    pub fn from_json(path: &str, data: &[u8]) -> Result<Self, RegistryError> {
        serde_json::from_slice(data).map_err(|e| RegistryError::BadData {
            path: path.to_owned(),
            reason: format!("not metadata JSON: {e}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info() -> ServiceInfo {
        ServiceInfo {
            name: "org.apache.dubbo.demo.DemoService".into(),
            group: None,
            version: None,
            protocol: "dubbo".into(),
            port: 20880,
            path: "org.apache.dubbo.demo.DemoService".into(),
            params: BTreeMap::from([
                ("side".to_owned(), "provider".to_owned()),
                ("methods".to_owned(), "sayHello".to_owned()),
            ]),
        }
    }

    #[test]
    fn match_key_carries_group_version_and_protocol() {
        let mut s = info();
        assert_eq!(s.match_key(), "org.apache.dubbo.demo.DemoService:dubbo");
        s.group = Some("g".into());
        s.version = Some("1.0".into());
        assert_eq!(
            s.match_key(),
            "g/org.apache.dubbo.demo.DemoService:1.0:dubbo"
        );
    }

    #[test]
    fn desc_is_javas_tree_map_form() {
        assert_eq!(
            info().desc(),
            "org.apache.dubbo.demo.DemoService:dubbo20880org.apache.dubbo.demo.DemoService{methods=sayHello, side=provider}"
        );
    }

    #[test]
    fn revision_is_md5_of_app_and_descs_and_zero_when_empty() {
        let mut m = MetadataInfo::new("demo");
        assert_eq!(m.revision, "0");
        m.add_service(info());
        let expected = {
            let text = format!("demo{}", info().desc());
            let d = Md5::digest(text.as_bytes());
            d.iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        assert_eq!(m.revision, expected);
        assert_eq!(m.revision.len(), 32);
        m.remove_service(&info().match_key());
        assert_eq!(m.revision, "0");
    }

    #[test]
    fn keys_sort_as_java_strings() {
        let mut s = info();
        s.params = BTreeMap::from([
            ("\u{FF21}".to_owned(), "a".to_owned()),
            ("\u{1F600}".to_owned(), "b".to_owned()),
            ("z".to_owned(), "c".to_owned()),
        ]);
        assert!(
            s.desc().ends_with("{z=c, \u{1F600}=b, \u{FF21}=a}"),
            "{}",
            s.desc()
        );
    }

    #[test]
    fn per_instance_params_stay_out_of_the_metadata() {
        let url = Url::parse(
            "dubbo://127.0.0.1:20880/org.foo.Svc?interface=org.foo.Svc&pid=42&timestamp=1&qos.port=2&side=provider&version=1.0",
        )
        .unwrap();
        let s = ServiceInfo::from_url(&url);
        assert_eq!(s.match_key(), "org.foo.Svc:1.0:dubbo");
        assert!(!s.params.contains_key("pid"));
        assert!(!s.params.contains_key("timestamp"));
        assert!(!s.params.contains_key("qos.port"));
        assert_eq!(s.params.get("side").map(String::as_str), Some("provider"));
    }

    #[test]
    fn json_reads_back_and_ignores_unknown_fields() {
        let mut m = MetadataInfo::new("demo");
        m.add_service(info());
        let back = MetadataInfo::from_json("/p", m.to_json().as_bytes()).unwrap();
        assert_eq!(back, m);
        let java = br#"{"app":"demo","revision":"r","services":{"a:dubbo":{"name":"a","protocol":"dubbo","port":1,"path":"a","params":{},"serviceKey":"a","matchKey":"a:dubbo"}},"extra":1}"#;
        let m = MetadataInfo::from_json("/p", java).unwrap();
        assert_eq!(m.services["a:dubbo"].name, "a");
        assert!(MetadataInfo::from_json("/p", b"[1]").is_err());
    }
}
