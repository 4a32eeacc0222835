//! Built-in filters.

mod active_limit;
mod call_counts;
mod consumer_token;
mod echo;
mod execute_limit;
mod generic;
mod token;

pub use active_limit::{ActiveLimitFilter, ACTIVES_KEY};
pub use consumer_token::ConsumerTokenFilter;
pub use echo::EchoFilter;
pub use execute_limit::{ExecuteLimitFilter, EXECUTES_KEY};
pub use generic::{generalize, GenericFilter};
pub use token::{
    generate_token, is_empty_token, is_token_refusal, resolve_token, TokenFilter,
    FORBID_INVOKE_PHRASE, INVALID_TOKEN_PREFIX,
};

use std::sync::Arc;

use crate::filter::{FilterSpec, Side};

/// The filters every provider and consumer gets unless its URL removes them.
///
/// `token`, `executelimit` and `active-limit` have Java's names and order (0, Java's default);
/// each does nothing unless its URL parameter (`token`, `executes`, `actives`) is set.
pub fn builtin_filters() -> Vec<FilterSpec> {
    vec![
        FilterSpec {
            name: "echo",
            order: -110_000,
            sides: &[Side::Provider],
            filter: Arc::new(EchoFilter),
        },
        FilterSpec {
            name: "generic",
            order: -20_000,
            sides: &[Side::Provider],
            filter: Arc::new(GenericFilter),
        },
        FilterSpec {
            name: "token",
            order: 0,
            sides: &[Side::Provider],
            filter: Arc::new(TokenFilter),
        },
        FilterSpec {
            name: "executelimit",
            order: 0,
            sides: &[Side::Provider],
            filter: Arc::new(ExecuteLimitFilter::new()),
        },
        FilterSpec {
            name: "active-limit",
            order: 0,
            sides: &[Side::Consumer],
            filter: Arc::new(ActiveLimitFilter::new()),
        },
        FilterSpec {
            name: "consumer-token",
            order: 0,
            sides: &[Side::Consumer],
            filter: Arc::new(ConsumerTokenFilter),
        },
    ]
}
