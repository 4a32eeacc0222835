//! Protocols export invokers on a port and refer to remote ones.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use dubbo_url::Url;

use crate::error::{ErrorCode, RpcError};
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
    /// port opens the server; later ones share it. `invoker` is served as given: the caller
    /// wraps it in the provider's filter chain (protocols add no filters of their own).
    fn export(
        &self,
        url: Url,
        invoker: Arc<dyn Invoker>,
    ) -> BoxFuture<'_, Result<Exporter, RpcError>>;

    /// Serves the service exported at `url` (with [`export`](Self::export) first) over HTTP
    /// too, as `rest` maps it. Protocols that serve no HTTP ignore it.
    fn export_rest<'a>(
        &'a self,
        url: &'a Url,
        rest: &'static crate::rest::RestService,
    ) -> BoxFuture<'a, Result<(), RpcError>> {
        let _ = (url, rest);
        Box::pin(async { Ok(()) })
    }

    /// An invoker that sends calls to the provider at `url`, over a shared connection.
    fn refer(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>>;

    /// Graceful shutdown: tell consumers, stop accepting calls, let in-flight calls finish
    /// within `grace`, then close every server and client connection.
    fn shutdown(&self, grace: Duration) -> BoxFuture<'_, ()>;

    /// The connections open on this protocol's server that listens on `port`, as (consumer,
    /// local) address pairs; `None` when none of its servers listens there or the protocol
    /// does not keep track (QoS `ps PORT`).
    fn connections(&self, port: u16) -> Option<Vec<(std::net::SocketAddr, std::net::SocketAddr)>> {
        let _ = port;
        None
    }

    /// The request pools of this protocol's servers, one per server that bounds its requests
    /// (the `dubbo_thread_pool_*` metrics); none by default.
    fn thread_pools(&self) -> Vec<crate::ThreadPoolStats> {
        Vec::new()
    }

    /// Tells the consumers connected to this protocol's servers to stop choosing this
    /// provider, while it keeps serving (dubbo://'s readonly event; Java's
    /// `GracefulShutdown.readonly`). Protocols with no such signal do nothing.
    fn readonly(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
}

/// A handle on one exported service. Dropping it keeps the export; call
/// [`unexport`](Self::unexport) to withdraw it.
#[derive(Clone)]
pub struct Exporter {
    key: ServiceKey,
    url: Url,
    withdraw: Arc<dyn Fn() + Send + Sync>,
}

impl Exporter {
    /// A handle on the export of `key` at `url`; `withdraw` stops serving it.
    pub fn new(key: ServiceKey, url: Url, withdraw: impl Fn() + Send + Sync + 'static) -> Self {
        Self {
            key,
            url,
            withdraw: Arc::new(withdraw),
        }
    }

    /// The exported service's key.
    pub fn key(&self) -> &ServiceKey {
        &self.key
    }

    /// The URL the service is served at, with the port actually bound.
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// Stops serving the service: later calls get "service not found". A later export of the
    /// same key (by another module, or a re-export with new settings) is left alone.
    pub fn unexport(&self) {
        (self.withdraw)()
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
pub struct ExportTable {
    map: Arc<ArcSwap<Exports>>,
}

/// The table's snapshot, hashed with foldhash (see Cargo.toml: read on every call).
type Exports = HashMap<ServiceKey, Arc<dyn Invoker>, foldhash::fast::RandomState>;

impl ExportTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces the invoker for `key`.
    pub fn insert(&self, key: ServiceKey, invoker: Arc<dyn Invoker>) {
        self.map.rcu(|m| {
            let mut m = Exports::clone(m);
            m.insert(key.clone(), invoker.clone());
            m
        });
    }

    /// Removes `key`, returning whether it was there.
    pub fn remove(&self, key: &ServiceKey) -> bool {
        let mut found = false;
        self.map.rcu(|m| {
            let mut m = Exports::clone(m);
            found = m.remove(key).is_some();
            m
        });
        found
    }

    /// Removes `key` only while it still serves `invoker`, returning whether it did.
    pub fn remove_if_same(&self, key: &ServiceKey, invoker: &Arc<dyn Invoker>) -> bool {
        let mut found = false;
        self.map.rcu(|m| {
            let mut m = Exports::clone(m);
            found = m.get(key).is_some_and(|i| same_invoker(i, invoker));
            if found {
                m.remove(key);
            }
            m
        });
        found
    }

    /// Serves `invoker` (already wrapped in its filter chain) for the provider `url` under
    /// [`exported_service_key`], replacing an earlier export of that key, and returns the
    /// handle, whose URL is [`bound_url`]`(url, bound_port)`.
    pub fn export(
        &self,
        url: Url,
        invoker: Arc<dyn Invoker>,
        bound_port: u16,
    ) -> Result<Exporter, RpcError> {
        let key = exported_service_key(&url);
        if key.interface().is_empty() {
            return Err(RpcError::framework(
                ErrorCode::Config,
                format!("cannot export {url}: it names no path or interface"),
            ));
        }
        self.insert(key.clone(), invoker.clone());
        let table = self.clone();
        let withdraw_key = key.clone();
        Ok(Exporter::new(key, bound_url(url, bound_port), move || {
            table.remove_if_same(&withdraw_key, &invoker);
        }))
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

/// The URL of an export once its server is bound to port `bound`: a `bind.port` parameter
/// carries the bound port (it may have asked for `0`, a free one), and the URL's own port is
/// the bound one unless the URL names another port to advertise beside its `bind.port` (a URL
/// port of `0` names none).
pub fn bound_url(url: Url, bound: u16) -> Url {
    if !url.has_parameter("bind.port") {
        return url.with_port(bound);
    }
    let url = url.with_parameter("bind.port", &bound.to_string());
    match url.port() {
        0 => url.with_port(bound),
        _ => url,
    }
}

/// Whether two handles point at the same invoker (data pointers only: vtables of one type may
/// differ between codegen units).
fn same_invoker(a: &Arc<dyn Invoker>, b: &Arc<dyn Invoker>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

impl std::fmt::Debug for ExportTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.map.load().keys()).finish()
    }
}
