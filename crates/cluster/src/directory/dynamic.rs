//! [`DynamicDirectory`]: the providers of one service, as a registry last notified them.

use std::collections::hash_map::{Entry, RandomState};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::{Directory, Invocation, Invoker, InvokerList};
use dubbo_url::Url;

use super::factory::InvokerFactory;
use super::provider_key::{same_config, KeyMap, ProviderKey};
use crate::configurator::{ConfiguratorSource, Configurators};
use crate::router::RouterChain;

/// The protocol of the URL a registry pushes when a service has no provider left (Java
/// `empty://`).
const EMPTY_PROTOCOL: &str = "empty";
/// A provider whose effective URL says `disabled=true` gets no invoker.
const DISABLED_KEY: &str = "disabled";
/// Without `disabled`, `enabled=false` does the same (Java `RegistryDirectory.toInvokers`).
const ENABLED_KEY: &str = dubbo_url::keys::ENABLED;
/// Where a consumer URL without a host keeps the address it registers with.
const REGISTER_IP_KEY: &str = "register.ip";

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
/// Override rules ([`set_configurators`](Self::set_configurators)) rewrite each notified URL
/// before it is compared and built; a rule change re-applies them to the last notification
/// through the same comparison, so only the providers whose effective URL changed get a new
/// invoker. Providers whose effective URL says `disabled=true` (or, without `disabled`,
/// `enabled=false`) are left out.
///
/// Readers ([`list`](Directory::list), [`all`](Directory::all)) load an immutable snapshot
/// and take no lock. Notifications and rule changes are applied one at a time, in the order
/// they arrive; only the writer side is behind an (async) mutex.
pub struct DynamicDirectory {
    url: Url,
    /// The consumer's own address, which consumer-side override entries are matched on.
    local_host: String,
    factory: Arc<dyn InvokerFactory>,
    router_chain: Option<Arc<RouterChain>>,
    empty_protection: bool,
    /// Whether the factory is handed provider URLs already merged with the consumer's
    /// parameters (see [`with_consumer_merge`](Self::with_consumer_merge)).
    consumer_merge: bool,
    snapshot: ArcSwap<InvokerList>,
    available: dubbo_core::AvailableView,
    writer: tokio::sync::Mutex<Providers>,
    /// Keys provider identities; per directory so that registry data cannot aim at collisions.
    hasher: RandomState,
    forbidden: AtomicBool,
    destroyed: AtomicBool,
}

/// The writer's view: every provider of the last notification, in its order, with the URL
/// it was built from, and what that URL was made from (the notified list and the rules).
#[derive(Default)]
struct Providers {
    /// The last notification as given (without `empty://`), kept to re-apply rules to.
    raw: Vec<Url>,
    /// Whether every provider of `raw` got an invoker under the rules in force: an identical
    /// notification (the same `Url` clones, as a registry's parsed-URL cache hands out) is
    /// then recognised by pointer comparisons alone.
    complete: bool,
    /// Whether `slots[i]` is the provider of `raw[i]` for every `i` (no provider of `raw`
    /// was disabled or listed twice), so a notification can be matched to the slots by
    /// position (see [`DynamicDirectory::patch`]).
    positional: bool,
    /// The override rules of each [`ConfiguratorSource`], in the order they apply.
    rules: [Configurators; 3],
    /// Index into `slots` by provider identity.
    by_key: KeyMap<usize>,
    /// One per distinct provider of the last notification; `invoker` is `None` when it could
    /// not be built (it is built again on the next notification).
    slots: Vec<Slot>,
}

struct Slot {
    url: Url,
    invoker: Option<Arc<dyn Invoker>>,
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
    /// Nothing was applied: a plain empty list under empty protection, a rule equal to the
    /// one in force, or the directory is destroyed.
    pub ignored: bool,
}

