//! The consumer side: a registry-fed reference. Interface-level pushes and application-level
//! instances (resolved through their metadata) become one provider list, chosen by the
//! migration step, applied to the reference's [`DynamicDirectory`].

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dubbo_cluster::directory::DynamicDirectory;
use dubbo_core::{Directory, RpcError};
use dubbo_registry::{
    Category, CoalesceConfig, CoalescingNotifyListener, MappingListener, Notification,
    NotifyListener,
};
use dubbo_url::Url;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::app_resolver::{consumer_app, AppResolver, MetadataCache, ReferFn};
use super::migration::Mode;
use super::modes::MigrationStep;
use super::registries::AppRegistry;
use super::sources::Sources;
use crate::sync::lock;
use crate::tasks::BackgroundTasks;

/// What a subscription needs from the application.
pub(crate) struct SubscribeContext {
    pub(crate) consumer: Url,
    pub(crate) registries: Vec<Arc<AppRegistry>>,
    pub(crate) framework: Arc<crate::Framework>,
    pub(crate) mode: Mode,
    /// The reference's routers, where a split between the two models is installed.
    pub(crate) routers: Arc<dubbo_cluster::router::RouterChain>,
    pub(crate) provided_by: Vec<String>,
    pub(crate) refer: ReferFn,
    pub(crate) cache: Arc<MetadataCache>,
    pub(crate) tasks: Arc<BackgroundTasks>,
}

/// One interface-level subscription: the registry and the listener it pushes to.
type InterfaceSubscription = (Arc<AppRegistry>, Arc<dyn NotifyListener>);

/// A live subscription; [`close`](Self::close) ends it.
pub(crate) struct Subscription {
    cancel: CancellationToken,
    consumer: Url,
    /// Interface-level subscriptions made, to end at close.
    interface: Mutex<Vec<InterfaceSubscription>>,
    /// Registries the consumer URL was registered in.
    registered: Mutex<Vec<Arc<AppRegistry>>>,
    /// The subscription's working state, for live migration.
    shared: Mutex<std::sync::Weak<Shared>>,
    /// The `override://` URLs the registries push for the service.
    pub(crate) overrides: watch::Receiver<Vec<Url>>,
    /// The application of the providers (tag rules are that application's).
    pub(crate) provider_app: watch::Receiver<Option<String>>,
}

/// How long a migration waits for the new model's first providers.
const MIGRATION_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

impl Subscription {
    /// Moves the reference to another migration step (Java's `MigrationInvoker` on a rule
    /// change): the model the new step reads is subscribed if it was not, and the switch is
    /// made once it has providers, so no call finds an empty list. A `delay` lets that
    /// model's addresses arrive for that long first (Java's rule `delay`). If it finds none
    /// within [`MIGRATION_WAIT`] more, the step stays unless `force` says to switch anyway.
    /// Returns the step in force afterwards.
    pub(crate) async fn migrate(
        &self,
        mode: Mode,
        force: bool,
        delay: std::time::Duration,
    ) -> MigrationStep {
        let Mode {
            step, threshold, ..
        } = mode;
        let Some(shared) = lock(&self.shared).upgrade() else {
            return step;
        };
        let sources = &shared.sources;
        let before = *lock(&sources.mode);
        if before == mode {
            return step;
        }
        if before.step == step && before.threshold == threshold {
            // Only the proportion changed: the addresses are there already.
            *lock(&sources.mode) = mode;
            sources.recompute();
            return step;
        }
        let connected = lock(&shared.connected).clone();
        for (i, r, conn) in connected {
            shared.clone().subscribe_models(i, r, conn, step).await;
        }
        if !delay.is_zero() {
            tokio::select! {
                _ = self.cancel.cancelled() => return before.step,
                _ = tokio::time::sleep(delay) => {}
            }
        }
        let deadline = tokio::time::Instant::now() + MIGRATION_WAIT;
        while !sources.has_providers(step, threshold) && tokio::time::Instant::now() < deadline {
            tokio::select! {
                _ = self.cancel.cancelled() => return before.step,
                _ = tokio::time::sleep(std::time::Duration::from_millis(20)) => {}
            }
        }
        if !sources.has_providers(step, threshold) && !force {
            tracing::warn!(
                consumer = %self.consumer, from = ?before.step, to = ?step,
                "migration rule not applied: the new step finds no provider (set force: true to switch anyway)"
            );
            return before.step;
        }
        *lock(&sources.mode) = mode;
        sources.recompute();
        tracing::info!(consumer = %self.consumer, from = ?before.step, to = ?step, "migrated");
        step
    }

