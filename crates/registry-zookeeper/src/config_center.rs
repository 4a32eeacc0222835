//! [`ZookeeperDynamicConfiguration`]: the config centre on ZooKeeper, in the node layout of
//! Java Dubbo's `ZookeeperDynamicConfiguration`.

use std::sync::{Arc, Mutex, PoisonError};

use dubbo_config_center::{
    ConfigCenterError, ConfigItem, ConfigListener, ConfigTicket, DynamicConfiguration,
    TreePathLayout,
};
use dubbo_core::BoxFuture;
use dubbo_registry::RegistryError;
use dubbo_url::Url;
use tokio::sync::oneshot;
use tokio_util::sync::{CancellationToken, DropGuard};
use zookeeper_client as zk;

use crate::client::{open_acl, parent_of, ZookeeperClient};
use crate::config_watch::{text, ConfigKeyWatch};
use crate::watch::spawn_watch;

/// A config centre on ZooKeeper.
///
/// The value of `key` in `group` is the UTF-8 data of the persistent node
/// `/{namespace}/config/{group}/{key}` (namespace from the URL's `namespace`, default
/// `dubbo`; see [`TreePathLayout`]), where Java Dubbo and Dubbo Admin read and write it.
/// Missing parents are created. The ticket of a read value is the node's data version, so a
/// compare-and-publish is a versioned `setData` (or a `create` when the key must be absent).
///
/// Each listener has its own one-shot watch, re-armed after every event. After a reconnect or
/// in a new session the node is read again and only a difference from what the listener last
/// got is delivered. ZooKeeper reports that a node changed, not each intermediate value: a
/// burst of writes faster than a read may arrive as its last value only.
pub struct ZookeeperDynamicConfiguration {
    url: Url,
    layout: TreePathLayout,
    client: Mutex<Option<Arc<ZookeeperClient>>>,
    listeners: Mutex<Vec<ListenerEntry>>,
    stop: CancellationToken,
    _stop_on_drop: DropGuard,
}

/// One listener's watch of one node.
struct ListenerEntry {
    /// The node: an empty group and `dubbo` name the same one.
    path: String,
    listener: Arc<dyn ConfigListener>,
    stop: CancellationToken,
}

impl std::fmt::Debug for ZookeeperDynamicConfiguration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZookeeperDynamicConfiguration")
            .field("url", &self.url.to_full_string())
            .field("root", &self.layout.root())
            .finish()
    }
}

impl ZookeeperDynamicConfiguration {
    /// A config centre for `url` on `client` (which may be shared with a registry, a
    /// discovery and a metadata report of the same address).
    pub fn new(url: &Url, client: Arc<ZookeeperClient>) -> Self {
        let stop = CancellationToken::new();
        Self {
            url: url.clone(),
            layout: TreePathLayout::from_url(url),
            client: Mutex::new(Some(client)),
            listeners: Mutex::new(Vec::new()),
            _stop_on_drop: stop.clone().drop_guard(),
            stop,
        }
    }

    /// Connects to the ZooKeeper `url` names and creates a config centre with its own session.
    pub async fn connect(url: &Url) -> Result<Self, ConfigCenterError> {
        let client = ZookeeperClient::connect(url).await.map_err(config_error)?;
        Ok(Self::new(url, client))
    }

    /// Where the values live: `/dubbo/config` unless the URL says otherwise.
    pub fn layout(&self) -> &TreePathLayout {
        &self.layout
    }

    fn client(&self) -> Result<Arc<ZookeeperClient>, ConfigCenterError> {
        lock(&self.client)
            .clone()
            .ok_or_else(|| ConfigCenterError::Closed {
                address: self.url.address(),
            })
    }

    /// The client and the node of `key` in `group`, while the centre is open.
    fn target(
        &self,
        key: &str,
        group: &str,
    ) -> Result<(Arc<ZookeeperClient>, String), ConfigCenterError> {
        Ok((self.client()?, self.layout.path(key, group)?))
    }

