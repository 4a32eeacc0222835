//! Live governance: rules from the config centre put in force in running references without
//! a restart (override, condition, tag and migration rules, keyed as Java Dubbo keys them).

mod center;
mod migration_rule;
mod reference;

pub(crate) use center::{from_config, ConfigCenter};
pub(crate) use migration_rule::Migration;
pub(crate) use reference::{follow, ReferenceRules};
