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

use crate::extension::Extensions;
use crate::filter::{FilterSpec, Stage};

/// The built-in filters, each active by default where its spec says.
///
/// `token`, `executelimit` and `activelimit` have Java's names and order (0, Java's default);
/// each is in a chain only where its URL parameter (`token`, `executes`, `actives`, or a
/// `<method>.` form of one) is set, like Java's `@Activate(value = ...)`.
pub fn builtin_filters() -> Vec<Arc<FilterSpec>> {
    [
        FilterSpec::new("echo", -110_000, &[Stage::Provider], Arc::new(EchoFilter)),
        FilterSpec::new(
            "generic",
            -20_000,
            &[Stage::Provider],
            Arc::new(GenericFilter),
        ),
        FilterSpec::new("token", 0, &[Stage::Provider], Arc::new(TokenFilter))
            .when_url_has(&["token"]),
        FilterSpec::new(
            "executelimit",
            0,
            &[Stage::Provider],
            Arc::new(ExecuteLimitFilter::new()),
        )
        .when_url_has(&[EXECUTES_KEY]),
        FilterSpec::new(
            "activelimit",
            0,
            &[Stage::Consumer],
            Arc::new(ActiveLimitFilter::new()),
        )
        .when_url_has(&[ACTIVES_KEY]),
        FilterSpec::new(
            "consumer-token",
            0,
            &[Stage::Consumer],
            Arc::new(ConsumerTokenFilter),
        )
        .when_url_has(&["token"]),
    ]
    .into_iter()
    .map(Arc::new)
    .collect()
}

/// Registers every built-in filter in `extensions` under its name.
pub fn register_builtin_filters(extensions: &Extensions) {
    for spec in builtin_filters() {
        extensions.register::<FilterSpec>(spec.name, spec);
    }
}
