//! The consumer side: a registry-fed reference. Interface-level pushes and application-level
//! instances (resolved through their metadata) become one provider list, chosen by the
//! migration step, applied to the reference's [`DynamicDirectory`].

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};

use dubbo_cluster::directory::DynamicDirectory;
use dubbo_core::{BoxFuture, Directory, Invoker, RpcError};
use dubbo_registry::{
    Category, CoalesceConfig, CoalescingInstancesListener, CoalescingNotifyListener, InstanceUrls,
    InstancesListener, MappingListener, MetadataInfo, Notification, NotifyListener,
    ServiceInstance,
};
use dubbo_url::Url;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::metadata_service;
use super::migration::choose;
use super::modes::MigrationStep;
use super::registries::AppRegistry;
use crate::application::lock;
use crate::tasks::BackgroundTasks;

/// Refers a MetadataService (or any) URL through the application's protocols.
pub(crate) type ReferFn =
    Arc<dyn Fn(Url) -> BoxFuture<'static, Result<Arc<dyn Invoker>, RpcError>> + Send + Sync>;

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
    pub(crate) step: MigrationStep,
    pub(crate) threshold: f64,
    pub(crate) provided_by: Vec<String>,
    pub(crate) refer: ReferFn,
    pub(crate) cache: Arc<MetadataCache>,
    pub(crate) tasks: Arc<BackgroundTasks>,
}

/// Both address lists of one reference and where the chosen one goes.
struct Sources {
    step: MigrationStep,
    threshold: f64,
    interface: Mutex<BTreeMap<usize, Vec<Url>>>,
    application: Mutex<BTreeMap<String, Vec<Url>>>,
    chosen: watch::Sender<Option<Vec<Url>>>,
    protocol: Option<String>,
}

impl Sources {
    fn accepts(&self, url: &Url) -> bool {
        let p = url.protocol().unwrap_or_default();
        match &self.protocol {
            Some(wanted) => p == wanted,
            None => matches!(p, "dubbo" | "tri"),
        }
    }

    fn recompute(&self) {
        let interface: Vec<Url> = lock(&self.interface).values().flatten().cloned().collect();
        let application: Vec<Url> = lock(&self.application)
            .values()
            .flatten()
            .cloned()
            .collect();
        let chosen = choose(self.step, self.threshold, &interface, &application).to_vec();
        self.chosen.send_replace(Some(chosen));
    }
}

/// A live subscription; [`close`](Self::close) ends it.
pub(crate) struct Subscription {
    cancel: CancellationToken,
    interface: Vec<(Arc<AppRegistry>, Arc<dyn NotifyListener>)>,
    consumer: Url,
    registered: Vec<Arc<AppRegistry>>,
}

impl Subscription {
    /// Unsubscribes and unregisters the consumer URL, in the background.
    pub(crate) fn close(&self) {
        self.cancel.cancel();
        let interface = self.interface.clone();
        let registered = self.registered.clone();
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

/// Subscribes `directory` to the providers of `ctx.consumer` in every registry.
pub(crate) async fn subscribe(
    ctx: SubscribeContext,
    directory: Arc<DynamicDirectory>,
) -> Result<Arc<Subscription>, RpcError> {
    let (tx, mut rx) = watch::channel::<Option<Vec<Url>>>(None);
    let sources = Arc::new(Sources {
        step: ctx.step,
        threshold: ctx.threshold,
        interface: Mutex::new(BTreeMap::new()),
        application: Mutex::new(BTreeMap::new()),
        chosen: tx,
        protocol: ctx.consumer.parameter("protocol").map(str::to_owned),
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
        ctx.tasks.spawn(name, move |stop| async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = cancel.cancelled() => break,
                    changed = rx.changed() => if changed.is_err() { break },
                }
                let list = rx.borrow_and_update().clone();
                if let Some(list) = list {
                    let outcome = directory.notify(list).await;
                    tracing::debug!(?outcome, "provider list applied");
                }
            }
        });
    }

