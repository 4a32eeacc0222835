//! The config centre of dubbo-rs: dynamic configuration that operators change while
//! applications run (Java Dubbo's `DynamicConfiguration`).
//!
//! Governance rules (override, condition and tag routing, migration) and external
//! configuration (`dubbo.properties`) are stored as text under a key and a group; applications
//! read them at start and watch them for changes. Implementations are chosen by URL scheme
//! from the framework's extension table ([`DynamicConfigurationFactory`]), so users add their
//! own.
//!
//! ```
//! use dubbo_config_center::{RuleKey, RuleKind};
//!
//! // Where Dubbo Admin writes an override rule for one service, and where Java reads it.
//! let key = RuleKey::service("org.foo.Greeter", "", "", RuleKind::Configurators);
//! assert_eq!((key.group, key.key.as_str()), ("dubbo", "org.foo.Greeter::.configurators"));
//! ```

mod configuration;
mod error;
mod keys;

pub use configuration::{
    ConfigChangeType, ConfigChangedEvent, ConfigItem, ConfigListener, ConfigTicket,
    DynamicConfiguration, DynamicConfigurationFactory,
};
pub use error::ConfigCenterError;
pub use keys::{
    RuleKey, RuleKind, TreePathLayout, BASE_PATH_PARAM, DEFAULT_GROUP, EXTERNAL_CONFIG_KEY,
    MIGRATION_GROUP, NAMESPACE_PARAM, ROOT_PATH_PARAM,
};
