//! Built-in filters.

mod echo;
mod generic;

pub use echo::EchoFilter;
pub use generic::{generalize, GenericFilter};

use std::sync::Arc;

use crate::extension::Extensions;
use crate::filter::{FilterSpec, Stage};

/// The built-in filters, each active by default where its spec says.
pub fn builtin_filters() -> Vec<Arc<FilterSpec>> {
    [
        FilterSpec::new("echo", -110_000, &[Stage::Provider], Arc::new(EchoFilter)),
        FilterSpec::new(
            "generic",
            -20_000,
            &[Stage::Provider],
            Arc::new(GenericFilter),
        ),
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
