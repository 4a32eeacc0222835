//! Where governance rules and external configuration live: Java Dubbo's keys and groups, and
//! the node layout of tree-shaped config centres.

use dubbo_url::Url;

use crate::error::ConfigCenterError;

/// The group rules and global configuration live in unless a config centre says otherwise.
pub const DEFAULT_GROUP: &str = "dubbo";

/// The group of migration rules (`{app}.migration`).
pub const MIGRATION_GROUP: &str = "DUBBO_SERVICEDISCOVERY_MIGRATION";

/// The key of external configuration: global in [`DEFAULT_GROUP`], an application's own in
/// the group named after the application.
pub const EXTERNAL_CONFIG_KEY: &str = "dubbo.properties";

/// The kinds of governance rule, each stored under `{target}.{suffix}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// Override rules (`.configurators`).
    Configurators,
    /// Condition routing rules (`.condition-router`).
    ConditionRouter,
    /// Tag routing rules (`.tag-router`; application scope only).
    TagRouter,
    /// Script routing rules (`.script-router`; application scope only).
    ScriptRouter,
    /// Migration rules (`.migration`, in [`MIGRATION_GROUP`]; application scope only).
    Migration,
}

impl RuleKind {
    /// The key suffix, without the dot.
    pub fn suffix(self) -> &'static str {
        match self {
            RuleKind::Configurators => "configurators",
            RuleKind::ConditionRouter => "condition-router",
            RuleKind::TagRouter => "tag-router",
            RuleKind::ScriptRouter => "script-router",
            RuleKind::Migration => "migration",
        }
    }

    /// The group the rule lives in by default.
    pub fn group(self) -> &'static str {
        match self {
            RuleKind::Migration => MIGRATION_GROUP,
            _ => DEFAULT_GROUP,
        }
    }
}

/// The key of one rule: an application's (`{app}.{suffix}`) or a service's
/// (`{interface}:{version}:{group}.{suffix}`, empty parts keeping their colon as Java's
/// `URL.getColonSeparatedKey` writes them).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuleKey {
    /// The full key.
    pub key: String,
    /// The group the key lives in.
    pub group: &'static str,
}

impl RuleKey {
    /// The rule of `kind` for application `app`.
    pub fn application(app: &str, kind: RuleKind) -> Self {
        Self {
            key: format!("{app}.{}", kind.suffix()),
            group: kind.group(),
        }
    }

    /// The rule of `kind` for the service `interface` with `version` and `group` (each may be
    /// empty).
    pub fn service(interface: &str, version: &str, group: &str, kind: RuleKind) -> Self {
        Self {
            key: format!("{interface}:{version}:{group}.{}", kind.suffix()),
            group: kind.group(),
        }
    }
}

/// The URL parameter naming the whole root path of a tree-shaped config centre (Java's
/// `TreePathDynamicConfiguration.CONFIG_ROOT_PATH_PARAM_NAME`).
pub const ROOT_PATH_PARAM: &str = "dubbo.config-center.root-path";
/// The URL parameter naming the part of the root after the namespace (default `/config`).
pub const BASE_PATH_PARAM: &str = "dubbo.config-center.base-path";
/// The URL parameter naming the first segment of the root (default `dubbo`).
pub const NAMESPACE_PARAM: &str = "namespace";

/// Where a tree-shaped config centre (ZooKeeper, etcd) keeps a value: Java's
/// `TreePathDynamicConfiguration` layout, `/{namespace}/config/{group}/{key}`, so that Java
/// and Rust read and write the same nodes.
///
/// The root is the URL's [`ROOT_PATH_PARAM`] if set, else `/` + [`NAMESPACE_PARAM`] (default
/// `dubbo`) + [`BASE_PATH_PARAM`] (default `/config`), with doubled slashes collapsed as Java
/// does. An empty group means [`DEFAULT_GROUP`].
///
/// ```
/// use dubbo_config_center::TreePathLayout;
/// use dubbo_url::Url;
///
/// let url = Url::parse("zookeeper://127.0.0.1:2181?namespace=prod").unwrap();
/// let layout = TreePathLayout::from_url(&url);
/// assert_eq!(layout.path("demo.configurators", "").unwrap(), "/prod/config/dubbo/demo.configurators");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreePathLayout {
    root: String,
}

