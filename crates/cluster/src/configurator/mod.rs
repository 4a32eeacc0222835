//! Override rules (Java Dubbo's configurators): governance changes to provider URLs, applied
//! by consumers without a restart.
//!
//! A rule comes from a config centre as YAML (`{application}.configurators`,
//! `{service}.configurators`; [`Configurators::from_yaml`]) or from a registry as
//! `override://` URLs in a service's `configurators` category
//! ([`Configurators::from_override_urls`]). Either way it becomes an ordered list of entries,
//! each Java's `override://` URL in effect: its host says where it applies, its parameters
//! what to set. [`Configurators::configure`] applies them to a URL with Java Dubbo 3.3's
//! rules (side, host, provider addresses, application, service, v3.0 `match`, override vs
//! absent); [`DynamicDirectory::set_configurators`](crate::directory::DynamicDirectory::set_configurators)
//! keeps a consumer's providers configured as rules change.

mod address_match;
mod condition_match;
#[allow(clippy::module_inception)]
mod configurator;
mod configurators;
mod kind;
mod parser;
mod source;
#[cfg(test)]
mod tests;

pub use configurator::Configurator;
pub use configurators::Configurators;
pub use kind::ConfiguratorKind;
pub use source::ConfiguratorSource;
