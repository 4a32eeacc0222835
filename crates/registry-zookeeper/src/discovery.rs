//! [`ZookeeperServiceDiscovery`]: application-level instances as Curator's service discovery
//! writes them, so Java and Rust applications see each other.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use dubbo_core::BoxFuture;
use dubbo_registry::{
    InstanceReader, InstancesListener, RegistryError, ServiceDiscovery, ServiceInstance,
};
use dubbo_url::Url;
use futures::stream::{FuturesUnordered, StreamExt};
use futures::FutureExt;
use tokio_util::sync::{CancellationToken, DropGuard};
use zookeeper_client as zk;

use crate::client::ZookeeperClient;
use crate::paths::{app_path, instance_path, services_root_of};
use crate::watch::{spawn_watch, Changed, Watched};

/// Application-level discovery on ZooKeeper.
///
/// Each instance is the ephemeral node `/services/{app}/{host}:{port}` holding Curator's JSON
/// (the root comes from the URL's `rootPath`). Registering the same instance again rewrites
/// the node. Watches follow both the set of instances and the content of each one.
pub struct ZookeeperServiceDiscovery {
    url: Url,
    root: String,
    client: Mutex<Option<Arc<ZookeeperClient>>>,
    /// Node path → instance, for withdrawing on destroy.
    registered: Mutex<BTreeMap<String, ServiceInstance>>,
    watches: Mutex<Vec<AppWatchEntry>>,
    stop: CancellationToken,
    _stop_on_drop: DropGuard,
}

struct AppWatchEntry {
    app: String,
    listener: Arc<dyn InstancesListener>,
    stop: CancellationToken,
}

impl std::fmt::Debug for ZookeeperServiceDiscovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZookeeperServiceDiscovery")
            .field("url", &self.url.to_full_string())
            .field("root", &self.root)
            .finish()
    }
}

impl ZookeeperServiceDiscovery {
    /// A discovery for `url` on `client` (possibly shared with a registry and a report).
    pub fn new(url: &Url, client: Arc<ZookeeperClient>) -> Self {
        let stop = CancellationToken::new();
        Self {
            url: url.clone(),
            root: services_root_of(url),
            client: Mutex::new(Some(client)),
            registered: Mutex::new(BTreeMap::new()),
            watches: Mutex::new(Vec::new()),
            _stop_on_drop: stop.clone().drop_guard(),
            stop,
        }
    }

    /// Connects to the ZooKeeper `url` names and creates a discovery with its own session.
    pub async fn connect(url: &Url) -> Result<Self, RegistryError> {
        let client = ZookeeperClient::connect(url).await?;
        Ok(Self::new(url, client))
    }

    /// The node `instance` is registered at.
    pub fn node_path(&self, instance: &ServiceInstance) -> String {
        instance_path(&self.root, &instance.app, &instance.id())
    }

    fn client(&self) -> Result<Arc<ZookeeperClient>, RegistryError> {
        lock(&self.client)
            .clone()
            .ok_or_else(|| RegistryError::Closed {
                address: self.url.address(),
            })
    }

    async fn do_register(&self, instance: &ServiceInstance) -> Result<(), RegistryError> {
        check_name(&instance.app)?;
        let client = self.client()?;
        let path = self.node_path(instance);
        let json = instance.to_curator_json();
        // Curator creates the application node as a container, which the server removes
        // once its last instance is gone.
        client
            .put_ephemeral(&path, json.as_bytes(), zk::CreateMode::Container)
            .await?;
        lock(&self.registered).insert(path, instance.clone());
        Ok(())
    }

    async fn do_unregister(&self, instance: &ServiceInstance) -> Result<(), RegistryError> {
        let client = self.client()?;
        let path = self.node_path(instance);
        lock(&self.registered).remove(&path);
        client.remove_ephemeral(&path).await
    }

    async fn do_instances(&self, app: &str) -> Result<Vec<ServiceInstance>, RegistryError> {
        check_name(app)?;
        let client = self.client()?;
        let path = app_path(&self.root, app);
        let mut children = client.children(&path).await?;
        children.sort();
        let mut out = Vec::with_capacity(children.len());
        let mut reader = InstanceReader::new();
        for child in children {
            let node = format!("{path}/{child}");
            if let Some((data, _)) = client.data(&node).await? {
                if let Some(instance) = parse_instance(&mut reader, &node, &data) {
                    out.push(instance);
                }
            }
        }
        Ok(out)
    }

