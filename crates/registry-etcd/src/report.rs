//! [`EtcdMetadataReport`]: application metadata and the interface → application mapping on
//! etcd.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dubbo_core::BoxFuture;
use dubbo_registry::{
    DefinitionEntry, DefinitionId, DefinitionListing, MappingListener, MetadataInfo,
    MetadataReport, RegistryError,
};
use dubbo_url::Url;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::client::{EtcdClient, PutGuard};
use crate::layout::{child, definition_dir_key, definition_key, mapping_key, metadata_key, root};
use crate::watch::{spawn_watch, Delivery, Snapshot};

/// How many times a mapping update re-reads and retries after losing a compare-and-set.
const MAPPING_ATTEMPTS: u32 = 20;

/// A [`MetadataReport`] on etcd v3.
///
/// Java's etcd report keeps neither application metadata nor the mapping, so the keys are
/// those of Java's ZooKeeper report under the same root (`/{group}`, `/dubbo` by default):
/// `{root}/metadata/{app}/{revision}` holds the metadata JSON and `{root}/mapping/{interface}`
/// the comma-separated application names, updated with a transaction comparing the key's
/// `mod_revision` (or its absence). All are persistent.
pub struct EtcdMetadataReport {
    url: Url,
    root: String,
    client: EtcdClient,
    watches: Mutex<HashMap<(String, usize), CancellationToken>>,
    cancel: CancellationToken,
    _guard: DropGuard,
}

impl EtcdMetadataReport {
    /// A report for `url` over `client`. Nothing is sent until the first call.
    pub fn new(url: &Url, client: EtcdClient) -> EtcdMetadataReport {
        let cancel = CancellationToken::new();
        EtcdMetadataReport {
            url: url.clone(),
            root: root(url),
            client,
            watches: Mutex::new(HashMap::new()),
            _guard: cancel.clone().drop_guard(),
            cancel,
        }
    }

    fn lock_watches(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<(String, usize), CancellationToken>> {
        self.watches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One compare-and-set attempt; `Ok(true)` when `app` is in the mapping afterwards.
    async fn try_add(&self, key: &str, app: &str) -> Result<bool, RegistryError> {
        let current = self
            .client
            .get(key)
            .await
            .map_err(|s| self.client.error(&format!("read {key}"), &s))?;
        let (mut apps, guard) = match current {
            Some(kv) => (
                split_apps(&kv.value),
                PutGuard::ModRevision(kv.mod_revision),
            ),
            None => (Vec::new(), PutGuard::Absent),
        };
        if apps.iter().any(|a| a == app) {
            return Ok(true);
        }
        apps.push(app.to_owned());
        self.client
            .put_if(key, apps.join(",").into_bytes(), guard)
            .await
            .map_err(|s| self.client.error(&format!("update {key}"), &s))
    }
}

/// The application names of a mapping value: comma-separated, blanks dropped.
fn split_apps(value: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(value)
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect()
}

impl MetadataReport for EtcdMetadataReport {
    fn url(&self) -> &Url {
        &self.url
    }

    fn publish_app_metadata(
        &self,
        info: &MetadataInfo,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = metadata_key(&self.root, &info.app, &info.revision);
        let value = info.to_json().into_bytes();
        Box::pin(async move {
            self.client
                .put(&key, value, 0)
                .await
                .map_err(|s| self.client.error(&format!("put {key}"), &s))
        })
    }

    fn app_metadata(
        &self,
        app: &str,
        revision: &str,
    ) -> BoxFuture<'_, Result<Option<MetadataInfo>, RegistryError>> {
        let key = metadata_key(&self.root, app, revision);
        Box::pin(async move {
            let kv = self
                .client
                .get(&key)
                .await
                .map_err(|s| self.client.error(&format!("read {key}"), &s))?;
            match kv {
                Some(kv) => MetadataInfo::from_json(&key, &kv.value).map(Some),
                None => Ok(None),
            }
        })
    }

    fn mapping(&self, interface: &str) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        let key = mapping_key(&self.root, interface);
        Box::pin(async move {
            let kv = self
                .client
                .get(&key)
                .await
                .map_err(|s| self.client.error(&format!("read {key}"), &s))?;
            Ok(kv.map(|kv| split_apps(&kv.value)).unwrap_or_default())
        })
    }

