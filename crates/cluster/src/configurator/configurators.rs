//! [`Configurators`]: the ordered override entries of one source, swapped as a whole.

use std::cmp::Ordering;
use std::sync::Arc;

use dubbo_url::keys::ANYHOST;
use dubbo_url::Url;

use super::configurator::Configurator;
use super::parser;
use crate::router::RuleError;

/// The protocol of the URL a registry pushes when a category is empty.
const EMPTY_PROTOCOL: &str = "empty";

/// The override entries of one rule (or of one registry push), in the order they apply.
///
/// Built once per rule change and shared: cloning is an `Arc` clone, equality compares the
/// entries, and [`default`](Default::default) is "no rule". Entries are ordered as Java's
/// `Configurator.toConfigurators` orders them: by host text, so the `0.0.0.0` entries come
/// before (and are overridden by) those for a specific address, then by `priority`; entries
/// that compare equal keep the rule's order. Entries that are switched off (`enabled=false`,
/// which is what a rule with `enabled: false` gives) and entries that set nothing are left
/// out, since they could never change a URL.
#[derive(Debug, Clone, PartialEq)]
pub struct Configurators(Arc<[Configurator]>);

impl Default for Configurators {
    fn default() -> Self {
        Self(Arc::from(Vec::new()))
    }
}

impl Configurators {
    /// The entries of a rule as the config centre stores it (`{application}.configurators`,
    /// `{service}.configurators`): the v2.7/v3.0 YAML document or a list of `override://`
    /// URLs. Parameters a rule may not set from the config centre (`router`, `rule`,
    /// `runtime`, `type`, `accesslog.fixed.path`) are dropped.
    pub fn from_yaml(text: &str) -> Result<Self, RuleError> {
        Ok(Self::from_entries(parser::parse(text)?))
    }

    /// The entries of the `override://` (or `absent://`) URLs a registry pushes in a
    /// service's `configurators` category. An `empty://` URL among them means the category is
    /// empty: no entries at all. URLs of other protocols are ignored.
    pub fn from_override_urls(urls: &[Url]) -> Self {
        let mut entries = Vec::with_capacity(urls.len());
        for url in urls {
            if url.protocol() == Some(EMPTY_PROTOCOL) {
                return Self::default();
            }
            match Configurator::from_url(url.clone()) {
                Some(entry) => entries.push(entry),
                None => tracing::warn!(url = %url, "not an override URL; ignored"),
            }
        }
        Self::from_entries(entries)
    }

    fn from_entries(entries: Vec<Configurator>) -> Self {
        let mut entries: Vec<Configurator> = entries
            .into_iter()
            .filter(|c| c.is_enabled() && c.url().params().keys().any(|k| k != ANYHOST))
            .collect();
        entries.sort_by(order);
        Self(Arc::from(entries))
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The entries, in the order they apply.
    pub fn iter(&self) -> impl Iterator<Item = &Configurator> + '_ {
        self.0.iter()
    }

    /// `url` with every entry applied in turn ([`Configurator::configure`]); a clone of `url`
    /// when none applies. `local_host` is the consumer's own address, which consumer-side
    /// entries are matched on.
    pub fn configure(&self, url: &Url, local_host: &str) -> Url {
        self.0
            .iter()
            .fold(url.clone(), |u, c| c.configure(&u, local_host))
    }
}

/// Java `Configurator.compareTo`: host text, then priority.
fn order(a: &Configurator, b: &Configurator) -> Ordering {
    fn host(c: &Configurator) -> &str {
        c.url().host().unwrap_or_default()
    }
    host(a)
        .cmp(host(b))
        .then_with(|| a.priority().cmp(&b.priority()))
}