impl TreePathLayout {
    /// The layout a config centre URL asks for.
    pub fn from_url(url: &Url) -> Self {
        let given = |key: &str| url.parameter(key).filter(|v| !v.is_empty());
        let raw = match given(ROOT_PATH_PARAM) {
            Some(root) => root.to_owned(),
            None => {
                let namespace = given(NAMESPACE_PARAM).unwrap_or(DEFAULT_GROUP);
                let base = given(BASE_PATH_PARAM).unwrap_or("/config");
                format!("/{namespace}/{base}")
            }
        };
        Self {
            root: normalize(&raw),
        }
    }

    /// The root: `/dubbo/config` by default, never ending in a slash (unless it is `/`).
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The node of `group` (empty: [`DEFAULT_GROUP`]).
    pub fn group_path(&self, group: &str) -> Result<String, ConfigCenterError> {
        let group = if group.is_empty() {
            DEFAULT_GROUP
        } else {
            group
        };
        check_segment("group", group)?;
        Ok(normalize(&format!("{}/{group}", self.root)))
    }

    /// The node of `key` in `group` (empty: [`DEFAULT_GROUP`]).
    pub fn path(&self, key: &str, group: &str) -> Result<String, ConfigCenterError> {
        check_segment("key", key)?;
        Ok(format!("{}/{key}", self.group_path(group)?))
    }
}

/// A key or group is one path segment: a slash would put it elsewhere in the tree, and
/// ZooKeeper refuses `.` and `..`.
fn check_segment(what: &str, value: &str) -> Result<(), ConfigCenterError> {
    if value.is_empty()
        || value == "."
        || value == ".."
        || value.chars().any(|c| c == '/' || c.is_control())
    {
        return Err(ConfigCenterError::Config {
            key: what.to_owned(),
            reason: format!("{value:?} cannot be one segment of a config centre path"),
        });
    }
    Ok(())
}

/// One leading slash, no doubled ones, no trailing one (except for the root itself).
fn normalize(path: &str) -> String {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    format!("/{}", segments.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_javas() {
        let k = RuleKey::service("org.foo.Svc", "", "", RuleKind::Configurators);
        assert_eq!(k.key, "org.foo.Svc::.configurators");
        assert_eq!(k.group, "dubbo");
        let k = RuleKey::service("org.foo.Svc", "1.0", "g", RuleKind::ConditionRouter);
        assert_eq!(k.key, "org.foo.Svc:1.0:g.condition-router");
        let k = RuleKey::application("demo", RuleKind::Migration);
        assert_eq!(k.key, "demo.migration");
        assert_eq!(k.group, "DUBBO_SERVICEDISCOVERY_MIGRATION");
        assert_eq!(
            RuleKey::application("demo", RuleKind::TagRouter).key,
            "demo.tag-router"
        );
    }

    fn layout(query: &str) -> TreePathLayout {
        TreePathLayout::from_url(
            &Url::parse(&format!("zookeeper://127.0.0.1:2181?{query}")).unwrap(),
        )
    }

    #[test]
    fn tree_paths_are_javas() {
        assert_eq!(layout("").root(), "/dubbo/config");
        assert_eq!(
            layout("").path("app.configurators", "dubbo").unwrap(),
            "/dubbo/config/dubbo/app.configurators"
        );
        assert_eq!(
            layout("namespace=ns").path("k", "").unwrap(),
            "/ns/config/dubbo/k"
        );
        assert_eq!(
            layout("namespace=ns&dubbo.config-center.base-path=settings").root(),
            "/ns/settings"
        );
        assert_eq!(
            layout("dubbo.config-center.root-path=/a//b/")
                .path("k", "g")
                .unwrap(),
            "/a/b/g/k"
        );
        assert_eq!(
            layout("")
                .group_path("DUBBO_SERVICEDISCOVERY_MIGRATION")
                .unwrap(),
            "/dubbo/config/DUBBO_SERVICEDISCOVERY_MIGRATION"
        );
        for bad in ["", "a/b", "..", "."] {
            let err = layout("").path(bad, "g").unwrap_err();
            assert_eq!(err.code(), "CONFIG_CENTER_CONFIG", "{bad:?}");
        }
        assert!(layout("").path("k", "a/b").is_err());
    }
}