    let mut subscription = Subscription {
        cancel: cancel.clone(),
        interface: Vec::new(),
        consumer: ctx.consumer.clone(),
        registered: Vec::new(),
    };
    let mut last_error = None;
    for (i, r) in ctx.registries.iter().enumerate() {
        let conn = match r.connect(ctx.framework.extensions()).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(registry = %r.url, error = %e, "cannot subscribe");
                last_error = Some(e);
                continue;
            }
        };
        if ctx.step.uses_interface() {
            let weak = Arc::downgrade(&sources);
            let listener: Arc<dyn NotifyListener> = Arc::new(move |n: Notification| {
                let Some(sources) = weak.upgrade() else {
                    return;
                };
                if n.category != Category::Providers {
                    return;
                }
                let urls: Vec<Url> = n.urls.into_iter().filter(|u| sources.accepts(u)).collect();
                lock(&sources.interface).insert(i, urls);
                sources.recompute();
            });
            let listener: Arc<dyn NotifyListener> = Arc::new(CoalescingNotifyListener::new(
                listener,
                CoalesceConfig::from_url(&r.url),
            ));
            let subscribe_url = ctx
                .consumer
                .with_parameter("category", "providers,configurators,routers");
            if let Err(e) = conn
                .registry
                .subscribe(&subscribe_url, listener.clone())
                .await
            {
                tracing::warn!(registry = %r.url, error = %e, "cannot subscribe");
                last_error = Some(e);
            } else {
                subscription.interface.push((r.clone(), listener));
            }
            let consumer_url = ctx
                .consumer
                .with_parameter("category", "consumers")
                .with_parameter("check", "false");
            if r.register && conn.registry.register(&consumer_url).await.is_ok() {
                subscription.registered.push(r.clone());
            }
        }
        if ctx.step.uses_application() {
            let resolver = Arc::new(AppResolver {
                sources: Arc::downgrade(&sources),
                consumer: ctx.consumer.clone(),
                refer: ctx.refer.clone(),
                cache: ctx.cache.clone(),
                report: conn.report.clone(),
                watched: Mutex::new(HashSet::new()),
                discovery: conn.discovery.clone(),
                coalesce: CoalesceConfig::from_url(&r.url),
                tasks: ctx.tasks.clone(),
                cancel: cancel.clone(),
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
            ctx.tasks.spawn("application-level discovery", {
                let cancel = cancel.clone();
                move |stop| async move {
                    tokio::select! {
                        _ = stop.cancelled() => {}
                        _ = cancel.cancelled() => {}
                    }
                    drop(resolver);
                }
            });
        }
    }
    if subscription.interface.is_empty() && !ctx.step.uses_application() {
        if let Some(e) = last_error {
            return Err(RpcError::framework(
                dubbo_core::ErrorCode::NoProvider,
                format!("no registry could be subscribed: {e}"),
            ));
        }
    }
    // Keep the lists alive for as long as the subscription is.
    let keep = sources.clone();
    ctx.tasks.spawn("provider sources", move |stop| async move {
        tokio::select! {
            _ = stop.cancelled() => {}
            _ = cancel.cancelled() => {}
        }
        drop(keep);
    });
    let _ = directory.all();
    Ok(Arc::new(subscription))
}

/// Watches the instances of provider applications and turns them into provider URLs.
struct AppResolver {
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
}

impl AppResolver {
    /// Starts watching `app` once.
    fn watch(self: Arc<Self>, app: String) {
        if app.trim().is_empty() || !lock(&self.watched).insert(app.clone()) {
            return;
        }
        let (tx, mut rx) = watch::channel::<Option<Vec<ServiceInstance>>>(None);
        let listener: Arc<dyn InstancesListener> =
            Arc::new(move |_: &str, instances: Vec<ServiceInstance>| {
                tx.send_replace(Some(instances));
            });
        let listener: Arc<dyn InstancesListener> =
            Arc::new(CoalescingInstancesListener::new(listener, self.coalesce));
        let me = self.clone();
        let name = format!("instances of {app}");
        self.tasks.spawn(name, move |stop| async move {
            // Shares URL parameters between the instances of a revision of this application.
            let mut builder = InstanceUrls::new();
            // A discovery that is down now is watched once it is back.
            let mut backoff = std::time::Duration::from_millis(500);
            while let Err(e) = me.discovery.watch(&app, listener.clone()).await {
                tracing::warn!(app = %app, error = %e, "cannot watch instances; retrying");
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = me.cancel.cancelled() => return,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(std::time::Duration::from_secs(30));
            }
            loop {
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = me.cancel.cancelled() => break,
                    changed = rx.changed() => if changed.is_err() { break },
                }
                let instances = rx.borrow_and_update().clone().unwrap_or_default();
                let urls = me.resolve(&app, &instances, &mut builder).await;
                let Some(sources) = me.sources.upgrade() else { break };
                let urls: Vec<Url> = urls.into_iter().filter(|u| sources.accepts(u)).collect();
                tracing::debug!(app = %app, instances = instances.len(), urls = urls.len(), "instances resolved");
                lock(&sources.application).insert(app.clone(), urls);
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
            urls.extend(builder.urls(instance, info, &self.consumer));
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
