//! The consumer side: a registry-fed reference. Interface-level pushes and application-level
//! instances (resolved through their metadata) become one provider list, chosen by the
//! migration step, applied to the reference's [`DynamicDirectory`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dubbo_cluster::directory::DynamicDirectory;
use dubbo_core::{BoxFuture, Directory, Invoker, RpcError};
use dubbo_metrics::EventMetrics;
use dubbo_registry::{
    Category, CoalesceConfig, CoalescingInstancesListener, CoalescingNotifyListener, InstanceUrls,
    InstancesListener, MappingListener, MetadataInfo, Notification, NotifyListener,
    ServiceInstance,
};
use dubbo_url::Url;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::metadata_service;
use super::migration::{choose, provider_list, Mode};
use super::modes::MigrationStep;
use super::registries::AppRegistry;
use crate::application::lock;
use crate::tasks::BackgroundTasks;

/// Refers a MetadataService (or any) URL through the application's protocols.
pub(crate) type ReferFn =
    Arc<dyn Fn(Url) -> BoxFuture<'static, Result<Arc<dyn Invoker>, RpcError>> + Send + Sync>;

/// The application of a consumer URL (`application_name` of its metrics).
fn consumer_app(consumer: &Url) -> String {
    consumer
        .parameter("application")
        .unwrap_or_default()
        .to_owned()
}

/// Metadata already fetched, by application and revision: every instance announcing a
/// revision shares one copy, fetched once.
#[derive(Default)]
pub(crate) struct MetadataCache {
    entries: Mutex<HashMap<(String, String), Arc<MetadataInfo>>>,
}

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

/// Both address lists of one reference and where the chosen one goes.
struct Sources {
    /// The migration settings in force (a migration rule changes them live).
    mode: Mutex<Mode>,
    /// Interface-level addresses by registry, as the registry notified them when it can be
    /// (see [`Sources::lists`]).
    interface: Mutex<BTreeMap<usize, Arc<[Url]>>>,
    /// Application-level addresses by registry and application.
    application: Mutex<BTreeMap<(usize, String), Vec<Url>>>,
    /// Shared with the directory, which keeps the list it was handed: neither copies it.
    chosen: watch::Sender<Option<Arc<[Url]>>>,
    /// The `override://` URLs each registry pushes in the `configurators` category.
    overrides: Mutex<BTreeMap<usize, Vec<Url>>>,
    overrides_out: watch::Sender<Vec<Url>>,
    /// The application of the first provider chosen (where tag rules are read from).
    provider_app: watch::Sender<Option<String>>,
    protocol: Option<String>,
    routers: Arc<dubbo_cluster::router::RouterChain>,
}

impl Sources {
    fn accepts(&self, url: &Url) -> bool {
        let p = url.protocol().unwrap_or_default();
        match &self.protocol {
            Some(wanted) => p == wanted,
            None => matches!(p, "dubbo" | "tri"),
        }
    }

    /// Both lists, flattened: interface-level and application-level.
    ///
    /// A reference fed by one registry passes that registry's list on as it is, so a large
    /// service's change reaches the directory with no copy of its URLs.
    fn lists(&self) -> (Arc<[Url]>, Vec<Url>) {
        let interface: Arc<[Url]> = {
            let lists = lock(&self.interface);
            match (lists.len(), lists.values().next()) {
                (1, Some(only)) => Arc::clone(only),
                _ => lists.values().flat_map(|l| l.iter().cloned()).collect(),
            }
        };
        let application: Vec<Url> = lock(&self.application)
            .values()
            .flatten()
            .cloned()
            .collect();
        (interface, application)
    }

    /// `urls` as this reference takes them from registry `r`: only the protocols it calls,
    /// marked with the registry's zone. The list itself when that changes nothing.
    ///
    /// `previous` is what this returned for the registry's last push: a URL that is the
    /// same `Url` at the same position was accepted then, so a push that changes a few
    /// providers of a large service reads only those.
    fn taken(&self, r: &AppRegistry, urls: Arc<[Url]>, previous: Option<&[Url]>) -> Arc<[Url]> {
        let accepted = match previous {
            Some(previous) if previous.len() == urls.len() => urls
                .iter()
                .zip(previous)
                .all(|(u, p)| Url::ptr_eq(u, p) || self.accepts(u)),
            _ => urls.iter().all(|u| self.accepts(u)),
        };
        if !r.zoned() && accepted {
            return urls;
        }
        urls.iter()
            .filter(|u| self.accepts(u))
            .map(|u| {
                if r.zoned() {
                    r.mark(u.clone())
                } else {
                    u.clone()
                }
            })
            .collect()
    }

    /// Whether `step` would give the reference any provider now.
    fn has_providers(&self, step: MigrationStep, threshold: f64) -> bool {
        let (interface, application) = self.lists();
        !choose(step, threshold, &interface, &application).is_empty()
    }

