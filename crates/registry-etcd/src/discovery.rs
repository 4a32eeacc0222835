//! [`EtcdServiceDiscovery`]: application-level discovery on etcd, as Java's etcd3 discovery
//! stores instances.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use dubbo_core::BoxFuture;
use dubbo_registry::{InstancesListener, RegistryError, ServiceDiscovery, ServiceInstance};
use dubbo_url::Url;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::client::EtcdClient;
use crate::instance_json::{from_json, to_json};
use crate::layout::{app_path, child, instance_key, SERVICES_ROOT};
use crate::registry::{ensure_dir, lease_ttl};
use crate::session::{EntryValue, Session};
use crate::watch::{prefix_end, spawn_watch, Delivery, Snapshot};

/// Application-level [`ServiceDiscovery`] on etcd v3.
///
/// Each instance is the key `/services/{app}/{host}:{port}` holding the instance as Java's
/// `EtcdServiceDiscovery` writes it (Gson's form of `DefaultServiceInstance`), on a lease
/// kept alive like the registry's (`session` milliseconds, 30 s by default).
pub struct EtcdServiceDiscovery {
    url: Url,
    client: EtcdClient,
    session: Arc<Session>,
    watches: Mutex<HashMap<(String, usize), CancellationToken>>,
    cancel: CancellationToken,
    closed: AtomicBool,
    _guard: DropGuard,
}

impl EtcdServiceDiscovery {
    /// A discovery for `url` over `client`. Nothing is sent until the first call.
    pub fn new(url: &Url, client: EtcdClient) -> Result<EtcdServiceDiscovery, RegistryError> {
        let cancel = CancellationToken::new();
        let ttl = lease_ttl(url)?;
        Ok(EtcdServiceDiscovery {
            url: url.clone(),
            session: Session::new(client.clone(), ttl, cancel.child_token()),
            client,
            watches: Mutex::new(HashMap::new()),
            _guard: cancel.clone().drop_guard(),
            cancel,
            closed: AtomicBool::new(false),
        })
    }

    fn check_open(&self) -> Result<(), RegistryError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(RegistryError::Closed {
                address: self.client.address().to_owned(),
            });
        }
        Ok(())
    }

    fn lock_watches(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<(String, usize), CancellationToken>> {
        self.watches.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn listener_id(listener: &Arc<dyn InstancesListener>) -> usize {
    Arc::as_ptr(listener) as *const () as usize
}

/// The instances in `snapshot` directly under `/services/{app}`; bad entries are skipped with a
/// warning naming the key.
fn instances_of(app: &str, snapshot: &Snapshot) -> Vec<ServiceInstance> {
    let parent = app_path(app);
    snapshot
        .iter()
        .filter(|(key, _)| child(&parent, key).is_some())
        .filter_map(|(key, value)| match from_json(key, value) {
            Ok(i) => Some(i),
            Err(e) => {
                tracing::warn!(key = %key, error = %e, "etcd: skipped an instance that does not parse");
                None
            }
        })
        .collect()
}

impl ServiceDiscovery for EtcdServiceDiscovery {
    fn url(&self) -> &Url {
        &self.url
    }

    fn register(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = instance_key(&instance.app, &instance.java_host(), instance.port);
        let value = to_json(instance).into_bytes();
        Box::pin(async move {
            self.check_open()?;
            self.session.put(&key, EntryValue::Bytes(value)).await
        })
    }

    fn unregister(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = instance_key(&instance.app, &instance.java_host(), instance.port);
        Box::pin(async move {
            self.check_open()?;
            self.session.remove(&key).await
        })
    }

    fn instances(&self, app: &str) -> BoxFuture<'_, Result<Vec<ServiceInstance>, RegistryError>> {
        let app = app.to_owned();
        Box::pin(async move {
            self.check_open()?;
            let prefix = format!("{}/", app_path(&app));
            let (kvs, _) = self
                .client
                .range(prefix.as_bytes(), &prefix_end(prefix.as_bytes()))
                .await
                .map_err(|s| self.client.error(&format!("read {prefix}"), &s))?;
            let snapshot: Snapshot = kvs
                .into_iter()
                .filter_map(|kv| String::from_utf8(kv.key).ok().map(|k| (k, kv.value)))
                .collect();
            Ok(instances_of(&app, &snapshot))
        })
    }

    fn applications(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        Box::pin(async move {
            self.check_open()?;
            let prefix = format!("{SERVICES_ROOT}/");
            let (kvs, _) = self
                .client
                .range(prefix.as_bytes(), &prefix_end(prefix.as_bytes()))
                .await
                .map_err(|s| self.client.error(&format!("read {prefix}"), &s))?;
            // `/services/{app}/{host}:{port}`: an application with an instance key under it
            // (its "directory" key `/services/{app}` alone is no instance).
            let mut apps: Vec<String> = kvs
                .iter()
                .filter_map(|kv| std::str::from_utf8(&kv.key).ok())
                .filter_map(|key| {
                    let (app, rest) = key.strip_prefix(&prefix)?.split_once('/')?;
                    (!app.is_empty() && !rest.is_empty() && !rest.contains('/'))
                        .then(|| app.to_owned())
                })
                .collect();
            apps.sort();
            apps.dedup();
            Ok(apps)
        })
    }

    fn watch(
        &self,
        app: &str,
        listener: Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let app = app.to_owned();
        Box::pin(async move {
            self.check_open()?;
            let path = app_path(&app);
            // Java's watcher creates the application "directory" key first.
            ensure_dir(&self.client, &path).await?;
            let key = (app.clone(), listener_id(&listener));
            let token = self.cancel.child_token();
            if let Some(old) = self.lock_watches().insert(key.clone(), token.clone()) {
                old.cancel();
            }
            let watched = app.clone();
            let result = spawn_watch(
                self.client.clone(),
                format!("{path}/"),
                Delivery::PerBatch,
                token.clone(),
                move |snapshot: &Snapshot| {
                    listener.on_instances(&watched, instances_of(&watched, snapshot))
                },
            )
            .await;
            if result.is_err() {
                token.cancel();
                self.lock_watches().remove(&key);
            }
            result
        })
    }

    fn unwatch(
        &self,
        app: &str,
        listener: &Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = (app.to_owned(), listener_id(listener));
        Box::pin(async move {
            if let Some(token) = self.lock_watches().remove(&key) {
                token.cancel();
            }
            Ok(())
        })
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if self.closed.swap(true, Ordering::AcqRel) {
                return;
            }
            for (_, token) in self.lock_watches().drain() {
                token.cancel();
            }
            self.session.close().await;
            self.cancel.cancel();
        })
    }
}
