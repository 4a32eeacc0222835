//! Protocols export invokers on a port and refer to remote ones.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use dubbo_url::Url;

use crate::error::{ErrorCode, RpcError};
use crate::filter::{FilterChain, FilterSpec, Side};
use crate::invoker::{BoxFuture, Invoker};
use crate::service_key::ServiceKey;

/// The service key a provider URL exports: its path (else its `interface` parameter), `group`
/// and `version`.
pub fn exported_service_key(url: &Url) -> ServiceKey {
    let interface = url
        .path()
        .filter(|p| !p.is_empty())
        .or_else(|| url.parameter("interface"))
        .unwrap_or("");
    ServiceKey::new(interface, url.group(), url.version())
}

/// A wire protocol (dubbo://, tri://): serves exported invokers and builds invokers for remote
/// providers.
pub trait Protocol: Send + Sync + 'static {
    /// The URL scheme, e.g. `"dubbo"`.
    fn name(&self) -> &'static str;

    /// The port used when a URL gives none.
    fn default_port(&self) -> u16;

    /// Starts serving `invoker` under the service key and port of `url`. The first export on a
    /// port opens the server; later ones share it.
    fn export(
        &self,
        url: Url,
        invoker: Arc<dyn Invoker>,
    ) -> BoxFuture<'_, Result<Exporter, RpcError>>;

    /// An invoker that sends calls to the provider at `url`, over a shared connection.
    fn refer(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>>;

    /// Graceful shutdown: tell consumers, stop accepting calls, let in-flight calls finish
    /// within `grace`, then close every server and client connection.
    fn shutdown(&self, grace: Duration) -> BoxFuture<'_, ()>;
}

/// A handle on one exported service. Dropping it keeps the export; call
/// [`unexport`](Self::unexport) to withdraw it.
pub struct Exporter {
    key: ServiceKey,
    url: Url,
    registry: ExporterRegistry,
}

impl Exporter {
    /// Records the export of `key` in `registry` and returns its handle.
    pub fn new(key: ServiceKey, url: Url, registry: ExporterRegistry) -> Self {
        Self { key, url, registry }
    }

    /// The exported service's key.
    pub fn key(&self) -> &ServiceKey {
        &self.key
    }

    /// The URL the service was exported with.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Stops serving the service: later calls get "service not found".
    pub fn unexport(&self) {
        self.registry.remove(&self.key);
    }
}

impl std::fmt::Debug for Exporter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter").field("key", &self.key).finish()
    }
}

/// The exported services of one server, looked up on every request without a lock: readers
/// load an immutable snapshot, the rare writer swaps in a new one.
#[derive(Clone, Default)]
pub struct ExporterRegistry {
    map: Arc<ArcSwap<HashMap<ServiceKey, Arc<dyn Invoker>>>>,
}

impl ExporterRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces the invoker for `key`.
    pub fn insert(&self, key: ServiceKey, invoker: Arc<dyn Invoker>) {
        self.map.rcu(|m| {
            let mut m = HashMap::clone(m);
            m.insert(key.clone(), invoker.clone());
            m
        });
    }

    /// Removes `key`, returning whether it was there.
    pub fn remove(&self, key: &ServiceKey) -> bool {
        let mut found = false;
        self.map.rcu(|m| {
            let mut m = HashMap::clone(m);
            found = m.remove(key).is_some();
            m
        });
        found
    }

    /// Exports `invoker` for the provider `url`: wraps it in the provider-side filters of
    /// `filters` that the URL selects, serves it under [`exported_service_key`], and returns
    /// the handle, whose URL carries `bound_port` (the server's real port, which differs from
    /// the URL's when an ephemeral one was asked for).
    pub fn export(
        &self,
        url: Url,
        invoker: Arc<dyn Invoker>,
        filters: &[FilterSpec],
        bound_port: u16,
    ) -> Result<Exporter, RpcError> {
        let key = exported_service_key(&url);
        if key.interface().is_empty() {
            return Err(RpcError::framework(
                ErrorCode::Config,
                format!("cannot export {url}: it names no path or interface"),
            ));
        }
        let chain = FilterChain::build(filters, Side::Provider, &url, invoker);
        self.insert(key.clone(), Arc::new(chain));
        Ok(Exporter::new(key, url.with_port(bound_port), self.clone()))
    }

    /// The invoker exported under exactly `key`.
    pub fn get(&self, key: &ServiceKey) -> Option<Arc<dyn Invoker>> {
        self.map.load().get(key).cloned()
    }

    /// The invoker for `key`, or, when the request named no group or version and exactly one
    /// export of that interface exists, that one (Triple's `resolve-fallback-to-default`).
    pub fn get_with_fallback(&self, key: &ServiceKey) -> Option<Arc<dyn Invoker>> {
        let map = self.map.load();
        if let Some(i) = map.get(key) {
            return Some(i.clone());
        }
        if key.group().is_some() && key.version().is_some() {
            return None;
        }
        let mut candidates = map.iter().filter(|(k, _)| {
            k.interface() == key.interface()
                && (key.group().is_none() || k.group() == key.group())
                && (key.version().is_none() || k.version() == key.version())
        });
        match (candidates.next(), candidates.next()) {
            (Some((_, i)), None) => Some(i.clone()),
            _ => None,
        }
    }

    /// The keys of every exported service.
    pub fn keys(&self) -> Vec<ServiceKey> {
        self.map.load().keys().cloned().collect()
    }

    /// Number of exported services.
    pub fn len(&self) -> usize {
        self.map.load().len()
    }

    /// Whether nothing is exported.
    pub fn is_empty(&self) -> bool {
        self.map.load().is_empty()
    }
}

impl std::fmt::Debug for ExporterRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.map.load().keys()).finish()
    }
}
