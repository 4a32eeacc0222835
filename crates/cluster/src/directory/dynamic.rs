//! [`DynamicDirectory`]: the providers of one service, as a registry last notified them.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::{Directory, Invocation, Invoker, InvokerList};
use dubbo_url::Url;

use super::factory::InvokerFactory;
use super::provider_key::{fingerprint, ProviderKey};
use crate::router::RouterChain;

/// The protocol of the URL a registry pushes when a service has no provider left (Java
/// `empty://`).
const EMPTY_PROTOCOL: &str = "empty";

/// A directory fed by registry notifications: each [`notify`](Self::notify) replaces the
/// provider set, and the directory works out what changed.
///
/// Providers are matched across notifications by protocol, host, port and service key.
/// A provider whose URL is the same but for its registration `timestamp` keeps its invoker
/// (and so its connection); one whose parameters changed gets a new invoker from the
/// [`InvokerFactory`], built before the old one is destroyed, so a protocol that shares a
/// connection per address carries it over. Added providers get new invokers; removed ones are
/// destroyed once the new snapshot is in place. A provider whose invoker cannot be built is
/// left out (and logged); the rest of the notification still applies.
///
/// Empty notifications follow Java's `RegistryDirectory`: a single `empty://` URL is the
/// registry saying the service has no provider, and clears the directory; a plain empty list
/// (a registry that lost its data, a partial push) keeps the providers known so far, unless
/// [`with_empty_protection(false)`](Self::with_empty_protection) says to clear it too.
///
/// Readers ([`list`](Directory::list), [`all`](Directory::all)) load an immutable snapshot
/// and take no lock. Notifications are applied one at a time, in the order they arrive; only
/// the writer side is behind an (async) mutex.
pub struct DynamicDirectory {
    url: Url,
    factory: Arc<dyn InvokerFactory>,
    router_chain: Option<Arc<RouterChain>>,
    empty_protection: bool,
    snapshot: ArcSwap<InvokerList>,
    available: dubbo_core::AvailableView,
    writer: tokio::sync::Mutex<Providers>,
    forbidden: AtomicBool,
    destroyed: AtomicBool,
}

/// The writer's view: every provider of the current snapshot with the URL it was built from.
#[derive(Default)]
struct Providers {
    by_key: HashMap<ProviderKey, Provider>,
}

struct Provider {
    fingerprint: Url,
    invoker: Arc<dyn Invoker>,
}

/// What one [`DynamicDirectory::notify`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotifyOutcome {
    /// Providers new to the directory that now have an invoker.
    pub added: usize,
    /// Providers whose parameters changed and whose invoker was rebuilt.
    pub changed: usize,
    /// Providers that kept their invoker.
    pub unchanged: usize,
    /// Providers dropped and their invokers destroyed: those the notification no longer
    /// lists, and changed ones whose new invoker could not be built.
    pub removed: usize,
    /// URLs whose invoker could not be built, left out of the directory.
    pub failed: Vec<Url>,
    /// The notification was ignored: a plain empty list under empty protection, or the
    /// directory is destroyed.
    pub ignored: bool,
}

impl DynamicDirectory {
    /// A directory for the consumer `url`, building provider invokers with `factory`; empty
    /// until the first notification.
    pub fn new(url: Url, factory: Arc<dyn InvokerFactory>) -> Self {
        Self {
            url,
            factory,
            router_chain: None,
            empty_protection: true,
            snapshot: ArcSwap::from_pointee(InvokerList::from(Vec::new())),
            available: dubbo_core::AvailableView::new(),
            writer: tokio::sync::Mutex::new(Providers::default()),
            forbidden: AtomicBool::new(false),
            destroyed: AtomicBool::new(false),
        }
    }

    /// Tells `chain` of every new snapshot ([`RouterChain::notify`]), so its routers
    /// precompute for the new list and its cached routes are dropped.
    pub fn with_router_chain(mut self, chain: Arc<RouterChain>) -> Self {
        self.router_chain = Some(chain);
        self
    }

    /// Whether a plain empty notification keeps the known providers (`true`, the default, as
    /// Java's `RegistryDirectory`) or clears them (`false`). An `empty://` push always clears.
    pub fn with_empty_protection(mut self, enabled: bool) -> Self {
        self.empty_protection = enabled;
        self
    }

    /// Whether the registry last said the service has no provider (`empty://`, or an empty
    /// list without empty protection); Java calls this state "forbidden".
    pub fn is_forbidden(&self) -> bool {
        self.forbidden.load(Ordering::Acquire)
    }

