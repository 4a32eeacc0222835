//! [`EtcdDynamicConfiguration`]: the config centre on etcd v3, in the key layout of Java
//! Dubbo's etcd config centre (dubbo-spi-extensions).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use dubbo_config_center::{
    ConfigCenterError, ConfigChangeType, ConfigChangedEvent, ConfigItem, ConfigListener,
    ConfigTicket, DynamicConfiguration, TreePathLayout,
};
use dubbo_core::BoxFuture;
use dubbo_registry::RegistryError;
use dubbo_url::Url;
use tokio::sync::oneshot;
use tokio_util::sync::{CancellationToken, DropGuard};
use tonic::Status;

use crate::client::{is_unreachable, EtcdClient, PutGuard};
use crate::watch::{spawn_watch, Delivery, Snapshot};

/// A watch: the key's path and the listener's address.
type WatchId = (String, usize);

/// A config centre on etcd v3.
///
/// The value of `key` in `group` is the UTF-8 value of the etcd key
/// `/{namespace}/config/{group}/{key}` (namespace from the URL's `namespace`, default `dubbo`;
/// see [`TreePathLayout`]), the layout of Java's etcd config centre. Values carry no lease.
/// The ticket of a read value is the key's `mod_revision`; a compare-and-publish is one
/// transaction comparing it (or the create revision 0, for a key that must be absent).
///
/// Each listener has its own watch, started just after the revision of the read that
/// `add_listener` returns, so no change falls in between; every event that changes the value
/// is delivered. After the connection or the server comes back the key is read again and
/// only a difference from what the listener last got is delivered.
pub struct EtcdDynamicConfiguration {
    url: Url,
    layout: TreePathLayout,
    client: EtcdClient,
    watches: Mutex<HashMap<WatchId, CancellationToken>>,
    closed: AtomicBool,
    cancel: CancellationToken,
    _guard: DropGuard,
}

impl std::fmt::Debug for EtcdDynamicConfiguration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EtcdDynamicConfiguration")
            .field("address", &self.client.address())
            .field("layout", &self.layout)
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish()
    }
}

impl EtcdDynamicConfiguration {
    /// A config centre for `url` over `client` (which may be shared with a registry, a
    /// discovery and a metadata report of the same cluster). Nothing is sent until the
    /// first call.
    pub fn new(url: &Url, client: EtcdClient) -> Self {
        let cancel = CancellationToken::new();
        Self {
            url: url.clone(),
            layout: TreePathLayout::from_url(url),
            client,
            watches: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            _guard: cancel.clone().drop_guard(),
            cancel,
        }
    }

    /// A config centre with its own connection to the etcd cluster `url` names; fails only
    /// on an unusable URL (etcd itself is first contacted by the first call).
    pub async fn connect(url: &Url) -> Result<Self, ConfigCenterError> {
        match EtcdClient::connect(url).await {
            Ok(client) => Ok(Self::new(url, client)),
            Err(e) => Err(from_registry(e)),
        }
    }

    /// The key of `key` in `group`, once the centre is known to be open.
    fn path(&self, key: &str, group: &str) -> Result<String, ConfigCenterError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ConfigCenterError::Closed {
                address: self.client.address().to_owned(),
            });
        }
        self.layout.path(key, group)
    }

    fn error(&self, operation: &str, status: &Status) -> ConfigCenterError {
        let address = self.client.address().to_owned();
        if is_unreachable(status) {
            return ConfigCenterError::Unreachable {
                address,
                reason: format!("{operation}: {}", status.message()),
            };
        }
        ConfigCenterError::Refused {
            address,
            operation: operation.to_owned(),
            reason: format!("{:?}: {}", status.code(), status.message()),
        }
    }

    fn lock_watches(&self) -> MutexGuard<'_, HashMap<WatchId, CancellationToken>> {
        self.watches.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn listen(
        &self,
        path: String,
        key: String,
        group: String,
        listener: Arc<dyn ConfigListener>,
    ) -> Result<Option<String>, ConfigCenterError> {
        let id = (path.clone(), listener_id(&listener));
        let token = self.cancel.child_token();
        if let Some(old) = self.lock_watches().insert(id.clone(), token.clone()) {
            old.cancel();
        }
        let (first_tx, first_rx) = oneshot::channel();
        let follower = ValueFollower {
            path: path.clone(),
            key,
            group,
            listener,
            stop: token.clone(),
            state: Mutex::new(Following::First(Some(first_tx))),
        };
        // The key itself is the prefix; longer keys sharing it are filtered out by the
        // follower, which only looks at its own key.
        let started = spawn_watch(
            self.client.clone(),
            path,
            Delivery::PerEvent,
            token.clone(),
            move |snapshot: &Snapshot| follower.observe(snapshot),
        )
        .await;
        let outcome = match started {
            Ok(()) => first_rx.await.map_err(|_| ConfigCenterError::Closed {
                address: self.client.address().to_owned(),
            }),
            Err(e) => Err(from_registry(e)),
        };
        if outcome.is_err() {
            token.cancel();
            self.lock_watches().remove(&id);
        }
        outcome
    }
}

/// Where a watch of one value stands.
enum Following {
    /// Waiting for the first read, which goes back to `add_listener`.
    First(Option<oneshot::Sender<Option<String>>>),
    /// The value last delivered (`None`: absent).
    Delivered(Option<String>),
}

