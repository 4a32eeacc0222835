//! Resolving a setting across the consumer's and the provider's Urls, the way a Dubbo consumer
//! does for every call.

use std::time::Duration;

use crate::error::UrlError;
use crate::keys;
use crate::params::UrlParams;
use crate::url::{java_parse_bool, non_empty};
use crate::Url;

/// Which layer supplied a value resolved by [`ConfigLayers`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// `<method>.<key>` of the dynamic override (configurator) Url.
    OverrideMethod,
    /// `<method>.<key>` of the consumer (reference) Url.
    ConsumerMethod,
    /// `<method>.<key>` of the provider Url from the registry.
    ProviderMethod,
    /// `<key>` of the dynamic override Url.
    Override,
    /// `<key>` of the consumer Url.
    Consumer,
    /// `<key>` of the provider Url.
    Provider,
    /// `<key>` of the consumer's global defaults, when kept apart.
    ConsumerDefault,
    /// `<key>` of the provider's global defaults, when kept apart.
    ProviderDefault,
    /// A value Dubbo fixes for provider addresses (`category=providers`).
    Fixed,
}

/// The layered view a consumer has of one provider: its own reference Url, the provider's Url
/// from the registry, optionally a dynamic override Url (configurators) and optionally global
/// defaults kept apart from the Urls.
///
/// # The rule
///
/// Dubbo documents: *method level beats interface level beats global; at the same level the
/// consumer beats the provider.* Java Dubbo 3 implements it in `ServiceAddressURL` /
/// `DubboServiceAddressURL` (the Url a consumer builds for each provider pushed by a registry)
/// and [`lookup`](Self::lookup) reproduces their `getMethodParameter` / `getParameter` exactly.
/// The first non-empty value wins, in this order:
///
/// 1. override `<method>.<key>`  ([`Source::OverrideMethod`])
/// 2. consumer `<method>.<key>`  ([`Source::ConsumerMethod`])
/// 3. provider `<method>.<key>`  ([`Source::ProviderMethod`])
/// 4. override `<key>`           ([`Source::Override`])
/// 5. consumer `<key>`           ([`Source::Consumer`])
/// 6. provider `<key>`           ([`Source::Provider`])
/// 7. consumer global default, then provider global default (only if supplied with
///    [`with_defaults`](Self::with_defaults); Java has no such layer, see below)
///
/// Steps 1-3 apply only when a method is given, and each `<method>.<key>` lookup honours that
/// Url's `methods` list (see [`UrlParams::method_parameter_strict`]). After step 4 a few keys
/// are answered by one side only, as in Java: `group`, `version` and `application` come from the
/// provider alone (the consumer's own application is [`Url::application`] of
/// [`consumer`](Self::consumer)), `side` from the consumer alone, and `category` is always
/// `providers`.
///
/// Where "global" lives: Java folds global settings (`<dubbo:consumer>`, `<dubbo:provider>`)
/// into each Url when it is built, so inside a Url they already count as interface level;
/// the only global layer visible on the wire is the old `default.<key>` form, which parsing
/// turns into `<key>` unless `<key>` is set (so an interface-level value beats it). A
/// consequence of Java's folding that this type preserves: a consumer-wide timeout folded into
/// the consumer Url beats a provider's interface-level timeout. Callers that keep global
/// defaults apart may pass them to [`with_defaults`](Self::with_defaults); they are consulted
/// only when no Url has the key.
///
/// The flattening alternative, Java's `ClusterUtils.mergeUrl`, is [`merge_url`].
///
/// # Example
///
/// ```
/// use dubbo_url::{ConfigLayers, Source, Url};
///
/// let provider = Url::parse(
///     "dubbo://10.0.0.7:20880/org.Foo?interface=org.Foo&timeout=1000&retries=5&sayHello.timeout=2000&loadbalance=random",
/// ).unwrap();
/// let consumer = Url::parse(
///     "consumer://10.0.0.9/org.Foo?interface=org.Foo&side=consumer&timeout=3000&bye.retries=0",
/// ).unwrap();
/// let layers = ConfigLayers::new(consumer, provider);
///
/// // Method level beats interface level, even across sides.
/// assert_eq!(layers.lookup(Some("sayHello"), "timeout"), Some(("2000", Source::ProviderMethod)));
/// // Same level: the consumer beats the provider.
/// assert_eq!(layers.lookup(Some("other"), "timeout"), Some(("3000", Source::Consumer)));
/// assert_eq!(layers.lookup(Some("bye"), "retries"), Some(("0", Source::ConsumerMethod)));
/// assert_eq!(layers.lookup(Some("other"), "retries"), Some(("5", Source::Provider)));
/// assert_eq!(layers.get("loadbalance"), Some("random"));
/// assert_eq!(layers.method_duration_ms("sayHello", "timeout").unwrap(), Some(std::time::Duration::from_millis(2000)));
/// ```
#[derive(Debug, Clone)]
pub struct ConfigLayers {
    consumer: Url,
    provider: Url,
    overrides: Option<Url>,
    consumer_defaults: Option<UrlParams>,
    provider_defaults: Option<UrlParams>,
}

