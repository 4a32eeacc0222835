//! Application-level discovery for one reference: the instances of the provider applications,
//! resolved through their metadata (the metadata report or each instance's MetadataService)
//! into provider URLs.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dubbo_core::{BoxFuture, Invoker, RpcError};
use dubbo_metrics::EventMetrics;
use dubbo_registry::{
    CoalesceConfig, CoalescingInstancesListener, InstanceUrls, InstancesListener, MetadataInfo,
    ServiceInstance,
};
use dubbo_url::Url;
use tokio_util::sync::CancellationToken;

use super::handoff::handoff;
use super::instance_metadata;
use super::registries::AppRegistry;
use super::sources::Sources;
use crate::sync::lock;
use crate::tasks::BackgroundTasks;

/// Refers a MetadataService (or any) URL through the application's protocols.
pub(crate) type ReferFn =
    Arc<dyn Fn(Url) -> BoxFuture<'static, Result<Arc<dyn Invoker>, RpcError>> + Send + Sync>;

/// The application of a consumer URL (`application_name` of its metrics).
pub(super) fn consumer_app(consumer: &Url) -> String {
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

/// Watches the instances of provider applications and turns them into provider URLs.
pub(super) struct AppResolver {
    pub(super) registry: Arc<AppRegistry>,
    /// The registry's position, keeping its instances apart from another registry's.
    pub(super) index: usize,
    pub(super) sources: std::sync::Weak<Sources>,
    pub(super) consumer: Url,
    pub(super) refer: ReferFn,
    pub(super) cache: Arc<MetadataCache>,
    pub(super) report: Option<Arc<dyn dubbo_registry::MetadataReport>>,
    pub(super) discovery: Arc<dyn dubbo_registry::ServiceDiscovery>,
    pub(super) watched: Mutex<HashSet<String>>,
    pub(super) coalesce: CoalesceConfig,
    pub(super) tasks: Arc<BackgroundTasks>,
    pub(super) cancel: CancellationToken,
    pub(super) events: Arc<EventMetrics>,
}

impl AppResolver {
    /// Starts watching `app` once.
    pub(super) fn watch(self: Arc<Self>, app: String) {
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
        let refer = |url: Url| (self.refer)(url);
        let result = instance_metadata::fetch_from_instance(refer, app, instance, revision).await;
        match result {
            Ok(info) => Some(info),
            Err(e) => {
                tracing::warn!(app, instance = %instance.address(), error = %e, "cannot fetch metadata");
                None
            }
        }
    }
}
