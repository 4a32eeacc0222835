//! [`DynamicDirectory`]: the providers of one service, as a registry last notified them.

use std::collections::hash_map::RandomState;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use dubbo_core::{Directory, Invocation, Invoker, InvokerList};
use dubbo_url::Url;

use super::factory::{create_all, InvokerFactory};
use super::param_facts::{FactsMemo, DISABLED_KEY, ENABLED_KEY};
use super::provider_key::{same_config, same_provider, KeyIndex};
use super::providers::{listed_url, Layout, Providers, Slot, Spare};
use crate::configurator::{ConfiguratorSource, Configurators};
use crate::router::RouterChain;

/// The protocol of the URL a registry pushes when a service has no provider left (Java
/// `empty://`).
const EMPTY_PROTOCOL: &str = "empty";
/// How many earlier snapshots are kept to be patched into later ones (see `patched_snapshot`).
const SPARES: usize = 2;
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
    /// The list is taken as an `Arc<[Url]>` (a `Vec<Url>` converts) and kept, shared, as the
    /// last notification: a caller that keeps its list too (a watch channel holding the
    /// latest list) hands it over without copying, and the directory never releases the
    /// `Url`s of a list someone else still holds.
    ///
    /// Returns once the new snapshot is in place and removed invokers are destroyed.
    /// Concurrent calls are applied one after another, in the order they take the writer lock
    /// (the order they are called in, for calls from one task or registry listener).
    pub async fn notify(&self, providers: impl Into<Arc<[Url]>>) -> NotifyOutcome {
        let providers: Arc<[Url]> = providers.into();
        let mut current = self.writer.lock().await;
        if self.is_destroyed() {
            return NotifyOutcome {
                ignored: true,
                ..NotifyOutcome::default()
            };
        }
        // Before the general checks, which read every provider's URL: a push of the last
        // one's clones with a few changed is recognised by comparing pointers.
        let providers = match self.patch(&mut current, providers).await {
            Ok(outcome) => {
                if self.is_destroyed() {
                    self.release(&mut current);
                } else {
                    self.forbidden.store(false, Ordering::Release);
                }
                return outcome;
            }
            Err(providers) => providers,
        };
        // Stops at the first real provider: O(1) for any list but an empty one.
        let none = providers.iter().all(is_empty_url);
        let empty_push = none && providers.len() == 1;
        if none && !empty_push && self.empty_protection {
            if current.len() > 0 {
                tracing::warn!(
                    consumer = %self.url,
                    kept = current.len(),
                    "empty provider list without empty://; keeping the known providers"
                );
            }
            return NotifyOutcome {
                ignored: true,
                ..NotifyOutcome::default()
            };
        }
        self.forbidden.store(none, Ordering::Release);
        // `empty://` among real providers is skipped where they are applied.
        let providers = if none { Arc::default() } else { providers };

        self.apply(&mut current, providers).await
    }

    /// Most pushes of a large service re-list every provider with one or two changed: a
    /// registry's parsed-URL cache hands out the very same `Url` for each unchanged one, in
    /// the order of the last push. Such a push is matched to the last one by position and
    /// pointer, and only the providers whose `Url` is not the same clone are looked at: no
    /// provider is hashed, the provider index is kept as it is, and the snapshot is patched
    /// (see [`Spare`]) rather than rebuilt.
    ///
    /// Applies `providers` that way and returns what it did, or returns `None` having changed
    /// nothing when the push is not of that shape (another length or order, a provider
    /// replaced by another at its position, many changes, `empty://`, a provider disabled)
    /// or the directory is not [`Layout::Aligned`] (override rules or consumer merging in
    /// force, or the last notification left some provider out);
    /// [`apply`](Self::apply) then does the general diff, with the same result.
    //
    // Kept as a second diff path because without it every push of a large service costs a
    // full diff: 2026-12-05, `DISCOVERY_SCALE_REPS=5 cargo bench --profile release -p
    // dubbo-registry --bench discovery_scale -- interface` (100,000 providers, CPU p50, two
    // alternating runs), re-applying a full listing with one provider restarted took 26.4-26.9
    // ms end to end with it and 56.2-56.3 ms through `apply` alone; one change from
    // ZooKeeper's change feed 0.12 ms with it and 29.5-29.8 ms without.
    async fn patch(
        &self,
        current: &mut Providers,
        providers: Arc<[Url]>,
    ) -> Result<NotifyOutcome, Arc<[Url]>> {
        if !matches!(current.layout, Layout::Aligned)
            || providers.is_empty()
            || providers.len() != current.raw.len()
            || current.snapshot.len() != providers.len()
            || !self.is_plain(current)
        {
            return Err(providers);
        }
        // Beyond a few changes the general diff costs about the same and keeps this simple.
        let most = (providers.len() / 64).max(16);
        let mut differ: Vec<usize> = Vec::new();
        if !Arc::ptr_eq(&providers, &current.raw) {
            for (i, (new, old)) in providers.iter().zip(current.raw.iter()).enumerate() {
                if !Url::ptr_eq(new, old) {
                    if differ.len() == most {
                        return Err(providers);
                    }
                    differ.push(i);
                }
            }
        }
        let n = providers.len();
        if differ.is_empty() {
            adopt(current, providers, &differ);
            return Ok(NotifyOutcome {
                unchanged: n,
                ..NotifyOutcome::default()
            });
        }
        let consumer = self.url.params();
        let mut to_build: Vec<(usize, Url)> = Vec::new();
        for &i in &differ {
            let (Some(new), Some(old)) = (providers.get(i), current.raw.get(i)) else {
                return Err(providers);
            };
            let value = |key: &str| consumer.get(key).or_else(|| new.parameter(key));
            if is_empty_url(new)
                || !is_enabled(value(DISABLED_KEY), value(ENABLED_KEY))
                || !same_provider(old, new)
            {
                return Err(providers);
            }
            if !same_config(old, new) {
                to_build.push((i, new.clone()));
            }
        }
        // The push is of the patchable shape: from here on it is applied.
        adopt(current, providers, &differ);
        let mut outcome = NotifyOutcome {
            unchanged: n - to_build.len(),
            ..NotifyOutcome::default()
        };
        if to_build.is_empty() {
            return Ok(outcome);
        }

        let mut rebuilt: Vec<(usize, Arc<dyn Invoker>)> = Vec::with_capacity(to_build.len());
        let mut failed: Vec<usize> = Vec::new();
        for (i, result) in create_all(self.factory.as_ref(), to_build).await {
            match result {
                Ok(invoker) => {
                    outcome.changed += 1;
                    rebuilt.push((i, invoker));
                }
                Err(e) => {
                    let Some(url) = current.raw.get(i).cloned() else {
                        continue;
                    };
                    tracing::error!(
                        consumer = %self.url,
                        provider = %url,
                        error = %e,
                        "could not build the invoker of a provider; it is left out"
                    );
                    outcome.removed += 1;
                    outcome.failed.push(url);
                    failed.push(i);
                }
            }
        }
        let replaced: Vec<Arc<dyn Invoker>> = rebuilt
            .iter()
            .map(|(i, _)| *i)
            .chain(failed.iter().copied())
            .filter_map(|i| current.snapshot.get(i).cloned())
            .collect();
        let snapshot = if failed.is_empty() {
            patched_snapshot(current, &rebuilt)
        } else {
            // A provider is left out: positions no longer line up with the snapshot.
            let mut slots: Vec<Slot> = current
                .snapshot
                .iter()
                .enumerate()
                .map(|(i, invoker)| Slot {
                    src: u32::try_from(i).unwrap_or(u32::MAX),
                    url: None,
                    invoker: Some(Arc::clone(invoker)),
                })
                .collect();
            for (i, invoker) in &rebuilt {
                if let Some(slot) = slots.get_mut(*i) {
                    slot.invoker = Some(Arc::clone(invoker));
                }
            }
            for &i in &failed {
                if let Some(slot) = slots.get_mut(i) {
                    slot.invoker = None;
                }
            }
            let snapshot: InvokerList = slots.iter().filter_map(|s| s.invoker.clone()).collect();
            current.layout = Layout::Listed(slots);
            current.spares.clear();
            snapshot
        };
        let providers = self.publish(current, snapshot);
        for old in replaced {
            old.destroy();
        }
        if self.is_destroyed() {
            self.release(current);
        }
        tracing::info!(
            consumer = %self.url,
            providers,
            changed = outcome.changed,
            removed = outcome.removed,
            failed = outcome.failed.len(),
            "provider list refreshed"
        );
        Ok(outcome)
    }

    /// Whether provider URLs are built as notified: no consumer merging, no override rule.
    fn is_plain(&self, current: &Providers) -> bool {
        !self.consumer_merge && current.rules.iter().all(Configurators::is_empty)
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
                unchanged: current.len(),
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
        let raw = Arc::clone(&current.raw);
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
    async fn apply(&self, current: &mut Providers, raw: Arc<[Url]>) -> NotifyOutcome {
        let plain = self.is_plain(current);
        let consumer = self.url.params();
        let mut outcome = NotifyOutcome::default();
        let mut keys = KeyIndex::with_capacity(raw.len());
        let mut slots: Vec<Slot> = Vec::with_capacity(raw.len());
        // For each provider known so far, the slot it is in now (`u32::MAX`: none).
        let mut moved: Vec<u32> = vec![u32::MAX; current.len()];
        let mut to_build: Vec<(usize, Url)> = Vec::new();
        // The slots to build whose provider had an invoker before (changed, not added), in
        // increasing order.
        let mut existed: Vec<usize> = Vec::new();
        let (consumer_disabled, consumer_enabled) =
            (consumer.get(DISABLED_KEY), consumer.get(ENABLED_KEY));
        let known = current.len() > 0;
        let mut memo = FactsMemo::default();
        for (src, notified) in raw.iter().enumerate() {
            let Ok(src) = u32::try_from(src) else {
                break;
            };
            if is_empty_url(notified) {
                continue;
            }
            let facts = memo.get(notified);
            let own: Option<Url> = if plain {
                let disabled = consumer_disabled.or(facts.disabled);
                let enabled = consumer_enabled.or(facts.enabled);
                if !is_enabled(disabled, enabled) {
                    tracing::debug!(provider = %notified, "provider disabled; left out");
                    continue;
                }
                None
            } else {
                match self.effective(notified, &current.rules) {
                    None => {
                        tracing::debug!(provider = %notified, "provider disabled; left out");
                        continue;
                    }
                    Some(u) if Url::ptr_eq(&u, notified) => None,
                    Some(u) => Some(u),
                }
            };
            let url = own.as_ref().unwrap_or(notified);
            let hash = match &own {
                None => KeyIndex::hash_with(&self.hasher, url, &facts),
                Some(own) => KeyIndex::hash(&self.hasher, own),
            };
            if keys
                .find(hash, url, |j| listed_url(&slots, &raw, j))
                .is_some()
            {
                tracing::debug!(provider = %url, "duplicate provider in notification; first kept");
                continue;
            }
            let Ok(position) = u32::try_from(slots.len()) else {
                break;
            };
            let mut invoker = None;
            let mut had_invoker = false;
            if let Some(old) = known.then(|| current.find(hash, url)).flatten() {
                if let Some(m) = moved.get_mut(old as usize) {
                    *m = position;
                }
                let old_invoker = current.invoker_of(old);
                had_invoker = old_invoker.is_some();
                if let (Some(old_url), Some(old_invoker)) = (current.url_of(old), old_invoker) {
                    if same_config(old_url, url) {
                        invoker = Some(Arc::clone(old_invoker));
                    }
                }
            }
            if invoker.is_some() {
                outcome.unchanged += 1;
            } else {
                if had_invoker {
                    outcome.changed += 1;
                } else {
                    outcome.added += 1;
                }
                if had_invoker {
                    existed.push(slots.len());
                }
                to_build.push((slots.len(), url.clone()));
            }
            keys.insert(hash, position, |&j| {
                listed_url(&slots, &raw, j).map_or(0, |u| KeyIndex::hash(&self.hasher, u))
            });
            slots.push(Slot {
                src,
                url: own,
                invoker,
            });
        }

        for (slot, result) in create_all(self.factory.as_ref(), to_build).await {
            match result {
                Ok(invoker) => {
                    if let Some(entry) = slots.get_mut(slot) {
                        entry.invoker = Some(invoker);
                    }
                }
                Err(e) => {
                    let Some(url) = u32::try_from(slot)
                        .ok()
                        .and_then(|at| listed_url(&slots, &raw, at))
                        .cloned()
                    else {
                        continue;
                    };
                    tracing::error!(
                        consumer = %self.url,
                        provider = %url,
                        error = %e,
                        "could not build the invoker of a provider; it is left out"
                    );
                    if existed.binary_search(&slot).is_ok() {
                        outcome.changed -= 1;
                    } else {
                        outcome.added -= 1;
                    }
                    outcome.failed.push(url);
                }
            }
        }

        // What the new snapshot no longer holds: removed providers and the replaced invokers
        // of changed (or failed) ones; destroyed once it is in place.
        let mut retired: Vec<Arc<dyn Invoker>> = Vec::new();
        for (old, &now) in moved.iter().enumerate() {
            let Some(old_invoker) = u32::try_from(old).ok().and_then(|o| current.invoker_of(o))
            else {
                continue;
            };
            match slots.get(now as usize).and_then(|s| s.invoker.as_ref()) {
                Some(invoker) if Arc::ptr_eq(invoker, old_invoker) => {}
                Some(_) => retired.push(Arc::clone(old_invoker)),
                None => {
                    outcome.removed += 1;
                    retired.push(Arc::clone(old_invoker));
                }
            }
        }

        let aligned =
            plain && slots.len() == raw.len() && slots.iter().all(|s| s.invoker.is_some());
        let snapshot: InvokerList = if aligned {
            current.layout = Layout::Aligned;
            slots.into_iter().filter_map(|s| s.invoker).collect()
        } else {
            let snapshot = slots.iter().filter_map(|s| s.invoker.clone()).collect();
            current.layout = Layout::Listed(slots);
            snapshot
        };
        current.keys = keys;
        current.raw = raw;
        current.spares.clear();
        let providers = self.publish(current, snapshot);
        for old in retired {
            old.destroy();
        }
        if self.is_destroyed() {
            // `destroy` ran while this notification was building invokers.
            self.release(current);
        }
        tracing::info!(
            consumer = %self.url,
            providers,
            added = outcome.added,
            changed = outcome.changed,
            removed = outcome.removed,
            failed = outcome.failed.len(),
            "provider list refreshed"
        );
        outcome
    }

    /// Makes `snapshot` the list calls read, tells the router chain, and returns its length.
    fn publish(&self, current: &mut Providers, snapshot: InvokerList) -> usize {
        self.snapshot.store(Arc::new(InvokerList::clone(&snapshot)));
        if let Some(chain) = &self.router_chain {
            chain.notify(&snapshot);
        }
        let len = snapshot.len();
        current.snapshot = snapshot;
        len
    }

    fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }

    /// Destroys every invoker the writer holds and publishes an empty snapshot.
    fn release(&self, current: &mut Providers) {
        current.keys.clear();
        current.raw = Arc::default();
        current.spares.clear();
        let layout = std::mem::take(&mut current.layout);
        let snapshot = std::mem::replace(&mut current.snapshot, InvokerList::from(Vec::new()));
        match layout {
            Layout::Aligned => snapshot.iter().for_each(|i| i.destroy()),
            Layout::Listed(slots) => slots
                .iter()
                .filter_map(|s| s.invoker.as_ref())
                .for_each(|i| i.destroy()),
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

/// Whether `url` is the registry saying the service has no provider.
fn is_empty_url(url: &Url) -> bool {
    url.protocol() == Some(EMPTY_PROTOCOL)
}

/// Makes `providers`, a push that matched the last one but at the positions `differ`, the
/// last notification.
///
/// When the caller still holds `providers` and nobody else holds the last list, the last list
/// is patched at those positions and `providers` let go: releasing either list costs one
/// reference count per `Url`, and this way the directory does not pay it for a list its
/// caller keeps anyway.
fn adopt(current: &mut Providers, providers: Arc<[Url]>, differ: &[usize]) {
    if Arc::ptr_eq(&providers, &current.raw) {
        return;
    }
    if Arc::strong_count(&providers) > 1 {
        if let Some(last) = Arc::get_mut(&mut current.raw) {
            for &i in differ {
                if let (Some(old), Some(new)) = (last.get_mut(i), providers.get(i)) {
                    *old = new.clone();
                }
            }
            return;
        }
    }
    current.raw = providers;
}

/// The current snapshot with the invokers at the positions of `rebuilt` replaced, made from
/// a spare no reader holds any more (rewriting only the positions where it is stale), else
/// copied. The current snapshot becomes a spare.
///
/// Two spares are kept because a router chain's route cache holds the snapshot before the
/// current one (calls that started before a change still route it): with a chain, the one
/// before that is the first nobody holds.
fn patched_snapshot(current: &mut Providers, rebuilt: &[(usize, Arc<dyn Invoker>)]) -> InvokerList {
    let len = current.snapshot.len();
    let free = current
        .spares
        .iter_mut()
        .position(|s| s.list.len() == len && Arc::get_mut(&mut s.list).is_some());
    let mut next = match free {
        Some(at) => {
            let mut spare = current.spares.remove(at);
            if let Some(list) = Arc::get_mut(&mut spare.list) {
                for &i in &spare.stale {
                    if let (Some(slot), Some(now)) = (list.get_mut(i), current.snapshot.get(i)) {
                        *slot = Arc::clone(now);
                    }
                }
            }
            spare.list
        }
        None => current.snapshot.iter().cloned().collect(),
    };
    if let Some(list) = Arc::get_mut(&mut next) {
        for (i, invoker) in rebuilt {
            if let Some(slot) = list.get_mut(*i) {
                *slot = Arc::clone(invoker);
            }
        }
    }
    // The spares left now also differ from the next snapshot where it was rebuilt; one that
    // differs in many places is no cheaper to patch than a copy.
    for spare in &mut current.spares {
        spare.stale.extend(rebuilt.iter().map(|(i, _)| *i));
    }
    current.spares.retain(|s| s.stale.len() <= len / 8 + 16);
    if current.spares.len() >= SPARES {
        current.spares.remove(0);
    }
    current.spares.push(Spare {
        list: InvokerList::clone(&current.snapshot),
        stale: rebuilt.iter().map(|(i, _)| *i).collect(),
    });
    next
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
