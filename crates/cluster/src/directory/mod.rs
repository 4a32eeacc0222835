//! Directories: the providers of one service as a consumer knows them.
//!
//! [`StaticDirectory`](dubbo_core::StaticDirectory) (in `dubbo-core`) holds a list its owner
//! sets; [`DynamicDirectory`] is fed by registry notifications and keeps the invoker (and so
//! the connection) of every provider a notification leaves unchanged.

mod dynamic;
mod factory;
mod param_facts;
mod provider_key;
mod providers;

pub use dynamic::{DynamicDirectory, NotifyOutcome};
pub use factory::InvokerFactory;
