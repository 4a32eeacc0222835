//! Where governance rules and external configuration live: Java Dubbo's keys and groups.

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
}
