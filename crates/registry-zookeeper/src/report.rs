//! [`ZookeeperMetadataReport`]: application metadata by revision and the interface →
//! application mapping, in Java Dubbo's ZooKeeper layout.

use std::sync::{Arc, Mutex, PoisonError};

use dubbo_core::BoxFuture;
use dubbo_registry::{
    DefinitionEntry, DefinitionId, DefinitionListing, MappingListener, MetadataInfo,
    MetadataReport, RegistryError,
};
use dubbo_url::Url;
use tokio_util::sync::{CancellationToken, DropGuard};
use zookeeper_client as zk;

use crate::client::{create_node, ZookeeperClient};
use crate::paths::{definition_dir, definition_path, mapping_path, metadata_path, root_of};
use crate::watch::{spawn_watch, Changed, Watched};

/// How often a mapping update is tried against concurrent writers.
const MAPPING_ATTEMPTS: usize = 10;

/// The metadata centre on ZooKeeper.
///
/// Metadata lives at `/dubbo/metadata/{app}/{revision}` (MetadataInfo JSON) and the mapping at
/// `/dubbo/mapping/{interface}` (comma-separated application names, updated by
/// compare-and-set on the node version); `/dubbo` is replaced by `/` + the URL's `group`.
pub struct ZookeeperMetadataReport {
    url: Url,
    root: String,
    client: Arc<ZookeeperClient>,
    watches: Mutex<Vec<MappingWatchEntry>>,
    stop: CancellationToken,
    _stop_on_drop: DropGuard,
}

struct MappingWatchEntry {
    interface: String,
    listener: Arc<dyn MappingListener>,
    stop: CancellationToken,
}

impl std::fmt::Debug for ZookeeperMetadataReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZookeeperMetadataReport")
            .field("url", &self.url.to_full_string())
            .field("root", &self.root)
            .finish()
    }
}

impl ZookeeperMetadataReport {
    /// A report for `url` on `client` (possibly shared with a registry and a discovery).
    pub fn new(url: &Url, client: Arc<ZookeeperClient>) -> Self {
        let stop = CancellationToken::new();
        Self {
            url: url.clone(),
            root: root_of(url),
            client,
            watches: Mutex::new(Vec::new()),
            _stop_on_drop: stop.clone().drop_guard(),
            stop,
        }
    }

    /// Connects to the ZooKeeper `url` names and creates a report with its own session.
    pub async fn connect(url: &Url) -> Result<Self, RegistryError> {
        let client = ZookeeperClient::connect(url).await?;
        Ok(Self::new(url, client))
    }

    /// Ends every mapping watch. (The session closes when the last user of the client is
    /// dropped.)
    pub fn close(&self) {
        self.stop.cancel();
        lock(&self.watches).clear();
    }