impl ConfigLayers {
    /// Layers for `consumer` (the reference Url) calling `provider` (a registry Url).
    pub fn new(consumer: Url, provider: Url) -> Self {
        ConfigLayers {
            consumer,
            provider,
            overrides: None,
            consumer_defaults: None,
            provider_defaults: None,
        }
    }

    /// Adds a dynamic override Url (from configurators), which beats both sides at every
    /// level.
    pub fn with_override(mut self, overrides: Url) -> Self {
        self.overrides = Some(overrides);
        self
    }

    /// Adds global defaults that were kept apart from the Urls; they are consulted last,
    /// consumer first.
    pub fn with_defaults(
        mut self,
        consumer_defaults: Option<UrlParams>,
        provider_defaults: Option<UrlParams>,
    ) -> Self {
        self.consumer_defaults = consumer_defaults;
        self.provider_defaults = provider_defaults;
        self
    }

    /// The consumer Url.
    pub fn consumer(&self) -> &Url {
        &self.consumer
    }

    /// The provider Url.
    pub fn provider(&self) -> &Url {
        &self.provider
    }

    /// The override Url, if any.
    pub fn override_url(&self) -> Option<&Url> {
        self.overrides.as_ref()
    }

    /// Resolves `key`, at method level when `method` is given, and says where the value came
    /// from. See the [type documentation](Self) for the order. Empty values count as absent.
    pub fn lookup(&self, method: Option<&str>, key: &str) -> Option<(&str, Source)> {
        if let Some(method) = method {
            let method_layers = [
                (self.overrides.as_ref(), Source::OverrideMethod),
                (Some(&self.consumer), Source::ConsumerMethod),
                (Some(&self.provider), Source::ProviderMethod),
            ];
            for (url, source) in method_layers {
                if let Some(v) = url.and_then(|u| u.method_parameter_strict(method, key)) {
                    return Some((v, source));
                }
            }
        }
        self.lookup_service(key)
    }

    /// `DubboServiceAddressURL.getParameter` followed by the optional defaults.
    fn lookup_service(&self, key: &str) -> Option<(&str, Source)> {
        if let Some(v) = self
            .overrides
            .as_ref()
            .and_then(|u| non_empty(u.parameter(key)))
        {
            return Some((v, Source::Override));
        }
        match key {
            keys::GROUP | keys::VERSION | keys::APPLICATION => {
                return non_empty(self.provider.parameter(key)).map(|v| (v, Source::Provider));
            }
            keys::SIDE => {
                return non_empty(self.consumer.parameter(key)).map(|v| (v, Source::Consumer));
            }
            keys::CATEGORY => return Some((keys::PROVIDERS_CATEGORY, Source::Fixed)),
            _ => {}
        }
        if let Some(v) = non_empty(self.consumer.parameter(key)) {
            return Some((v, Source::Consumer));
        }
        if let Some(v) = non_empty(self.provider.parameter(key)) {
            return Some((v, Source::Provider));
        }
        if let Some(v) = self
            .consumer_defaults
            .as_ref()
            .and_then(|p| non_empty(p.get(key)))
        {
            return Some((v, Source::ConsumerDefault));
        }
        if let Some(v) = self
            .provider_defaults
            .as_ref()
            .and_then(|p| non_empty(p.get(key)))
        {
            return Some((v, Source::ProviderDefault));
        }
        None
    }

    /// The service-level value of `key` (Java `getParameter`).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.lookup(None, key).map(|(v, _)| v)
    }

    /// The value of `key` for calls to `method` (Java `getMethodParameter`).
    pub fn method_get(&self, method: &str, key: &str) -> Option<&str> {
        self.lookup(Some(method), key).map(|(v, _)| v)
    }

    /// [`method_get`](Self::method_get) parsed as `u64`.
    pub fn method_u64(&self, method: &str, key: &str) -> Result<Option<u64>, UrlError> {
        parse_u64(key, self.method_get(method, key))
    }

    /// [`method_get`](Self::method_get) as milliseconds (`timeout`).
    pub fn method_duration_ms(
        &self,
        method: &str,
        key: &str,
    ) -> Result<Option<Duration>, UrlError> {
        Ok(self.method_u64(method, key)?.map(Duration::from_millis))
    }

    /// [`method_get`](Self::method_get) as a Java boolean.
    pub fn method_bool(&self, method: &str, key: &str) -> Option<bool> {
        self.method_get(method, key).map(java_parse_bool)
    }

    /// [`get`](Self::get) parsed as `u64`.
    pub fn get_u64(&self, key: &str) -> Result<Option<u64>, UrlError> {
        parse_u64(key, self.get(key))
    }

    /// [`get`](Self::get) as a Java boolean.
    pub fn get_bool(&self, key: &str) -> Option<bool> {
        self.get(key).map(java_parse_bool)
    }

    /// Java `getConcatenatedParameter`, used for lists both sides contribute to
    /// (`reference.filter`, `invoker.listener`): `provider,consumer` when both are non-empty,
    /// else whichever is.
    pub fn concatenated(&self, key: &str) -> Option<String> {
        let remote = non_empty(self.provider.parameter(key));
        let local = non_empty(self.consumer.parameter(key));
        match (remote, local) {
            (Some(r), Some(l)) => Some(format!("{r},{l}")),
            (r, l) => l.or(r).map(str::to_owned),
        }
    }
}