    fn recompute(&self) {
        let (interface, application) = self.lists();
        let mode = *lock(&self.mode);
        let (mut chosen, split) = provider_list(mode, &interface, &application);
        // Before the list: a call never sees both models without the split that tells them
        // apart.
        if split.is_some() {
            self.routers.set_migration_split(split);
        }
        let app = chosen
            .iter()
            .find_map(|u| u.parameter("application"))
            .map(str::to_owned);
        if app.is_some() && *self.provider_app.borrow() != app {
            self.provider_app.send_replace(app);
        }
        if chosen.is_empty() {
            // Every source pushed (registries say `empty://`, discoveries an empty instance
            // list): the service has no provider left, which clears the directory. A registry
            // that goes away pushes nothing, so the known providers stay.
            if let Ok(empty) = Url::parse("empty://0.0.0.0/") {
                chosen = Arc::from(vec![empty.with_parameter("category", "providers")]);
            }
        }
        self.chosen.send_replace(Some(chosen));
        if split.is_none() {
            self.routers.set_migration_split(None);
        }
    }

    fn set_overrides(&self, i: usize, urls: Vec<Url>) {
        let all: Vec<Url> = {
            let mut overrides = lock(&self.overrides);
            overrides.insert(i, urls);
            overrides.values().flatten().cloned().collect()
        };
        self.overrides_out.send_replace(all);
    }
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
            for r in registered {
                if let Some(conn) = r.connected() {
                    let _ = conn.registry.unregister(&consumer).await;
                }
            }
        });
    }
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
            let consumer_url = super::without_credentials(&ctx.consumer)
                .with_parameter("category", "consumers")
                .with_parameter("check", "false");
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

/// Watches the instances of provider applications and turns them into provider URLs.
struct AppResolver {
    registry: Arc<AppRegistry>,
    /// The registry's position, keeping its instances apart from another registry's.
    index: usize,
    sources: std::sync::Weak<Sources>,
    consumer: Url,
    refer: ReferFn,
    cache: Arc<MetadataCache>,
    report: Option<Arc<dyn dubbo_registry::MetadataReport>>,
    discovery: Arc<dyn dubbo_registry::ServiceDiscovery>,
    watched: Mutex<HashSet<String>>,
    coalesce: CoalesceConfig,
    tasks: Arc<BackgroundTasks>,
    cancel: CancellationToken,
    events: Arc<EventMetrics>,
}

impl AppResolver {
    /// Starts watching `app` once.
    fn watch(self: Arc<Self>, app: String) {
        if app.trim().is_empty() || !lock(&self.watched).insert(app.clone()) {
            return;
        }
        let (latest, mut taker) = handoff();
        let listener: Arc<dyn InstancesListener> =
            Arc::new(move |_: &str, instances: Vec<ServiceInstance>| latest.put(instances));
        let listener: Arc<dyn InstancesListener> =
            Arc::new(CoalescingInstancesListener::new(listener, self.coalesce));
        let me = self.clone();
        let name = format!("instances of {app}");
        self.tasks.spawn(name, move |stop| async move {
            // Shares URL parameters between the instances of a revision of this application.
            let mut builder = InstanceUrls::new();
            // A discovery that is down now is watched once it is back.
            let mut backoff = std::time::Duration::from_millis(500);
            let consumer_app = consumer_app(&me.consumer);
            loop {
                let started = Instant::now();
                let result = me.discovery.watch(&app, listener.clone()).await;
                me.events.subscribed(&consumer_app, result.is_ok(), started.elapsed());
                let Err(e) = result else { break };
                tracing::warn!(app = %app, error = %e, "cannot watch instances; retrying");
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = me.cancel.cancelled() => return,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(std::time::Duration::from_secs(30));
            }
            loop {
                let instances = tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = me.cancel.cancelled() => break,
                    next = taker.next() => match next {
                        Some(instances) => instances,
                        None => break,
                    },
                };
                let urls = me.resolve(&app, &instances, &mut builder).await;
                let Some(sources) = me.sources.upgrade() else { break };
                let urls: Vec<Url> = urls
                    .into_iter()
                    .filter(|u| sources.accepts(u))
                    .map(|u| if me.registry.zoned() { me.registry.mark(u) } else { u })
                    .collect();
                tracing::debug!(app = %app, instances = instances.len(), urls = urls.len(), "instances resolved");
                lock(&sources.application).insert((me.index, app.clone()), urls);
                sources.recompute();
            }
            let _ = me.discovery.unwatch(&app, &listener).await;
        });
    }

    /// The provider URLs of the consumer's service among `instances`.
    async fn resolve(
        &self,
        app: &str,
        instances: &[ServiceInstance],
        builder: &mut InstanceUrls,
    ) -> Vec<Url> {
        let mut resolved = Vec::with_capacity(instances.len());
        for instance in instances {
            if let Some(info) = self.metadata(app, instance).await {
                resolved.push((instance, info));
            }
        }
        // Instances of one revision share their URLs' parameters (one map per revision and
        // service), which is most of the memory of a large application's provider list.
        let mut urls = Vec::with_capacity(resolved.len());
        for (instance, info) in &resolved {
            builder.push_urls(instance, info, &self.consumer, &mut urls);
        }
        builder.retain_revisions(resolved.iter().map(|(i, _)| i.revision()));
        urls
    }

    /// The metadata `instance` announces, from the cache, the metadata report or the
    /// instance's MetadataService.
    async fn metadata(&self, app: &str, instance: &ServiceInstance) -> Option<Arc<MetadataInfo>> {
        let revision = instance.revision().to_owned();
        if revision == dubbo_registry::EMPTY_REVISION {
            return None;
        }
        let key = (app.to_owned(), revision.clone());
        if let Some(found) = lock(&self.cache.entries).get(&key) {
            return Some(found.clone());
        }
        let fetched = if instance.is_remote_storage() {
            match &self.report {
                Some(report) => report.app_metadata(app, &revision).await.ok().flatten(),
                None => None,
            }
        } else {
            self.fetch_from_instance(app, instance, &revision).await
        };
        self.events
            .metadata_subscribed(&consumer_app(&self.consumer), fetched.is_some());
        let info = Arc::new(fetched?);
        lock(&self.cache.entries).insert(key, info.clone());
        Some(info)
    }

    async fn fetch_from_instance(
        &self,
        app: &str,
        instance: &ServiceInstance,
        revision: &str,
    ) -> Option<MetadataInfo> {
        let params = instance.metadata_service_params();
        let protocol = params
            .get("protocol")
            .cloned()
            .unwrap_or_else(|| "dubbo".to_owned());
        let port = params
            .get("port")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| instance.port_for(&protocol));
        let host = if instance.host.contains(':') {
            format!("[{}]", instance.host)
        } else {
            instance.host.clone()
        };
        let text = format!(
            "{protocol}://{host}:{port}/{iface}?interface={iface}&group={app}&version={v}&side=consumer&check=false&timeout=5000&dubbo=2.0.2",
            iface = metadata_service::INTERFACE,
            v = metadata_service::VERSION,
        );
        let url = match Url::parse(&text) {
            Ok(u) => u,
            Err(e) => {
                tracing::warn!(app, error = %e, "bad MetadataService address {text}");
                return None;
            }
        };
        let invoker = match (self.refer)(url).await {
            Ok(i) => i,
            Err(e) => {
                tracing::warn!(app, instance = %instance.address(), error = %e, "cannot reach the MetadataService");
                return None;
            }
        };
        let result = metadata_service::fetch(&*invoker, app, revision).await;
        invoker.destroy();
        match result {
            Ok(info) => Some(info),
            Err(e) => {
                tracing::warn!(app, instance = %instance.address(), error = %e, "cannot fetch metadata");
                None
            }
        }
    }
}