/// Turns the snapshots of a watch into the changes of one value for one listener.
struct ValueFollower {
    path: String,
    key: String,
    group: String,
    listener: Arc<dyn ConfigListener>,
    stop: CancellationToken,
    state: Mutex<Following>,
}

impl ValueFollower {
    fn observe(&self, snapshot: &Snapshot) {
        let current = snapshot.get(&self.path).map(|v| text(v));
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let previous = match &mut *state {
            Following::First(first) => {
                if let Some(first) = first.take() {
                    let _ = first.send(current.clone());
                }
                *state = Following::Delivered(current);
                return;
            }
            Following::Delivered(previous) => previous.take(),
        };
        let change = ConfigChangeType::between(previous.as_deref(), current.as_deref());
        if let Some(change) = change.filter(|_| !self.stop.is_cancelled()) {
            self.listener.on_change(&ConfigChangedEvent {
                key: self.key.clone(),
                group: self.group.clone(),
                content: current.clone(),
                change,
            });
        }
        *state = Following::Delivered(current);
    }
}

/// A ticket handed out by this config centre: a key's `mod_revision`.
fn mod_revision(ticket: &ConfigTicket) -> Result<i64, ConfigCenterError> {
    ticket
        .as_str()
        .parse()
        .map_err(|_| ConfigCenterError::Config {
            key: "ticket".to_owned(),
            reason: format!("{:?} is not an etcd mod revision", ticket.as_str()),
        })
}

/// A value as text; bytes that are not UTF-8 become replacement characters, as in Java's
/// `ByteSequence.toString(UTF_8)`.
fn text(value: &[u8]) -> String {
    String::from_utf8_lossy(value).into_owned()
}

fn listener_id(listener: &Arc<dyn ConfigListener>) -> usize {
    Arc::as_ptr(listener) as *const () as usize
}

/// The config centre's error for one of the shared etcd client (a bad URL, a failed watch).
pub(crate) fn from_registry(e: RegistryError) -> ConfigCenterError {
    match e {
        RegistryError::Unreachable { address, reason } => {
            ConfigCenterError::Unreachable { address, reason }
        }
        RegistryError::Config { key, reason } => ConfigCenterError::Config { key, reason },
        other => ConfigCenterError::Refused {
            address: String::new(),
            operation: "etcd call".to_owned(),
            reason: other.to_string(),
        },
    }
}

impl DynamicConfiguration for EtcdDynamicConfiguration {
    fn url(&self) -> &Url {
        &self.url
    }

    fn get_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>> {
        let path = self.path(key, group);
        Box::pin(async move {
            let path = path?;
            match self.client.get(&path).await {
                Ok(found) => Ok(found.map(|kv| text(&kv.value))),
                Err(status) => Err(self.error(&format!("read {path}"), &status)),
            }
        })
    }

    fn get_config_item(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<ConfigItem>, ConfigCenterError>> {
        let path = self.path(key, group);
        Box::pin(async move {
            let path = path?;
            match self.client.get(&path).await {
                Ok(found) => Ok(found.map(|kv| ConfigItem {
                    content: text(&kv.value),
                    ticket: ConfigTicket::new(kv.mod_revision.to_string()),
                })),
                Err(status) => Err(self.error(&format!("read {path}"), &status)),
            }
        })
    }

    fn publish_config(
        &self,
        key: &str,
        group: &str,
        content: &str,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>> {
        let path = self.path(key, group);
        let value = content.as_bytes().to_vec();
        Box::pin(async move {
            let path = path?;
            let written = self.client.put(&path, value, 0).await;
            written.map_err(|status| self.error(&format!("publish {path}"), &status))
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
            let path = self.path(key, group)?;
            let guard = match ticket {
                None => PutGuard::Absent,
                Some(ticket) => PutGuard::ModRevision(mod_revision(ticket)?),
            };
            let written = self
                .client
                .put_if(&path, content.as_bytes().to_vec(), guard)
                .await;
            written.map_err(|status| self.error(&format!("publish {path}"), &status))
        })
    }

    fn remove_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<bool, ConfigCenterError>> {
        let path = self.path(key, group);
        Box::pin(async move {
            let path = path?;
            let deleted = self.client.delete(&path).await;
            deleted.map_err(|status| self.error(&format!("delete {path}"), &status))
        })
    }

    fn add_listener(
        &self,
        key: &str,
        group: &str,
        listener: Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>> {
        let watched = (self.path(key, group), key.to_owned(), group.to_owned());
        Box::pin(async move {
            let (path, key, group) = watched;
            self.listen(path?, key, group, listener).await
        })
    }

    fn remove_listener(
        &self,
        key: &str,
        group: &str,
        listener: &Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>> {
        // A key or group that makes no path was never watched.
        if let Ok(path) = self.layout.path(key, group) {
            let watch = self.lock_watches().remove(&(path, listener_id(listener)));
            if let Some(token) = watch {
                token.cancel();
            }
        }
        Box::pin(async { Ok(()) })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.closed.store(true, Ordering::Release);
        self.cancel.cancel();
        self.lock_watches().clear();
        Box::pin(async {})
    }
}