    fn register_mapping(
        &self,
        interface: &str,
        app: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = mapping_key(&self.root, interface);
        let app = app.to_owned();
        Box::pin(async move {
            for attempt in 0..MAPPING_ATTEMPTS {
                if self.try_add(&key, &app).await? {
                    return Ok(());
                }
                // Another writer won; spread the retries so two writers do not collide again.
                let jitter = u64::from(attempt) * 7 + u64::from(std::process::id() % 13);
                tokio::time::sleep(Duration::from_millis(5 + jitter)).await;
            }
            Err(RegistryError::Conflict { path: key })
        })
    }

    fn watch_mapping(
        &self,
        interface: &str,
        listener: Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = mapping_key(&self.root, interface);
        let interface = interface.to_owned();
        Box::pin(async move {
            let id = (
                interface.clone(),
                Arc::as_ptr(&listener) as *const () as usize,
            );
            let token = self.cancel.child_token();
            if let Some(old) = self.lock_watches().insert(id.clone(), token.clone()) {
                old.cancel();
            }
            // Only changes are pushed: the first read is what `mapping` returns, and a re-read
            // after a reconnect is pushed only when it differs from the last push.
            let last: Mutex<Option<Vec<String>>> = Mutex::new(None);
            let watched_key = key.clone();
            let result = spawn_watch(
                self.client.clone(),
                key,
                Delivery::PerBatch,
                token.clone(),
                move |snapshot: &Snapshot| {
                    let apps = snapshot
                        .get(&watched_key)
                        .map(|v| split_apps(v))
                        .unwrap_or_default();
                    let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
                    let first = last.is_none();
                    if last.as_ref() != Some(&apps) {
                        *last = Some(apps.clone());
                        if !first {
                            listener.on_mapping(&interface, apps);
                        }
                    }
                },
            )
            .await;
            if result.is_err() {
                token.cancel();
                self.lock_watches().remove(&id);
            }
            result
        })
    }

    fn unwatch_mapping(
        &self,
        interface: &str,
        listener: &Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let id = (
            interface.to_owned(),
            Arc::as_ptr(listener) as *const () as usize,
        );
        Box::pin(async move {
            if let Some(token) = self.lock_watches().remove(&id) {
                token.cancel();
            }
            Ok(())
        })
    }

    fn store_definition(
        &self,
        id: &DefinitionId,
        json: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        // A plain key with no lease, as Java's etcd report stores provider metadata: it outlives
        // the provider, as the ZooKeeper report's persistent node does.
        let key = definition_key(&self.root, id);
        let value = json.as_bytes().to_vec();
        Box::pin(async move {
            self.client
                .put(&key, value, 0)
                .await
                .map_err(|s| self.client.error(&format!("put {key}"), &s))
        })
    }

    fn definition(
        &self,
        id: &DefinitionId,
    ) -> BoxFuture<'_, Result<Option<String>, RegistryError>> {
        let key = definition_key(&self.root, id);
        Box::pin(async move {
            let kv = self
                .client
                .get(&key)
                .await
                .map_err(|s| self.client.error(&format!("read {key}"), &s))?;
            Ok(kv.map(|kv| String::from_utf8_lossy(&kv.value).into_owned()))
        })
    }
}

impl DefinitionListing for EtcdMetadataReport {
    fn definition_entries(
        &self,
        service: &DefinitionId,
    ) -> BoxFuture<'_, Result<Vec<DefinitionEntry>, RegistryError>> {
        let dir = definition_dir_key(&self.root, service);
        Box::pin(async move {
            // Every key under `{dir}/`: the prefix's range ends at `{dir}0` ('0' follows '/').
            let (kvs, _) = self
                .client
                .range(format!("{dir}/").as_bytes(), format!("{dir}0").as_bytes())
                .await
                .map_err(|s| self.client.error(&format!("list {dir}"), &s))?;
            let mut out: Vec<DefinitionEntry> = kvs
                .iter()
                .filter_map(|kv| {
                    let key = String::from_utf8_lossy(&kv.key);
                    let application = child(&dir, &key)?.to_owned();
                    Some(DefinitionEntry {
                        application,
                        content: String::from_utf8_lossy(&kv.value).into_owned(),
                    })
                })
                .collect();
            out.sort_by(|a, b| a.application.cmp(&b.application));
            Ok(out)
        })
    }
}
