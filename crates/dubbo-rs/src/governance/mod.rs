//! Live governance: rules from the config centre put in force in running references without
//! a restart (override, condition, tag and migration rules, keyed as Java Dubbo keys them).

mod center;
mod external;
mod migration_rule;
mod provider;
mod reference;
mod watcher;

pub(crate) use center::{from_config, ConfigCenter};
pub(crate) use external::read as read_external;
pub(crate) use migration_rule::Migration;
pub(crate) use provider::follow_provider;
pub(crate) use reference::{follow, ReferenceRules};

/// Checks a migration rule (`{app}.migration`) as running applications will read it: YAML
/// with Java's keys, every `step` one of `FORCE_INTERFACE`, `APPLICATION_FIRST` or
/// `FORCE_APPLICATION`. The error says what is wrong.
pub fn validate_migration_rule(text: &str) -> Result<(), String> {
    migration_rule::MigrationRule::from_yaml(text).map(|_| ())
}

/// How long making a reference waits for the rules in force to be applied to it.
pub(crate) const RULES_WAIT: std::time::Duration = std::time::Duration::from_secs(3);