    /// Cancelled when the subscription is closed.
    pub(crate) fn closed(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Unsubscribes and unregisters the consumer URL, in the background.
    pub(crate) fn close(&self) {
        self.cancel.cancel();
        let interface = std::mem::take(&mut *lock(&self.interface));
        let registered = std::mem::take(&mut *lock(&self.registered));
        let consumer = self.consumer.clone();
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        tokio::spawn(async move {
            for (r, listener) in interface {
                if let Some(conn) = r.connected() {
                    let _ = conn.registry.unsubscribe(&consumer, &listener).await;
                }
            }
            // The URL as it was registered (in `consumers`), or the registry looks for it in
            // another category and the consumer's node stays.
            let registered_url = registered_consumer(&consumer);
            for r in registered {
                if let Some(conn) = r.connected() {
                    if let Err(e) = conn.registry.unregister(&registered_url).await {
                        tracing::warn!(registry = %r.url, error = %e, "cannot unregister the consumer");
                    }
                }
            }
        });
    }
}

/// The consumer URL as registries list it: in the `consumers` category, without credentials
/// (docs/security-auth.md).
fn registered_consumer(consumer: &Url) -> Url {
    super::without_credentials(consumer)
        .with_parameter("category", "consumers")
        .with_parameter("check", "false")
}

/// What every registry's part of one subscription shares.
struct Shared {
    ctx: SubscribeContext,
    sources: Arc<Sources>,
    subscription: Arc<Subscription>,
    /// Registries connected so far, for a migration to subscribe another model in.
    connected: Mutex<Vec<(usize, Arc<AppRegistry>, super::registries::Connected)>>,
    /// The models subscribed so far, by registry: (interface level, application level).
    models: Mutex<BTreeMap<usize, (bool, bool)>>,
}

/// Subscribes `directory` to the providers of `ctx.consumer` in every registry.
///
/// A registry that cannot be reached now is not fatal: its last-known providers come from the
/// cache file, and it is subscribed in the background once it can be.
pub(crate) async fn subscribe(
    ctx: SubscribeContext,
    directory: Arc<DynamicDirectory>,
) -> Result<Arc<Subscription>, RpcError> {
    let (tx, mut rx) = watch::channel::<Option<Arc<[Url]>>>(None);
    let (overrides_out, overrides) = watch::channel(Vec::new());
    let (provider_app_out, provider_app) = watch::channel(None);
    let sources = Arc::new(Sources {
        mode: Mutex::new(ctx.mode),
        interface: Mutex::new(BTreeMap::new()),
        application: Mutex::new(BTreeMap::new()),
        chosen: tx,
        overrides: Mutex::new(BTreeMap::new()),
        overrides_out,
        provider_app: provider_app_out,
        protocol: ctx.consumer.parameter("protocol").map(str::to_owned),
        routers: ctx.routers.clone(),
    });
    let cancel = CancellationToken::new();
    // Applies the chosen list, latest first: a burst of changes is applied once.
    {
        let directory = directory.clone();
        let cancel = cancel.clone();
        let name = format!(
            "provider list of {}",
            ctx.consumer.service_interface().unwrap_or("")
        );
        let events = ctx.framework.event_metrics().clone();
        let app = consumer_app(&ctx.consumer);
        let service = ctx.consumer.service_key().unwrap_or_default();
        ctx.tasks.spawn(name, move |stop| async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = cancel.cancelled() => break,
                    changed = rx.changed() => if changed.is_err() { break },
                }
                let list = rx.borrow_and_update().clone();
                if let Some(list) = list {
                    let (urls, started) = (list.len(), Instant::now());
                    let outcome = directory.notify(list).await;
                    events.notified(&app, &service, urls, started.elapsed());
                    tracing::debug!(?outcome, "provider list applied");
                }
            }
        });
    }
    let subscription = Arc::new(Subscription {
        cancel: cancel.clone(),
        consumer: ctx.consumer.clone(),
        interface: Mutex::new(Vec::new()),
        registered: Mutex::new(Vec::new()),
        shared: Mutex::new(std::sync::Weak::new()),
        overrides,
        provider_app,
    });
    let registries = ctx.registries.clone();
    let tasks = ctx.tasks.clone();
    let shared = Arc::new(Shared {
        ctx,
        sources: sources.clone(),
        subscription: subscription.clone(),
        connected: Mutex::new(Vec::new()),
        models: Mutex::new(BTreeMap::new()),
    });
    *lock(&subscription.shared) = Arc::downgrade(&shared);
    for (i, r) in registries.iter().enumerate() {
        match r.connect(shared.ctx.framework.extensions()).await {
            Ok(conn) => shared.clone().subscribe_registry(i, r.clone(), conn).await,
            Err(e) => {
                tracing::warn!(registry = %r.url, error = %e, "registry unreachable; serving the cached providers and subscribing once it is back");
                shared.feed_from_cache(i, r);
                let shared = shared.clone();
                let r = r.clone();
                let cancel = cancel.clone();
                tasks.spawn(format!("subscribe to {}", r.url), move |stop| async move {
                    let mut backoff = std::time::Duration::from_secs(1);
                    loop {
                        tokio::select! {
                            _ = stop.cancelled() => return,
                            _ = cancel.cancelled() => return,
                            _ = tokio::time::sleep(backoff) => {}
                        }
                        if let Ok(conn) = r.connect(shared.ctx.framework.extensions()).await {
                            shared.subscribe_registry(i, r, conn).await;
                            return;
                        }
                        backoff = (backoff * 2).min(std::time::Duration::from_secs(30));
                    }
                });
            }
        }
    }
    // Keep the lists alive for as long as the subscription is.
    let keep = (sources, shared);
    tasks.spawn("provider sources", move |stop| async move {
        tokio::select! {
            _ = stop.cancelled() => {}
            _ = cancel.cancelled() => {}
        }
        drop(keep);
    });
    let _ = directory.all();
    Ok(subscription)
}

