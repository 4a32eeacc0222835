//! [`Configurator`]: one override entry and how it applies to a URL.

use std::sync::Arc;

use dubbo_url::keys::{
    ANYHOST_VALUE, ANY_VALUE, APPLICATION, CATEGORY, CHECK, CONSUMER, DYNAMIC, ENABLED, GROUP,
    PROVIDER, SIDE, VERSION,
};
use dubbo_url::{Url, UrlParams};

use super::condition_match::ConditionMatch;
use super::kind::ConfiguratorKind;

/// The parameter naming the rule format an entry came from (`v2.7`, `v3.0`); entries without
/// it are the pre-2.7 `override://` form.
pub(crate) const CONFIG_VERSION: &str = "configVersion";
/// The provider addresses (`host`, `host:port`, `0.0.0.0`, `0.0.0.0:*`, `0.0.0.0:port`) an
/// entry is limited to.
pub(crate) const PROVIDER_ADDRESSES: &str = "providerAddresses";
/// Orders entries with the same host; higher applies later.
pub(crate) const PRIORITY: &str = "priority";
/// The rule format from which `match` conditions are honoured.
const V30_PREFIX: &str = "v3.0";
/// Marks a pre-2.7 condition on a URL parameter: `~timeout=1000` applies only where
/// `timeout=1000`.
const TILDE: char = '~';

/// The entry parameters that say where it applies rather than what it sets (Java
/// `AbstractConfigurator.genConditionKeys`); they are never copied onto a URL.
const CONDITION_KEYS: [&str; 11] = [
    CATEGORY,
    CHECK,
    DYNAMIC,
    ENABLED,
    GROUP,
    VERSION,
    APPLICATION,
    SIDE,
    CONFIG_VERSION,
    "compatible_config",
    "interfaces",
];

/// One override entry: Java's `override://` (or `absent://`) URL with the `match` condition
/// its rule gave it.
///
/// The URL's host says where it applies (`0.0.0.0` for everywhere), its path and
/// `group`/`version` the service (`*` for all), its `side`, `application`, `providerAddresses`
/// and (pre-2.7) `~key` parameters further conditions; every other parameter is a value to
/// set.
#[derive(Debug, Clone, PartialEq)]
pub struct Configurator {
    url: Url,
    kind: ConfiguratorKind,
    condition: Option<Arc<ConditionMatch>>,
}

impl Configurator {
    /// The entry for an `override://` or `absent://` URL; `None` for any other protocol.
    pub fn from_url(url: Url) -> Option<Self> {
        let kind = ConfiguratorKind::from_protocol(url.protocol()?)?;
        Some(Self {
            url,
            kind,
            condition: None,
        })
    }

    pub(crate) fn with_condition(mut self, condition: Option<ConditionMatch>) -> Self {
        self.condition = condition.map(Arc::new);
        self
    }

    pub(crate) fn without_parameters(mut self, keys: &[&str]) -> Self {
        self.url = self.url.without_parameters(keys.iter().copied());
        self
    }

    /// The entry's URL.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Whether it replaces parameters or only adds missing ones.
    pub fn kind(&self) -> ConfiguratorKind {
        self.kind
    }

    /// Whether the entry is switched on (`enabled` absent, empty or `true`).
    pub fn is_enabled(&self) -> bool {
        self.url.parameter_bool(ENABLED).unwrap_or(true)
    }

    /// `priority` as an integer; 0 when absent or not a number.
    pub(crate) fn priority(&self) -> i32 {
        self.url
            .parameter(PRIORITY)
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or(0)
    }

    /// `url` with this entry applied, or a clone of `url` when it does not apply (Java
    /// `AbstractConfigurator.configure`). `local_host` is the consumer's own address, which
    /// consumer-side entries are matched on.
    pub fn configure(&self, url: &Url, local_host: &str) -> Url {
        if !self.is_enabled() || self.url.host().is_none() {
            return url.clone();
        }
        let Some(host) = url.host() else {
            return url.clone();
        };
        if self
            .url
            .parameter(CONFIG_VERSION)
            .is_some_and(|v| !v.is_empty())
        {
            let side = url.parameter(SIDE);
            if side.is_none() || side != self.url.parameter(SIDE) {
                return url.clone();
            }
            return match side {
                Some(CONSUMER) => self.configure_if_match(local_host, url),
                Some(PROVIDER) => self.configure_if_match(host, url),
                _ => url.clone(),
            };
        }
        // The pre-2.7 form: a port names one provider; without one, the host is a consumer's
        // address, or 0.0.0.0 for every provider and consumer.
        if self.url.port() != 0 {
            if url.port() == self.url.port() {
                return self.configure_if_match(host, url);
            }
        } else if url.parameter_or(SIDE, PROVIDER) == CONSUMER {
            return self.configure_if_match(local_host, url);
        } else if url.parameter_or(SIDE, CONSUMER) == PROVIDER {
            return self.configure_if_match(ANYHOST_VALUE, url);
        }
        url.clone()
    }

