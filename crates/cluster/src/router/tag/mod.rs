//! Tag routing: calls carrying a tag (`dubbo.tag`) go to providers with that tag.
//!
//! Semantics follow Java Dubbo 3.3's `TagStateRouter`, `TagRouterRule` and `Tag`.

pub(crate) mod address;
mod router;
mod rule;

pub use router::{TagRouter, FORCE_TAG_KEY};
pub use rule::TagRule;
