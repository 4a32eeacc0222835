//! Routers: rules that narrow the providers a call may go to.
//!
//! - [`ConditionRouter`]: `when => then` condition rules (Java Dubbo's `condition-router`,
//!   v3.0 and v3.1 with weighted destinations);
//! - [`TagRouter`]: `dubbo.tag` routing with static tags and tag rules (`tag-router`);
//! - [`MigrationSplitRouter`]: the share of calls a consumer moving between discovery models
//!   still sends to interface-level providers (Java's migration `proportion`);
//! - [`RouterChain`]: all of a reference's routers in priority order, with results cached
//!   per provider snapshot.
//!
//! The rule syntax is described in `docs/router.md`.

mod cache;
mod chain;
pub mod condition;
mod error;
pub mod migration;
mod string_match;
pub mod tag;
pub(crate) mod yaml;
pub mod zone;

pub use chain::RouterChain;
pub(crate) use condition::glob_matches;
pub use condition::{ConditionRouter, ConditionRule, RuleScope};
pub use error::{RouteError, RuleError};
pub use migration::MigrationSplitRouter;
pub(crate) use string_match::{ParamMatch, StringMatch};
pub use tag::{TagRouter, TagRule};
pub use zone::ZoneRouter;