/// Hands the discovery's latest instance list of one application to the task that resolves
/// it, keeping nothing once it is taken: the consumer keeps the resolved URLs, not the
/// instances (a large deployment's lists are hundreds of thousands). A list replaced before
/// it was taken is never resolved, as with a channel of lists.
fn handoff() -> (LatestInstances, InstancesTaker) {
    let slot: Arc<Mutex<Option<Vec<ServiceInstance>>>> = Arc::default();
    let (signal, arrived) = watch::channel(());
    (
        LatestInstances {
            slot: slot.clone(),
            signal,
        },
        InstancesTaker { slot, arrived },
    )
}

/// The discovery's side of [`handoff`].
struct LatestInstances {
    slot: Arc<Mutex<Option<Vec<ServiceInstance>>>>,
    signal: watch::Sender<()>,
}

impl LatestInstances {
    /// Replaces the list waiting to be taken.
    fn put(&self, instances: Vec<ServiceInstance>) {
        *lock(&self.slot) = Some(instances);
        self.signal.send_replace(());
    }
}

/// The resolving task's side of [`handoff`].
struct InstancesTaker {
    slot: Arc<Mutex<Option<Vec<ServiceInstance>>>>,
    arrived: watch::Receiver<()>,
}

impl InstancesTaker {
    /// The next list, taken out; `None` once the discovery's side is gone.
    async fn next(&mut self) -> Option<Vec<ServiceInstance>> {
        loop {
            self.arrived.changed().await.ok()?;
            // Marked seen before taking: a list put after this is signalled again.
            self.arrived.borrow_and_update();
            if let Some(instances) = lock(&self.slot).take() {
                return Some(instances);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_handoff_gives_the_latest_list_once_and_keeps_nothing() {
        let (latest, mut taker) = handoff();
        let list = |port| vec![ServiceInstance::new("p", "127.0.0.1", port)];
        latest.put(list(1));
        latest.put(list(2));
        assert_eq!(taker.next().await, Some(list(2)));
        assert!(lock(&taker.slot).is_none(), "taken out, not copied");
        // Nothing new: no list until one is put.
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(50), taker.next());
        assert!(waiting.await.is_err());
        latest.put(list(3));
        assert_eq!(taker.next().await, Some(list(3)));
        latest.put(list(4));
        drop(latest);
        // A list put before the discovery's side went away is still delivered.
        assert_eq!(taker.next().await, Some(list(4)));
        assert_eq!(taker.next().await, None);
    }
}