    async fn do_register_mapping(&self, interface: &str, app: &str) -> Result<(), RegistryError> {
        check_segment("interface", interface)?;
        if app.is_empty() || app.contains(',') {
            return Err(RegistryError::Config {
                key: "application".to_owned(),
                reason: format!("{app:?} cannot be listed in a mapping"),
            });
        }
        let path = mapping_path(&self.root, interface);
        for _ in 0..MAPPING_ATTEMPTS {
            let attempt = self
                .client
                .run(&format!("map {path}"), |zk| {
                    let path = path.clone();
                    async move { cas_append(&zk, &path, app).await }
                })
                .await;
            match attempt {
                Ok(()) => return Ok(()),
                Err(RegistryError::Conflict { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(RegistryError::Conflict { path })
    }
}

/// One compare-and-set round: create the node with `app`, or append `app` to what is there
/// with the version just read. `BadVersion` and `NodeExists` mean another writer won.
async fn cas_append(zk: &zk::Client, path: &str, app: &str) -> Result<(), zk::Error> {
    match zk.get_data(path).await {
        Err(zk::Error::NoNode) => {
            let options = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
            match zk.create(path, app.as_bytes(), &options).await {
                Ok(_) => Ok(()),
                Err(zk::Error::NoNode) => {
                    // The parents are missing; make them and let the caller go round again.
                    if let Some(i) = path.rfind('/').filter(|i| *i > 0) {
                        create_node(
                            zk,
                            &path[..i],
                            &[],
                            zk::CreateMode::Persistent,
                            zk::CreateMode::Persistent,
                        )
                        .await?;
                    }
                    Err(zk::Error::BadVersion)
                }
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e),
        Ok((data, stat)) => {
            let current = String::from_utf8_lossy(&data);
            let mut apps = split_apps(&current);
            if apps.iter().any(|a| a == app) {
                return Ok(());
            }
            apps.push(app.to_owned());
            zk.set_data(path, apps.join(",").as_bytes(), Some(stat.version))
                .await
                .map(|_| ())
        }
    }
}

/// The application names of a mapping node: comma-separated, trimmed, empty ones dropped.
fn split_apps(data: &str) -> Vec<String> {
    data.split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A name used as one path segment must be one.
fn check_segment(key: &str, value: &str) -> Result<(), RegistryError> {
    if value.is_empty() || value.contains('/') {
        return Err(RegistryError::Config {
            key: key.to_owned(),
            reason: format!("{value:?} is not a usable node name"),
        });
    }
    Ok(())
}

/// Watches one mapping node's data.
struct MappingWatch {
    interface: String,
    path: String,
    listener: Arc<dyn MappingListener>,
    /// The last list pushed, so that re-reads after reconnects do not repeat it.
    last: Option<Vec<String>>,
}

impl Watched for MappingWatch {
    fn path(&self) -> &str {
        &self.path
    }

    fn read<'a>(&'a mut self, zk: &'a zk::Client) -> BoxFuture<'a, Result<Changed, zk::Error>> {
        Box::pin(async move {
            let (apps, watcher) = match zk.get_and_watch_data(&self.path).await {
                Ok((data, _, watcher)) => (split_apps(&String::from_utf8_lossy(&data)), watcher),
                Err(zk::Error::NoNode) => {
                    let (stat, watcher) = zk.check_and_watch_stat(&self.path).await?;
                    if stat.is_some() {
                        return Ok(Box::pin(async {}) as Changed);
                    }
                    (Vec::new(), watcher)
                }
                Err(e) => return Err(e),
            };
            // The first read only arms the watch: listeners hear of changes.
            if self.last.as_ref().is_some_and(|last| *last != apps) {
                self.listener.on_mapping(&self.interface, apps.clone());
            }
            self.last = Some(apps);
            Ok(Box::pin(async move {
                watcher.changed().await;
            }) as Changed)
        })
    }
}

impl MetadataReport for ZookeeperMetadataReport {
    fn url(&self) -> &Url {
        &self.url
    }

    fn publish_app_metadata(
        &self,
        info: &MetadataInfo,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let info = info.clone();
        Box::pin(async move {
            check_segment("application", &info.app)?;
            check_segment("revision", &info.revision)?;
            let path = metadata_path(&self.root, &info.app, &info.revision);
            self.client
                .put_persistent(&path, info.to_json().as_bytes())
                .await
        })
    }

    fn app_metadata(
        &self,
        app: &str,
        revision: &str,
    ) -> BoxFuture<'_, Result<Option<MetadataInfo>, RegistryError>> {
        let path = metadata_path(&self.root, app, revision);
        let checked = check_segment("application", app).and(check_segment("revision", revision));
        Box::pin(async move {
            checked?;
            match self.client.data(&path).await? {
                Some((data, _)) => MetadataInfo::from_json(&path, &data).map(Some),
                None => Ok(None),
            }
        })
    }

    fn mapping(&self, interface: &str) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        let path = mapping_path(&self.root, interface);
        let checked = check_segment("interface", interface);
        Box::pin(async move {
            checked?;
            Ok(match self.client.data(&path).await? {
                Some((data, _)) => split_apps(&String::from_utf8_lossy(&data)),
                None => Vec::new(),
            })
        })
    }

    fn register_mapping(
        &self,
        interface: &str,
        app: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let (interface, app) = (interface.to_owned(), app.to_owned());
        Box::pin(async move { self.do_register_mapping(&interface, &app).await })
    }

    fn watch_mapping(
        &self,
        interface: &str,
        listener: Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let result = check_segment("interface", interface).map(|()| {
            let stop = self.stop.child_token();
            spawn_watch(
                self.client.clone(),
                stop.clone(),
                MappingWatch {
                    interface: interface.to_owned(),
                    path: mapping_path(&self.root, interface),
                    listener: listener.clone(),
                    last: None,
                },
            );
            lock(&self.watches).push(MappingWatchEntry {
                interface: interface.to_owned(),
                listener,
                stop,
            });
        });
        Box::pin(async move { result })
    }

    fn unwatch_mapping(
        &self,
        interface: &str,
        listener: &Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        lock(&self.watches).retain(|w| {
            let same = w.interface == interface
                && std::ptr::addr_eq(Arc::as_ptr(&w.listener), Arc::as_ptr(listener));
            if same {
                w.stop.cancel();
            }
            !same
        });
        Box::pin(async { Ok(()) })
    }

    fn store_definition(
        &self,
        id: &DefinitionId,
        json: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let path = definition_path(&self.root, id);
        let json = json.to_owned();
        Box::pin(async move { self.client.put_persistent(&path, json.as_bytes()).await })
    }

    fn definition(
        &self,
        id: &DefinitionId,
    ) -> BoxFuture<'_, Result<Option<String>, RegistryError>> {
        let path = definition_path(&self.root, id);
        Box::pin(async move {
            Ok(self
                .client
                .data(&path)
                .await?
                .map(|(data, _)| String::from_utf8_lossy(&data).into_owned()))
        })
    }
}

impl DefinitionListing for ZookeeperMetadataReport {
    fn definition_entries(
        &self,
        service: &DefinitionId,
    ) -> BoxFuture<'_, Result<Vec<DefinitionEntry>, RegistryError>> {
        let dir = definition_dir(&self.root, service);
        Box::pin(async move {
            let mut apps = self.client.children(&dir).await?;
            apps.sort();
            let mut out = Vec::with_capacity(apps.len());
            for application in apps {
                // A node deleted between the listing and the read is left out.
                if let Some((data, _)) = self.client.data(&format!("{dir}/{application}")).await? {
                    out.push(DefinitionEntry {
                        application,
                        content: String::from_utf8_lossy(&data).into_owned(),
                    });
                }
            }
            Ok(out)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apps_are_trimmed_and_non_empty() {
        assert_eq!(split_apps(" a, b ,,c,"), vec!["a", "b", "c"]);
        assert!(split_apps("").is_empty());
    }
}
