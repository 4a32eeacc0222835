//! Condition routing: `when => then` rules over call and provider properties.
//!
//! See `docs/router.md` for the rule syntax. The semantics follow Java Dubbo 3.3's
//! `ConditionStateRouter` (v3.0 rules) and `MultiDestConditionRouter` (v3.1 rules).

mod matcher;
mod parser;
mod pattern;
mod router;
mod rule;

pub(crate) use pattern::glob_matches;
pub(crate) use router::push_part;
pub use router::ConditionRouter;
pub use rule::{ConditionRule, RuleScope, DEFAULT_DESTINATION_WEIGHT};
