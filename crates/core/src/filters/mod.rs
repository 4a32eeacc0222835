//! Built-in filters.

mod access_log;
mod active_limit;
pub mod auth;
mod call_counts;
mod class_check;
mod consumer_context;
mod consumer_token;
mod context;
mod echo;
mod exception;
mod execute_limit;
mod flow_control;
mod generic;
mod token;
mod tps_limit;

pub use access_log::{
    AccessLogFilter, ACCESS_LOG_KEY, ACCESS_LOG_QUEUE_CAPACITY, ACCESS_LOG_TARGET,
};
pub use active_limit::{ActiveLimitFilter, ACTIVES_KEY};
pub use class_check::{check_generic_classes, ALLOWED_CLASS_LIST_KEY, BLOCKED_CLASS_LIST_KEY};
pub use consumer_context::ConsumerContextFilter;
pub use consumer_token::ConsumerTokenFilter;
pub use context::{ContextFilter, ServerAttachments, FRAMEWORK_ATTACHMENTS};
pub use echo::EchoFilter;
pub use exception::{ExceptionFilter, WRAPPER_EXCEPTION};
pub use execute_limit::{ExecuteLimitFilter, EXECUTES_KEY};
pub use flow_control::{
    is_flow_control_name, CpuUsage, FlowControlFilter, AUTO_CONCURRENCY_LIMIER, BUSY_CPU,
    CPU_SAMPLE_PERIOD, FLOW_CONTROL_KEY, FLOW_CONTROL_NAMES, HEURISTIC_SMOOTHING,
};
pub use generic::{generalize, GenericFilter};
pub use token::{
    generate_token, is_empty_token, is_token_refusal, resolve_token, TokenFilter,
    FORBID_INVOKE_PHRASE, INVALID_TOKEN_PREFIX,
};
pub use tps_limit::{TpsLimitFilter, DEFAULT_TPS_INTERVAL, TPS_INTERVAL_KEY, TPS_KEY};

use std::sync::Arc;

use crate::extension::Extensions;
use crate::filter::{FilterSpec, Stage};

/// The built-in filters, each active by default where its spec says.
///
/// `context` (provider, -10000), `consumercontext` (consumer, first of all) and `exception`
/// (provider, 0) are always on, with Java's names and orders; remove one with `-name`.
/// `token`, `executelimit`, `flowcontrol`, `tps`, `accesslog` and `activelimit` have Java's names
/// and order (0, Java's default); each is in a chain only where its URL parameter (`token`,
/// `executes`, `flowcontrol`, `tps`, `accesslog`, `actives`, or a `<method>.` form of one) is set, like Java's
/// `@Activate(value = ...)`. Each call of this function creates new filter instances, so the
/// state of the limits and the access-log writers belongs to the framework that called it.
pub fn builtin_filters() -> Vec<Arc<FilterSpec>> {
    [
        FilterSpec::new("echo", -110_000, &[Stage::Provider], Arc::new(EchoFilter)),
        FilterSpec::new(
            "generic",
            -20_000,
            &[Stage::Provider],
            Arc::new(GenericFilter),
        ),
        FilterSpec::new(
            "context",
            -10_000,
            &[Stage::Provider],
            Arc::new(ContextFilter),
        ),
        FilterSpec::new(
            "consumercontext",
            i32::MIN,
            &[Stage::Consumer],
            Arc::new(ConsumerContextFilter),
        ),
        FilterSpec::new(
            "exception",
            0,
            &[Stage::Provider],
            Arc::new(ExceptionFilter),
        ),
        // Java's order for both (-10000): the provider checks credentials before the service's
        // own filters; echo (-110000) and generic (-20000) run before, as in Java.
        FilterSpec::new(
            "providerauth",
            -10_000,
            &[Stage::Provider],
            Arc::new(auth::ProviderAuthFilter::default()),
        )
        .when_url_has(&[auth::AUTH_KEY]),
        FilterSpec::new(
            "consumersign",
            -10_000,
            &[Stage::Consumer],
            Arc::new(auth::ConsumerSignFilter::default()),
        )
        .when_url_has(&[auth::AUTH_KEY]),
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
            "flowcontrol",
            0,
            &[Stage::Provider],
            Arc::new(FlowControlFilter::new()),
        )
        .when_url_has(&[FLOW_CONTROL_KEY]),
        FilterSpec::new(
            "tps",
            0,
            &[Stage::Provider],
            Arc::new(TpsLimitFilter::new()),
        )
        .when_url_has(&[TPS_KEY]),
        FilterSpec::new(
            "accesslog",
            0,
            &[Stage::Provider],
            Arc::new(AccessLogFilter::new()),
        )
        .when_url_has(&[ACCESS_LOG_KEY]),
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