    async fn listen(
        &self,
        key: &str,
        group: &str,
        listener: Arc<dyn ConfigListener>,
    ) -> Result<Option<String>, ConfigCenterError> {
        let (client, path) = self.target(key, group)?;
        // Fail now, not only in the background, when ZooKeeper cannot be reached.
        client.session().map_err(config_error)?;
        let stop = self.stop.child_token();
        let (first_tx, first_rx) = oneshot::channel();
        spawn_watch(
            client.clone(),
            stop.clone(),
            ConfigKeyWatch {
                path: path.clone(),
                key: key.to_owned(),
                group: group.to_owned(),
                listener: listener.clone(),
                stop: stop.clone(),
                last: None,
                first: Some(first_tx),
            },
        );
        // Adding a listener again replaces its watch: each change reaches it once.
        self.unlisten(&path, &listener);
        lock(&self.listeners).push(ListenerEntry {
            path: path.clone(),
            listener: listener.clone(),
            stop: stop.clone(),
        });
        let first = tokio::time::timeout(client.connect_timeout(), first_rx).await;
        let failure = match first {
            Ok(Ok(Ok(value))) => return Ok(value),
            Ok(Ok(Err(e))) => config_error(client.map_error(&format!("watch {path}"), e)),
            // The watch ended before its first read: closed meanwhile.
            Ok(Err(_)) => ConfigCenterError::Closed {
                address: self.url.address(),
            },
            Err(_) => ConfigCenterError::Unreachable {
                address: client.address().to_owned(),
                reason: format!("watch {path}: no answer in time"),
            },
        };
        stop.cancel();
        lock(&self.listeners).retain(|entry| !entry.stop.is_cancelled());
        Err(failure)
    }

    fn unlisten(&self, path: &str, listener: &Arc<dyn ConfigListener>) {
        lock(&self.listeners).retain(|entry| {
            let same = entry.path == path
                && std::ptr::addr_eq(Arc::as_ptr(&entry.listener), Arc::as_ptr(listener));
            if same {
                entry.stop.cancel();
            }
            !same
        });
    }

    fn shut(&self) {
        self.stop.cancel();
        lock(&self.listeners).clear();
        lock(&self.client).take();
    }
}

/// A ticket handed out by this config centre: a node's data version.
fn data_version(ticket: &ConfigTicket) -> Result<i32, ConfigCenterError> {
    ticket
        .as_str()
        .parse()
        .map_err(|_| ConfigCenterError::Config {
            key: "ticket".to_owned(),
            reason: format!("{:?} is not a ZooKeeper data version", ticket.as_str()),
        })
}

/// Writes `content` if the node is still at `version`; false when it moved on or is gone.
async fn set_if_version(
    zk: &zk::Client,
    path: &str,
    content: &str,
    version: i32,
) -> Result<bool, zk::Error> {
    match zk.set_data(path, content.as_bytes(), Some(version)).await {
        Ok(_) => Ok(true),
        Err(zk::Error::BadVersion | zk::Error::NoNode) => Ok(false),
        Err(e) => Err(e),
    }
}

/// Creates the node with `content` unless it exists; false when it does.
async fn create_if_absent(zk: &zk::Client, path: &str, content: &str) -> Result<bool, zk::Error> {
    let options = open_acl(zk::CreateMode::Persistent);
    match zk.create(path, content.as_bytes(), &options).await {
        Ok(_) => return Ok(true),
        Err(zk::Error::NodeExists) => return Ok(false),
        Err(zk::Error::NoNode) => {}
        Err(e) => return Err(e),
    }
    if let Some(parent) = parent_of(path) {
        zk.mkdir(parent, &options).await?;
    }
    match zk.create(path, content.as_bytes(), &options).await {
        Ok(_) => Ok(true),
        Err(zk::Error::NodeExists) => Ok(false),
        Err(e) => Err(e),
    }
}