fn parse_u64(key: &str, value: Option<&str>) -> Result<Option<u64>, UrlError> {
    match value {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| UrlError::InvalidParameter {
            key: key.to_owned(),
            value: crate::error::snippet(v),
            expected: "u64",
        }),
    }
}

/// Keys a provider sets for its own threads and transport; a consumer never takes them over.
const PROVIDER_ONLY_KEYS: &[&str] = &[
    keys::THREAD_NAME,
    keys::THREADPOOL,
    keys::CORE_THREADS,
    keys::THREADS,
    keys::QUEUES,
    keys::ALIVE,
    keys::TRANSPORTER,
];

/// Flattens a provider Url and the consumer's parameters into one Url, exactly as Java's
/// `ClusterUtils.mergeUrl` (`DefaultProviderURLMergeProcessor`) does for providers that are not
/// `ServiceAddressURL`s:
///
/// 1. start from the provider's parameters minus its thread-pool and transport settings
///    (`threadname`, `threadpool`, `corethreads`, `threads`, `queues`, `alive`, `transporter`
///    and their `default.` forms);
/// 2. lay the consumer's parameters over them, except `release`, `dubbo`, `methods`,
///    `timestamp` and `dubbo.tag` (the provider's stay) and except `group`, `version` and
///    `generic` when the provider has them;
/// 3. set `remote.application` to the provider's `application`, and join `reference.filter`
///    and `invoker.listener` as `provider,consumer` when both sides set them.
///
/// Method-level keys (`<method>.<key>`) are ordinary keys here, so after merging,
/// [`Url::method_parameter`] gives consumer method > provider method > consumer > provider.
///
/// ```
/// use dubbo_url::{merge_url, Url};
/// let provider = Url::parse("dubbo://10.0.0.7:20880/org.Foo?application=p&threads=200&timeout=1000&version=1.0").unwrap();
/// let consumer = Url::parse("consumer://10.0.0.9/org.Foo?application=c&timeout=3000&version=2.0").unwrap();
/// let merged = merge_url(&provider, consumer.params());
/// assert_eq!(merged.parameter("timeout"), Some("3000"));
/// assert_eq!(merged.parameter("version"), Some("1.0"));
/// assert_eq!(merged.parameter("threads"), None);
/// assert_eq!(merged.parameter("remote.application"), Some("p"));
/// assert_eq!(merged.parameter("application"), Some("c"));
/// ```
pub fn merge_url(provider: &Url, consumer_params: &UrlParams) -> Url {
    let remote = provider.params();
    let mut removed: Vec<String> = Vec::new();
    for key in PROVIDER_ONLY_KEYS {
        removed.push((*key).to_owned());
        removed.push(format!("{}{key}", keys::DEFAULT_KEY_PREFIX));
    }
    let mut map = remote.without_all(removed.iter().map(String::as_str));

    if !consumer_params.is_empty() {
        let mut skip: Vec<&str> = vec![
            keys::RELEASE,
            keys::DUBBO_VERSION,
            keys::METHODS,
            keys::TIMESTAMP,
            keys::TAG,
        ];
        for key in [keys::GROUP, keys::VERSION, keys::GENERIC] {
            if map.contains_key(key) {
                skip.push(key);
            }
        }
        let local: Vec<(&str, &str)> = consumer_params
            .iter()
            .filter(|(k, _)| !skip.contains(k))
            .collect();
        map = map.with_all(local.iter().copied());

        if !remote.is_empty() {
            if let Some(app) = remote.get(keys::APPLICATION) {
                map = map.with(keys::REMOTE_APPLICATION, app);
            }
            for key in [keys::REFERENCE_FILTER, keys::INVOKER_LISTENER] {
                let r = non_empty(remote.get(key));
                let l = non_empty(local.iter().find(|(k, _)| *k == key).map(|(_, v)| *v));
                if let (Some(r), Some(l)) = (r, l) {
                    map = map.with(key, &format!("{r},{l}"));
                }
            }
        }
    }
    provider.with_params(map)
}