    /// Replaces the provider set with `providers` (a registry's full list for the service).
    ///
    /// Returns once the new snapshot is in place and removed invokers are destroyed.
    /// Concurrent calls are applied one after another, in the order they take the writer lock
    /// (the order they are called in, for calls from one task or registry listener).
    pub async fn notify(&self, providers: Vec<Url>) -> NotifyOutcome {
        let mut current = self.writer.lock().await;
        if self.is_destroyed() {
            return NotifyOutcome {
                ignored: true,
                ..NotifyOutcome::default()
            };
        }
        let empty_push = providers.len() == 1
            && providers
                .first()
                .is_some_and(|u| u.protocol() == Some(EMPTY_PROTOCOL));
        let providers: Vec<Url> = providers
            .into_iter()
            .filter(|u| u.protocol() != Some(EMPTY_PROTOCOL))
            .collect();
        if providers.is_empty() && !empty_push && self.empty_protection {
            if !current.by_key.is_empty() {
                tracing::warn!(
                    consumer = %self.url,
                    kept = current.by_key.len(),
                    "empty provider list without empty://; keeping the known providers"
                );
            }
            return NotifyOutcome {
                ignored: true,
                ..NotifyOutcome::default()
            };
        }
        self.forbidden
            .store(providers.is_empty(), Ordering::Release);

        let mut outcome = NotifyOutcome::default();
        let mut next: Vec<(ProviderKey, Option<Provider>)> = Vec::with_capacity(providers.len());
        let mut to_build: Vec<(usize, Url, Url)> = Vec::new();
        let mut seen: HashSet<ProviderKey> = HashSet::with_capacity(providers.len());
        for url in providers {
            let key = ProviderKey::of(&url);
            if !seen.insert(key.clone()) {
                tracing::debug!(provider = %url, "duplicate provider in notification; first kept");
                continue;
            }
            let print = fingerprint(&url);
            match current.by_key.get(&key) {
                Some(p) if p.fingerprint == print => {
                    outcome.unchanged += 1;
                    next.push((
                        key,
                        Some(Provider {
                            fingerprint: print,
                            invoker: Arc::clone(&p.invoker),
                        }),
                    ));
                }
                existing => {
                    if existing.is_some() {
                        outcome.changed += 1;
                    } else {
                        outcome.added += 1;
                    }
                    to_build.push((next.len(), url, print));
                    next.push((key, None));
                }
            }
        }

        let built =
            futures::future::join_all(to_build.into_iter().map(|(slot, url, print)| async move {
                let result = self.factory.create(url.clone()).await;
                (slot, url, print, result)
            }))
            .await;
        for (slot, url, print, result) in built {
            match result {
                Ok(invoker) => {
                    if let Some(entry) = next.get_mut(slot) {
                        entry.1 = Some(Provider {
                            fingerprint: print,
                            invoker,
                        });
                    }
                }
                Err(e) => {
                    tracing::error!(
                        consumer = %self.url,
                        provider = %url,
                        error = %e,
                        "could not build the invoker of a provider; it is left out"
                    );
                    if current.by_key.contains_key(&ProviderKey::of(&url)) {
                        outcome.changed -= 1;
                    } else {
                        outcome.added -= 1;
                    }
                    outcome.failed.push(url);
                }
            }
        }

        let mut by_key = HashMap::with_capacity(next.len());
        let mut list: Vec<Arc<dyn Invoker>> = Vec::with_capacity(next.len());
        for (key, provider) in next {
            if let Some(p) = provider {
                list.push(Arc::clone(&p.invoker));
                by_key.insert(key, p);
            }
        }
        let old = std::mem::replace(&mut current.by_key, by_key);
        let snapshot: InvokerList = list.into();
        self.snapshot.store(Arc::new(InvokerList::clone(&snapshot)));
        if let Some(chain) = &self.router_chain {
            chain.notify(&snapshot);
        }

        // Destroy what the new snapshot no longer holds: removed providers and the replaced
        // invokers of changed (or failed) ones.
        for (key, p) in old {
            let kept = snapshot.iter().any(|i| Arc::ptr_eq(i, &p.invoker));
            if !kept {
                if !current.by_key.contains_key(&key) {
                    outcome.removed += 1;
                }
                p.invoker.destroy();
            }
        }
        if self.is_destroyed() {
            // `destroy` ran while this notification was building invokers.
            self.release(&mut current);
        }
        tracing::info!(
            consumer = %self.url,
            providers = snapshot.len(),
            added = outcome.added,
            changed = outcome.changed,
            removed = outcome.removed,
            failed = outcome.failed.len(),
            "provider list refreshed"
        );
        outcome
    }

    fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    /// Destroys every invoker the writer holds and publishes an empty snapshot.
    fn release(&self, current: &mut Providers) {
        for (_, p) in current.by_key.drain() {
            p.invoker.destroy();
        }
        self.publish_empty();
    }

    fn publish_empty(&self) {
        let empty = InvokerList::from(Vec::new());
        self.snapshot.store(Arc::new(InvokerList::clone(&empty)));
        self.available.clear();
        if let Some(chain) = &self.router_chain {
            chain.notify(&empty);
        }
    }
}

impl Directory for DynamicDirectory {
    fn url(&self) -> &Url {
        &self.url
    }

    fn list(&self, _invocation: &Invocation) -> InvokerList {
        self.available.available(&self.snapshot.load())
    }

    fn all(&self) -> InvokerList {
        InvokerList::clone(&self.snapshot.load_full())
    }

    fn destroy(&self) {
        if self.destroyed.swap(true, Ordering::AcqRel) {
            return;
        }
        match self.writer.try_lock() {
            Ok(mut current) => self.release(&mut current),
            // A notification is in progress: it sees the flag once its snapshot is in place
            // and releases everything then. Meanwhile no call gets a provider.
            Err(_) => {
                for i in self.snapshot.load().iter() {
                    i.destroy();
                }
                self.publish_empty();
            }
        }
    }
}

impl std::fmt::Debug for DynamicDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicDirectory")
            .field("url", &self.url.to_string())
            .field("providers", &self.snapshot.load().len())
            .field("forbidden", &self.is_forbidden())
            .finish()
    }
}