/// The config centre's error for an error of the shared ZooKeeper client.
pub(crate) fn config_error(e: RegistryError) -> ConfigCenterError {
    match e {
        RegistryError::Unreachable { address, reason } => {
            ConfigCenterError::Unreachable { address, reason }
        }
        RegistryError::Config { key, reason } => ConfigCenterError::Config { key, reason },
        RegistryError::UnknownScheme { scheme } => ConfigCenterError::UnknownScheme { scheme },
        RegistryError::Closed { address } => ConfigCenterError::Closed { address },
        RegistryError::Io { path, reason } => ConfigCenterError::Io { path, reason },
        RegistryError::Refused {
            address,
            operation,
            reason,
        } => ConfigCenterError::Refused {
            address,
            operation,
            reason,
        },
        // The client raises these only for registry data and compare-and-set rounds.
        other @ (RegistryError::BadData { .. }
        | RegistryError::Conflict { .. }
        | RegistryError::Unsupported { .. }) => ConfigCenterError::Refused {
            address: String::new(),
            operation: "ZooKeeper call".to_owned(),
            reason: other.to_string(),
        },
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl DynamicConfiguration for ZookeeperDynamicConfiguration {
    fn url(&self) -> &Url {
        &self.url
    }

    fn get_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>> {
        let item = self.get_config_item(key, group);
        Box::pin(async move { Ok(item.await?.map(|item| item.content)) })
    }

    fn get_config_item(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<ConfigItem>, ConfigCenterError>> {
        let target = self.target(key, group);
        Box::pin(async move {
            let (client, path) = target?;
            let found = client.data(&path).await.map_err(config_error)?;
            Ok(found.map(|(data, stat)| ConfigItem {
                content: text(&data),
                ticket: ConfigTicket::new(stat.version.to_string()),
            }))
        })
    }

    fn publish_config(
        &self,
        key: &str,
        group: &str,
        content: &str,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>> {
        let target = self.target(key, group);
        let data = content.as_bytes().to_vec();
        Box::pin(async move {
            let (client, path) = target?;
            client
                .put_persistent(&path, &data)
                .await
                .map_err(config_error)
        })
    }

    fn publish_config_cas<'a>(
        &'a self,
        key: &'a str,
        group: &'a str,
        content: &'a str,
        ticket: Option<&'a ConfigTicket>,
    ) -> BoxFuture<'a, Result<bool, ConfigCenterError>> {
        Box::pin(async move {
            let (client, path) = self.target(key, group)?;
            let version = ticket.map(data_version).transpose()?;
            client
                .run(&format!("publish {path}"), |zk| async move {
                    match version {
                        Some(version) => set_if_version(&zk, &path, content, version).await,
                        None => create_if_absent(&zk, &path, content).await,
                    }
                })
                .await
                .map_err(config_error)
        })
    }

    fn remove_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<bool, ConfigCenterError>> {
        let target = self.target(key, group);
        Box::pin(async move {
            let (client, path) = target?;
            client
                .run(&format!("delete {path}"), |zk| async move {
                    match zk.delete(&path, None).await {
                        Ok(()) => Ok(true),
                        Err(zk::Error::NoNode) => Ok(false),
                        Err(e) => Err(e),
                    }
                })
                .await
                .map_err(config_error)
        })
    }

    fn add_listener(
        &self,
        key: &str,
        group: &str,
        listener: Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>> {
        let (key, group) = (key.to_owned(), group.to_owned());
        Box::pin(async move { self.listen(&key, &group, listener).await })
    }

    fn remove_listener(
        &self,
        key: &str,
        group: &str,
        listener: &Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>> {
        // A key or group that makes no path was never watched.
        if let Ok(path) = self.layout.path(key, group) {
            self.unlisten(&path, listener);
        }
        Box::pin(async { Ok(()) })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.shut();
        Box::pin(async {})
    }
}
