//! Built-in filters.

mod echo;
mod generic;

pub use echo::EchoFilter;
pub use generic::{generalize, GenericFilter};

use std::sync::Arc;

use crate::filter::{FilterSpec, Side};

/// The filters every provider and consumer gets unless its URL removes them.
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
    ]
}