impl Shared {
    /// The interface-level providers the cache file holds for the consumer's service, as if
    /// registry `i` had pushed them.
    fn feed_from_cache(&self, i: usize, r: &Arc<AppRegistry>) {
        if !lock(&self.sources.mode).step.uses_interface() {
            return;
        }
        let Some(path) = dubbo_registry::RegistryCacheFile::path_for(&r.url) else {
            return;
        };
        let cache = dubbo_registry::RegistryCacheFile::open(path);
        let Some(urls) = self.ctx.consumer.service_key().and_then(|k| cache.get(&k)) else {
            return;
        };
        cache.close();
        let urls: Arc<[Url]> = urls
            .into_iter()
            .filter(|u| Category::of(u) == Category::Providers)
            .collect();
        let urls = self.sources.taken(r, urls, None);
        if urls.is_empty() {
            return;
        }
        tracing::info!(registry = %r.url, providers = urls.len(), "providers from the cache file");
        lock(&self.sources.interface).insert(i, urls);
        self.sources.recompute();
    }

    /// Subscribes to registry `i` (connected as `conn`) in the models the migration step in
    /// force uses.
    async fn subscribe_registry(
        self: Arc<Self>,
        i: usize,
        r: Arc<AppRegistry>,
        conn: super::registries::Connected,
    ) {
        lock(&self.connected).push((i, r.clone(), conn.clone()));
        // What Java's references leave in the metadata report, whatever the step (Java's
        // ReferenceConfig publishes once the invoker is made).
        if let Some(report) = &conn.report {
            let consumer = super::without_credentials(&self.ctx.consumer);
            super::definitions::publish_consumer(report, &consumer).await;
        }
        let step = lock(&self.sources.mode).step;
        self.subscribe_models(i, r, conn, step).await;
    }