    fn configure_if_match(&self, host: &str, url: &Url) -> Url {
        let rule_host = self.url.host().unwrap_or_default();
        if rule_host != ANYHOST_VALUE && rule_host != host {
            return url.clone();
        }
        if !self.targets(url) {
            return url.clone();
        }
        let v30 = self
            .url
            .parameter(CONFIG_VERSION)
            .is_some_and(|v| v.starts_with(V30_PREFIX));
        if v30 {
            match &self.condition {
                Some(condition) if !condition.is_match(host, url) => url.clone(),
                _ => self.apply(url, &[]),
            }
        } else {
            match self.tilde_conditions(url) {
                Some(tilde_keys) => self.apply(url, &tilde_keys),
                None => url.clone(),
            }
        }
    }

    /// Java `isV27ConditionMatchOrUnset`: the provider address, application and service the
    /// entry is limited to.
    fn targets(&self, url: &Url) -> bool {
        if let Some(providers) = self
            .url
            .parameter(PROVIDER_ADDRESSES)
            .filter(|p| !p.is_empty())
        {
            let address = url.address();
            let any_port = format!("{ANYHOST_VALUE}:{ANY_VALUE}");
            let this_port = format!("{ANYHOST_VALUE}:{}", url.port());
            let host = url.host().unwrap_or_default();
            let listed = providers.split(',').any(|a| {
                a == address || a == ANYHOST_VALUE || a == any_port || a == this_port || a == host
            });
            if !listed {
                return false;
            }
        }
        let rule_app = application(&self.url);
        if rule_app.is_some_and(|a| a != ANY_VALUE && Some(a) != application(url)) {
            return false;
        }
        let rule_service = self.url.service_key();
        rule_service.as_deref() == Some(ANY_VALUE) || rule_service == url.service_key()
    }

    /// Java `isDeprecatedConditionMatch`: every `~key`, `application` and `side` parameter of
    /// the entry must equal the URL's (`*` matches anything). Returns the `~` keys, which are
    /// conditions too and so are not copied, or `None` when a condition fails.
    fn tilde_conditions(&self, url: &Url) -> Option<Vec<&str>> {
        let mut tilde_keys = Vec::new();
        for (key, value) in self.url.params().iter() {
            let target = match key.strip_prefix(TILDE) {
                Some(stripped) => {
                    tilde_keys.push(key);
                    stripped
                }
                None if key == APPLICATION || key == SIDE => key,
                None => continue,
            };
            if value != ANY_VALUE && Some(value) != url.parameter(target) {
                return None;
            }
        }
        Some(tilde_keys)
    }

    /// Sets the entry's values (all but the condition keys and `extra_conditions`) on `url`.
    fn apply(&self, url: &Url, extra_conditions: &[&str]) -> Url {
        let values = self
            .url
            .params()
            .iter()
            .filter(|(k, _)| !CONDITION_KEYS.contains(k) && !extra_conditions.contains(k));
        let params: UrlParams = match self.kind {
            ConfiguratorKind::Override => url.params().with_all(values),
            ConfiguratorKind::Absent => {
                let missing: Vec<(&str, &str)> = values
                    .filter(|(k, _)| !url.params().contains_key(k))
                    .collect();
                url.params().with_all(missing)
            }
        };
        if params.ptr_eq(url.params()) {
            url.clone()
        } else {
            url.with_params(params)
        }
    }
}

/// Java `URL.getApplication(getUsername())`: `application`, else the user name.
fn application(url: &Url) -> Option<&str> {
    url.parameter(APPLICATION)
        .filter(|a| !a.is_empty())
        .or_else(|| url.username())
}