impl DynamicDirectory {
    /// A directory for the consumer `url`, building provider invokers with `factory`; empty
    /// until the first notification.
    ///
    /// The consumer's own address, which consumer-side override rules are matched on, is the
    /// host of `url`, else its `register.ip` parameter.
    pub fn new(url: Url, factory: Arc<dyn InvokerFactory>) -> Self {
        let local_host = url
            .host()
            .filter(|h| !h.is_empty())
            .or_else(|| url.parameter(REGISTER_IP_KEY))
            .unwrap_or_default()
            .to_owned();
        Self {
            url,
            local_host,
            factory,
            router_chain: None,
            empty_protection: true,
            consumer_merge: false,
            snapshot: ArcSwap::from_pointee(InvokerList::from(Vec::new())),
            available: dubbo_core::AvailableView::new(),
            writer: tokio::sync::Mutex::new(Providers::default()),
            hasher: RandomState::new(),
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

    /// Whether the directory merges the consumer URL's parameters into each provider URL
    /// itself (`true`) and hands the [`InvokerFactory`] the final URL, or hands it the
    /// provider URL with only the override rules' values written on (`false`, the default),
    /// for a factory that merges the consumer's parameters itself.
    ///
    /// With `true` the precedence is Java's `RegistryDirectory.mergeUrl`: override rules,
    /// then the consumer's parameters, then the provider's; a factory that merged again would
    /// put the consumer's values back over the rules'. With `false` a rule's value for a key
    /// the consumer also sets is overwritten by that factory's merge.
    pub fn with_consumer_merge(mut self, enabled: bool) -> Self {
        self.consumer_merge = enabled;
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
        // Before the general checks, which read every provider's URL: a push of the last
        // one's clones with a few changed is recognised by comparing pointers.
        if let Some(outcome) = self.patch(&mut current, &providers).await {
            if !self.is_destroyed() {
                self.forbidden.store(false, Ordering::Release);
                current.raw = providers;
            }
            return outcome;
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

        self.apply(&mut current, providers).await
    }

    /// Most pushes of a large service re-list every provider with one or two changed: a
    /// registry's parsed-URL cache hands out the very same `Url` for each unchanged one, in
    /// the order of the last push. Such a push is matched to the slots by position and
    /// pointer, and only the providers whose `Url` is not the same clone are looked at,
    /// instead of hashing and comparing every provider twice and rebuilding the provider map.
    ///
    /// Applies `providers` that way and returns what it did, or returns `None` having changed
    /// nothing when the push is not of that shape (another length or order, a provider
    /// replaced by another at its position, many changes, override rules or consumer merging
    /// in force, a provider disabled, or the last notification left some provider without an
    /// invoker); [`apply`](Self::apply) then does the general diff, with the same result.
    async fn patch(&self, current: &mut Providers, providers: &[Url]) -> Option<NotifyOutcome> {
        if !current.complete
            || !current.positional
            || providers.is_empty()
            || providers.len() != current.raw.len()
            || current.slots.len() != providers.len()
            || self.consumer_merge
            || !current.rules.iter().all(Configurators::is_empty)
        {
            return None;
        }
        // Beyond a few changes the general diff costs about the same and keeps this simple.
        let most = (providers.len() / 64).max(16);
        let mut differ: Vec<usize> = Vec::new();
        for (i, (new, old)) in providers.iter().zip(&current.raw).enumerate() {
            if !Url::ptr_eq(new, old) {
                if differ.len() == most {
                    return None;
                }
                differ.push(i);
            }
        }
        if differ.is_empty() {
            return Some(NotifyOutcome {
                unchanged: current.slots.len(),
                ..NotifyOutcome::default()
            });
        }
        let consumer = self.url.params();
        let mut rekeyed: Vec<(usize, ProviderKey, ProviderKey)> = Vec::with_capacity(differ.len());
        for &i in &differ {
            let (new, slot) = (providers.get(i)?, current.slots.get(i)?);
            if new.protocol() == Some(EMPTY_PROTOCOL) {
                return None;
            }
            let value = |key: &str| consumer.get(key).or_else(|| new.parameter(key));
            if !is_enabled(value(DISABLED_KEY), value(ENABLED_KEY)) {
                return None;
            }
            let (old_key, new_key) = (
                ProviderKey::of(&self.hasher, &slot.url),
                ProviderKey::of(&self.hasher, new),
            );
            if old_key != new_key {
                return None;
            }
            rekeyed.push((i, old_key, new_key));
        }

        let mut outcome = NotifyOutcome::default();
        let mut to_build: Vec<(usize, Url)> = Vec::new();
        for (i, old_key, new_key) in rekeyed {
            let (Some(new), Some(slot)) = (providers.get(i), current.slots.get_mut(i)) else {
                continue;
            };
            if !same_config(&slot.url, new) {
                to_build.push((i, new.clone()));
            }
            slot.url = new.clone();
            // The key holds a clone of the provider's URL: keep it the current one.
            current.by_key.remove(&old_key);
            current.by_key.insert(new_key, i);
        }
        outcome.unchanged = current.slots.len() - to_build.len();
        if to_build.is_empty() {
            return Some(outcome);
        }

        let built = futures::future::join_all(to_build.into_iter().map(|(i, url)| async move {
            let result = self.factory.create(url.clone()).await;
            (i, url, result)
        }))
        .await;
        let mut replaced: Vec<Arc<dyn Invoker>> = Vec::with_capacity(built.len());
        for (i, url, result) in built {
            let Some(slot) = current.slots.get_mut(i) else {
                continue;
            };
            match result {
                Ok(invoker) => {
                    outcome.changed += 1;
                    replaced.extend(slot.invoker.replace(invoker));
                }
                Err(e) => {
                    tracing::error!(
                        consumer = %self.url,
                        provider = %url,
                        error = %e,
                        "could not build the invoker of a provider; it is left out"
                    );
                    outcome.removed += 1;
                    outcome.failed.push(url);
                    replaced.extend(slot.invoker.take());
                }
            }
        }
        current.complete = outcome.failed.is_empty();
        let snapshot = self.publish(&current.slots);
        for old in replaced {
            old.destroy();
        }
        if self.is_destroyed() {
            self.release(current);
        }
        tracing::info!(
            consumer = %self.url,
            providers = snapshot.len(),
            changed = outcome.changed,
            removed = outcome.removed,
            failed = outcome.failed.len(),
            "provider list refreshed"
        );
        Some(outcome)
    }

    /// Replaces the override rules of `source` with `configurators`
    /// ([`Configurators::default`] removes them) and re-applies every source's rules to the
    /// last notification, as [`notify`](Self::notify) would: providers whose effective URL
    /// changed get a new invoker, the others keep theirs, and removing a rule restores the
    /// notified URLs. A rule set before the first notification applies to it.
    ///
    /// Serialised with notifications on the writer lock, so a notification that follows
    /// sees the rule. An unchanged rule does nothing.
    pub async fn set_configurators(
        &self,
        source: ConfiguratorSource,
        configurators: Configurators,
    ) -> NotifyOutcome {
        let mut current = self.writer.lock().await;
        let slot = source.index();
        if self.is_destroyed() || current.rules.get(slot) == Some(&configurators) {
            return NotifyOutcome {
                ignored: true,
                unchanged: current.by_key.len(),
                ..NotifyOutcome::default()
            };
        }
        if let Some(rules) = current.rules.get_mut(slot) {
            *rules = configurators;
        }
        tracing::info!(
            consumer = %self.url,
            source = ?source,
            entries = current.rules.get(slot).map_or(0, Configurators::len),
            "override rules changed"
        );
        if current.raw.is_empty() {
            // Nothing notified yet (or the service has no provider): the rule waits for the
            // next notification.
            return NotifyOutcome::default();
        }
        let raw = std::mem::take(&mut current.raw);
        self.apply(&mut current, raw).await
    }

    /// A provider's URL as the directory builds it: the notified `raw` with the override
    /// rules applied, or `None` when they (or the provider itself) disable it.
    ///
    /// Rules are matched against the URL Java's consumer configures, the provider URL merged
    /// with the consumer's parameters (so `side` and `application` are the consumer's). That
    /// URL is the result under [`with_consumer_merge`](Self::with_consumer_merge); otherwise
    /// what the rules set is written onto the provider URL, which the [`InvokerFactory`]
    /// merges with the consumer's parameters itself.
    fn effective(&self, raw: &Url, rules: &[Configurators; 3]) -> Option<Url> {
        if !self.consumer_merge && rules.iter().all(Configurators::is_empty) {
            let consumer = self.url.params();
            let value = |key: &str| consumer.get(key).or_else(|| raw.parameter(key));
            return is_enabled(value(DISABLED_KEY), value(ENABLED_KEY)).then(|| raw.clone());
        }
        let merged = dubbo_url::merge_url(raw, self.url.params());
        let configured = rules
            .iter()
            .fold(merged.clone(), |u, r| r.configure(&u, &self.local_host));
        if !is_enabled(
            configured.parameter(DISABLED_KEY),
            configured.parameter(ENABLED_KEY),
        ) {
            return None;
        }
        if self.consumer_merge {
            return Some(configured);
        }
        if configured.params().ptr_eq(merged.params()) {
            return Some(raw.clone());
        }
        let set: Vec<(&str, &str)> = configured
            .params()
            .iter()
            .filter(|(k, v)| merged.parameter(k) != Some(*v))
            .collect();
        Some(raw.with_parameters(set))
    }

    /// Builds the directory for the notified `raw` list under the rules in force: diffs the
    /// effective URLs against the providers known, builds what is new or changed, publishes
    /// the snapshot and destroys what it no longer holds. Keeps `raw` as the last
    /// notification.
    async fn apply(&self, current: &mut Providers, raw: Vec<Url>) -> NotifyOutcome {
        let providers: Vec<Url> = raw
            .iter()
            .filter_map(|u| {
                let effective = self.effective(u, &current.rules);
                if effective.is_none() {
                    tracing::debug!(provider = %u, "provider disabled; left out");
                }
                effective
            })
            .collect();
        let mut outcome = NotifyOutcome::default();
        let mut by_key: KeyMap<usize> =
            KeyMap::with_capacity_and_hasher(providers.len(), Default::default());
        let mut slots: Vec<Slot> = Vec::with_capacity(providers.len());
        let mut to_build: Vec<(usize, Url)> = Vec::new();
        for url in &providers {
            let key = ProviderKey::of(&self.hasher, url);
            let Entry::Vacant(vacant) = by_key.entry(key) else {
                tracing::debug!(provider = %url, "duplicate provider in notification; first kept");
                continue;
            };
            let old = current
                .by_key
                .get(vacant.key())
                .and_then(|&i| current.slots.get(i));
            let slot = slots.len();
            vacant.insert(slot);
            match old {
                Some(Slot {
                    url: old_url,
                    invoker: Some(invoker),
                }) if same_config(old_url, url) => {
                    outcome.unchanged += 1;
                    slots.push(Slot {
                        url: url.clone(),
                        invoker: Some(Arc::clone(invoker)),
                    });
                }
                existing => {
                    if existing.is_some_and(|s| s.invoker.is_some()) {
                        outcome.changed += 1;
                    } else {
                        outcome.added += 1;
                    }
                    to_build.push((slot, url.clone()));
                    slots.push(Slot {
                        url: url.clone(),
                        invoker: None,
                    });
                }
            }
        }

        let built = futures::future::join_all(to_build.into_iter().map(|(slot, url)| async move {
            let result = self.factory.create(url.clone()).await;
            (slot, url, result)
        }))
        .await;
        for (slot, url, result) in built {
            match result {
                Ok(invoker) => {
                    if let Some(entry) = slots.get_mut(slot) {
                        entry.invoker = Some(invoker);
                    }
                }
                Err(e) => {
                    tracing::error!(
                        consumer = %self.url,
                        provider = %url,
                        error = %e,
                        "could not build the invoker of a provider; it is left out"
                    );
                    let existed = current
                        .by_key
                        .get(&ProviderKey::of(&self.hasher, &url))
                        .and_then(|&i| current.slots.get(i))
                        .is_some_and(|s| s.invoker.is_some());
                    if existed {
                        outcome.changed -= 1;
                    } else {
                        outcome.added -= 1;
                    }
                    outcome.failed.push(url);
                }
            }
        }

        let old_by_key = std::mem::replace(&mut current.by_key, by_key);
        let old_slots = std::mem::replace(&mut current.slots, slots);
        current.complete = outcome.failed.is_empty();
        current.positional = current.slots.len() == raw.len();
        current.raw = raw;
        let snapshot = self.publish(&current.slots);

        // Destroy what the new snapshot no longer holds: removed providers and the replaced
        // invokers of changed (or failed) ones.
        for (key, i) in old_by_key {
            let Some(old) = old_slots.get(i).and_then(|s| s.invoker.as_ref()) else {
                continue;
            };
            let now = current
                .by_key
                .get(&key)
                .and_then(|&j| current.slots.get(j))
                .and_then(|s| s.invoker.as_ref());
            match now {
                Some(invoker) if Arc::ptr_eq(invoker, old) => {}
                Some(_) => old.destroy(),
                None => {
                    outcome.removed += 1;
                    old.destroy();
                }
            }
        }
        if self.is_destroyed() {
            // `destroy` ran while this notification was building invokers.
            self.release(current);
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

    /// Makes the invokers of `slots` the snapshot calls read, and tells the router chain.
    fn publish(&self, slots: &[Slot]) -> InvokerList {
        let list: Vec<Arc<dyn Invoker>> = slots
            .iter()
            .filter_map(|s| s.invoker.as_ref().map(Arc::clone))
            .collect();
        let snapshot: InvokerList = list.into();
        self.snapshot.store(Arc::new(InvokerList::clone(&snapshot)));
        if let Some(chain) = &self.router_chain {
            chain.notify(&snapshot);
        }
        snapshot
    }

    fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    /// Destroys every invoker the writer holds and publishes an empty snapshot.
    fn release(&self, current: &mut Providers) {
        current.by_key.clear();
        current.raw.clear();
        current.complete = false;
        current.positional = false;
        for slot in current.slots.drain(..) {
            if let Some(invoker) = slot.invoker {
                invoker.destroy();
            }
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

/// Java `RegistryDirectory.toInvokers`: `disabled` decides when present, else `enabled`;
/// both read as `Boolean.parseBoolean`, absent or empty meaning the default.
fn is_enabled(disabled: Option<&str>, enabled: Option<&str>) -> bool {
    match disabled.filter(|d| !d.is_empty()) {
        Some(d) => !d.eq_ignore_ascii_case("true"),
        None => enabled
            .filter(|e| !e.is_empty())
            .is_none_or(|e| e.eq_ignore_ascii_case("true")),
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