    /// Subscribes to registry `i` in the models `step` uses that are not subscribed yet.
    async fn subscribe_models(
        self: Arc<Self>,
        i: usize,
        r: Arc<AppRegistry>,
        conn: super::registries::Connected,
        step: MigrationStep,
    ) {
        let (interface, application) = {
            let mut models = lock(&self.models);
            let done = models.entry(i).or_insert((false, false));
            let todo = (
                step.uses_interface() && !done.0,
                step.uses_application() && !done.1,
            );
            done.0 |= todo.0;
            done.1 |= todo.1;
            todo
        };
        let ctx = &self.ctx;
        if interface {
            let weak = Arc::downgrade(&self.sources);
            let registry = r.clone();
            let listener: Arc<dyn NotifyListener> = Arc::new(move |n: Notification| {
                let Some(sources) = weak.upgrade() else {
                    return;
                };
                if n.category == Category::Configurators {
                    let urls = n
                        .urls
                        .iter()
                        .filter(|u| u.protocol() == Some("override"))
                        .cloned()
                        .collect();
                    sources.set_overrides(i, urls);
                    return;
                }
                if n.category != Category::Providers {
                    return;
                }
                let previous = lock(&sources.interface).get(&i).cloned();
                let urls = sources.taken(&registry, n.urls, previous.as_deref());
                lock(&sources.interface).insert(i, urls);
                sources.recompute();
            });
            let listener: Arc<dyn NotifyListener> = Arc::new(CoalescingNotifyListener::new(
                listener,
                CoalesceConfig::from_url(&r.url),
            ));
            // Registries see the consumer URL without its credentials (docs/security-auth.md).
            let subscribe_url = super::without_credentials(&ctx.consumer)
                .with_parameter("category", "providers,configurators,routers");
            let started = Instant::now();
            let result = conn
                .registry
                .subscribe(&subscribe_url, listener.clone())
                .await;
            ctx.framework.event_metrics().service_subscribed(
                &consumer_app(&ctx.consumer),
                &ctx.consumer.service_key().unwrap_or_default(),
                &r.id,
                result.is_ok(),
                started.elapsed(),
            );
            if let Err(e) = result {
                tracing::warn!(registry = %r.url, error = %e, "cannot subscribe");
            } else {
                lock(&self.subscription.interface).push((r.clone(), listener));
            }
            let consumer_url = registered_consumer(&ctx.consumer);
            if r.register && conn.registry.register(&consumer_url).await.is_ok() {
                lock(&self.subscription.registered).push(r.clone());
            }
        }
        if application {
            let resolver = Arc::new(AppResolver {
                registry: r.clone(),
                index: i,
                sources: Arc::downgrade(&self.sources),
                consumer: ctx.consumer.clone(),
                refer: ctx.refer.clone(),
                cache: ctx.cache.clone(),
                report: conn.report.clone(),
                watched: Mutex::new(HashSet::new()),
                discovery: conn.discovery.clone(),
                coalesce: CoalesceConfig::from_url(&r.url),
                tasks: ctx.tasks.clone(),
                cancel: self.subscription.cancel.clone(),
                events: ctx.framework.event_metrics().clone(),
            });
            let mut apps = ctx.provided_by.clone();
            if apps.is_empty() {
                if let (Some(report), Some(iface)) =
                    (&conn.report, ctx.consumer.service_interface())
                {
                    match report.mapping(iface).await {
                        Ok(found) => apps = found,
                        Err(e) => tracing::warn!(registry = %r.url, error = %e, "no mapping"),
                    }
                    let weak = Arc::downgrade(&resolver);
                    let on_mapping: Arc<dyn MappingListener> =
                        Arc::new(move |_: &str, apps: Vec<String>| {
                            if let Some(resolver) = weak.upgrade() {
                                for app in apps {
                                    resolver.clone().watch(app);
                                }
                            }
                        });
                    if let Err(e) = report.watch_mapping(iface, on_mapping).await {
                        tracing::warn!(registry = %r.url, error = %e, "cannot watch the mapping");
                    }
                }
            }
            for app in apps {
                resolver.clone().watch(app);
            }
            // The resolver lives as long as the subscription's tasks hold it.
            let cancel = self.subscription.cancel.clone();
            ctx.tasks
                .spawn("application-level discovery", move |stop| async move {
                    tokio::select! {
                        _ = stop.cancelled() => {}
                        _ = cancel.cancelled() => {}
                    }
                    drop(resolver);
                });
        }
    }
}