    fn do_watch(
        &self,
        app: &str,
        listener: Arc<dyn InstancesListener>,
    ) -> Result<(), RegistryError> {
        check_name(app)?;
        let client = self.client()?;
        let stop = self.stop.child_token();
        spawn_watch(
            client,
            stop.clone(),
            AppWatch::new(app, app_path(&self.root, app), listener.clone()),
        );
        lock(&self.watches).push(AppWatchEntry {
            app: app.to_owned(),
            listener,
            stop,
        });
        Ok(())
    }

    fn do_unwatch(&self, app: &str, listener: &Arc<dyn InstancesListener>) {
        lock(&self.watches).retain(|w| {
            let same =
                w.app == app && std::ptr::addr_eq(Arc::as_ptr(&w.listener), Arc::as_ptr(listener));
            if same {
                w.stop.cancel();
            }
            !same
        });
    }

    async fn do_destroy(&self) {
        self.stop.cancel();
        lock(&self.watches).clear();
        let registered: Vec<String> = std::mem::take(&mut *lock(&self.registered))
            .into_keys()
            .collect();
        if let Ok(client) = self.client() {
            for path in registered {
                if let Err(e) = client.remove_ephemeral(&path).await {
                    tracing::warn!(%path, error = %e, "could not withdraw instance on destroy");
                }
            }
        }
        lock(&self.client).take();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An application name becomes one path segment; one that is not would land elsewhere.
fn check_name(app: &str) -> Result<(), RegistryError> {
    if app.is_empty() || app.contains('/') {
        return Err(RegistryError::Config {
            key: "application".to_owned(),
            reason: format!("{app:?} is not a usable application name"),
        });
    }
    Ok(())
}

fn parse_instance(reader: &mut InstanceReader, path: &str, data: &[u8]) -> Option<ServiceInstance> {
    match reader.read_curator_json(path, data) {
        Ok(i) => Some(i),
        Err(e) => {
            tracing::warn!(%path, error = %e, "unreadable instance node; skipped");
            None
        }
    }
}

/// Watches the instances of one application: the children, and each child's data.
///
/// A change of one instance (or one instance more or less) re-reads only that node: the
/// instance read from each child is kept with the modification (`mzxid`) it was read at, and
/// the data watch armed by that read is kept alive across listings, so a child is read again
/// only when it is new, when its watch fired, or when a new session lost the watches; and it
/// is parsed again only when its `mzxid` moved.
struct AppWatch {
    app: String,
    path: String,
    listener: Arc<dyn InstancesListener>,
    /// Kept across listings: the instances of a revision share one metadata map.
    reader: InstanceReader,
    /// What each child held when last read, by child name.
    known: HashMap<String, KnownChild>,
    /// The data watches armed on children; the future returned by a read waits on them.
    armed: Arc<tokio::sync::Mutex<ArmedWatches>>,
    /// The session the armed watches belong to.
    session: Option<zk::SessionId>,
}

/// A child as last read.
struct KnownChild {
    /// The zxid of the node's last modification when it was read.
    mzxid: i64,
    /// Its instance (`None`: unreadable, skipped with a warning when read).
    instance: Option<ServiceInstance>,
    /// Whether a data watch on it is armed (it has not changed since it was read).
    armed: bool,
}

/// Data watches on children, each resolving to its child's name when it fires, and the
/// names of those that fired since the last read.
#[derive(Default)]
struct ArmedWatches {
    watches: FuturesUnordered<BoxFuture<'static, String>>,
    fired: Vec<String>,
}

impl ArmedWatches {
    fn arm(&mut self, child: &str, watcher: zk::OneshotWatcher) {
        let child = child.to_owned();
        self.watches.push(Box::pin(async move {
            watcher.changed().await;
            child
        }));
    }
}

impl AppWatch {
    fn new(app: &str, path: String, listener: Arc<dyn InstancesListener>) -> Self {
        Self {
            app: app.to_owned(),
            path,
            listener,
            reader: InstanceReader::new(),
            known: HashMap::new(),
            armed: Arc::default(),
            session: None,
        }
    }

    /// The children whose data must be read again: those whose watch fired, or all of them
    /// when the session changed (its watches are gone).
    fn disarm_changed(&mut self, session: zk::SessionId, armed: &mut ArmedWatches) {
        if self.session != Some(session) {
            self.session = Some(session);
            armed.watches.clear();
            armed.fired.clear();
            for known in self.known.values_mut() {
                known.armed = false;
            }
            return;
        }
        while let Some(Some(child)) = armed.watches.next().now_or_never() {
            armed.fired.push(child);
        }
        for child in armed.fired.drain(..) {
            if let Some(known) = self.known.get_mut(&child) {
                known.armed = false;
            }
        }
    }
}

impl Watched for AppWatch {
    fn path(&self) -> &str {
        &self.path
    }

    fn read<'a>(&'a mut self, zk: &'a zk::Client) -> BoxFuture<'a, Result<Changed, zk::Error>> {
        Box::pin(async move {
            let (mut children, watcher) = match zk.list_and_watch_children(&self.path).await {
                Err(zk::Error::NoNode) => {
                    // No instance has ever registered (or the container went away): wait for
                    // the node to appear.
                    let (stat, watcher) = zk.check_and_watch_stat(&self.path).await?;
                    if stat.is_some() {
                        return Ok(Box::pin(async {}) as Changed);
                    }
                    self.known.clear();
                    self.listener.on_instances(&self.app, Vec::new());
                    self.reader.forget_unused();
                    return Ok(Box::pin(async move {
                        watcher.changed().await;
                    }) as Changed);
                }
                other => other?,
            };
            // The future of the last read no longer runs, so the lock is free; if it were
            // not, a fresh set (everything read again) is as correct.
            let mut armed = match Arc::clone(&self.armed).try_lock_owned() {
                Ok(armed) => armed,
                Err(_) => {
                    self.armed = Arc::default();
                    self.session = None;
                    Arc::clone(&self.armed).lock_owned().await
                }
            };
            self.disarm_changed(zk.session_id(), &mut armed);
            children.sort();
            self.known
                .retain(|name, _| children.binary_search(name).is_ok());
            let mut instances = Vec::with_capacity(children.len());
            for child in children {
                if let Some(known) = self.known.get(&child).filter(|k| k.armed) {
                    instances.extend(known.instance.clone());
                    continue;
                }
                let node = format!("{}/{child}", self.path);
                match zk.get_and_watch_data(&node).await {
                    Ok((data, stat, watcher)) => {
                        armed.arm(&child, watcher);
                        let known = match self.known.remove(&child) {
                            // Changed back, or the watch fired for the session only.
                            Some(k) if k.mzxid == stat.mzxid => k,
                            _ => KnownChild {
                                mzxid: stat.mzxid,
                                instance: parse_instance(&mut self.reader, &node, &data),
                                armed: true,
                            },
                        };
                        instances.extend(known.instance.clone());
                        self.known.insert(
                            child,
                            KnownChild {
                                armed: true,
                                ..known
                            },
                        );
                    }
                    // Gone since the listing; the children watch reports it.
                    Err(zk::Error::NoNode) => {
                        self.known.remove(&child);
                    }
                    Err(e) => return Err(e),
                }
            }
            self.listener.on_instances(&self.app, instances);
            self.reader.forget_unused();
            drop(armed);
            let armed = Arc::clone(&self.armed);
            Ok(Box::pin(async move {
                let mut armed = armed.lock_owned().await;
                let ArmedWatches { watches, fired } = &mut *armed;
                tokio::select! {
                    _ = watcher.changed() => {}
                    Some(child) = watches.next() => fired.push(child),
                }
            }) as Changed)
        })
    }
}

impl ServiceDiscovery for ZookeeperServiceDiscovery {
    fn url(&self) -> &Url {
        &self.url
    }

    fn register(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>> {
        let instance = instance.clone();
        Box::pin(async move { self.do_register(&instance).await })
    }

    fn unregister(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>> {
        let instance = instance.clone();
        Box::pin(async move { self.do_unregister(&instance).await })
    }

    fn instances(&self, app: &str) -> BoxFuture<'_, Result<Vec<ServiceInstance>, RegistryError>> {
        let app = app.to_owned();
        Box::pin(async move { self.do_instances(&app).await })
    }

    fn applications(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        Box::pin(async move {
            let mut apps = self.client()?.children(&self.root).await?;
            apps.sort();
            Ok(apps)
        })
    }

    fn watch(
        &self,
        app: &str,
        listener: Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let result = self.do_watch(app, listener);
        Box::pin(async move { result })
    }

    fn unwatch(
        &self,
        app: &str,
        listener: &Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        self.do_unwatch(app, listener);
        Box::pin(async { Ok(()) })
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.do_destroy())
    }
}
