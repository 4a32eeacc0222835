//! [`ZookeeperClient`]: one ZooKeeper session per registry address, kept across disconnects
//! and replaced after expiry, with the ephemeral nodes this process owns re-created.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dubbo_registry::RegistryError;
use dubbo_url::Url;
use tokio::sync::watch;
use tokio_util::sync::{CancellationToken, DropGuard};
use zookeeper_client as zk;

/// Java's default session timeout (`session` parameter), in milliseconds.
pub const DEFAULT_SESSION_TIMEOUT_MS: u64 = 60_000;
/// Java's default connection timeout (`timeout` parameter), in milliseconds.
pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 30_000;
/// The port assumed for an address without one.
pub const DEFAULT_PORT: u16 = 2181;

const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// A live session as the tasks of a registry see it. It is published again after each
/// reconnect and replaced after an expiry, which makes watchers read afresh.
#[derive(Clone)]
pub(crate) struct Session {
    pub(crate) zk: zk::Client,
}

/// What the supervising task and the handles share.
struct Shared {
    address: String,
    session_timeout: Duration,
    connect_timeout: Duration,
    connected: AtomicBool,
    generation: AtomicU64,
    sessions: watch::Sender<Option<Session>>,
    /// Ephemeral nodes this process registered (with the mode of their parents), re-created
    /// on every new session.
    ephemerals: Mutex<BTreeMap<String, (Vec<u8>, zk::CreateMode)>>,
}

/// A ZooKeeper connection shared by the registry, discovery and metadata report of one address.
///
/// A background task owned by this value keeps the session: a disconnect makes calls fail with
/// [`RegistryError::Unreachable`] until the client reconnects; an expired session is replaced by
/// a new one, the ephemeral nodes registered through this client are created again, and every
/// watch is armed again (watchers see a new session and read their nodes afresh). Dropping the
/// last handle stops the task and closes the session.
pub struct ZookeeperClient {
    shared: Arc<Shared>,
    _stop: DropGuard,
}

impl std::fmt::Debug for ZookeeperClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZookeeperClient")
            .field("address", &self.shared.address)
            .field("connected", &self.is_connected())
            .field("generation", &self.session_generation())
            .finish()
    }
}

/// The connect string and timeouts a registry URL asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientConfig {
    pub(crate) address: String,
    pub(crate) session_timeout: Duration,
    pub(crate) connect_timeout: Duration,
}

impl ClientConfig {
    /// Reads `zookeeper://host:port?backup=...&session=...&timeout=...`.
    pub(crate) fn from_url(url: &Url) -> Result<Self, RegistryError> {
        let address = url
            .backup_address(DEFAULT_PORT)
            .map_err(|e| RegistryError::Config {
                key: "address".to_owned(),
                reason: e.to_string(),
            })?;
        if url.host().is_none_or(str::is_empty) {
            return Err(RegistryError::Config {
                key: "address".to_owned(),
                reason: format!("no host in {}", url.to_full_string()),
            });
        }
        let millis = |key: &str, default: u64| -> Result<Duration, RegistryError> {
            let value = url
                .parameter_u64(key)
                .map_err(|e| RegistryError::Config {
                    key: key.to_owned(),
                    reason: e.to_string(),
                })?
                .unwrap_or(default);
            if value == 0 {
                return Err(RegistryError::Config {
                    key: key.to_owned(),
                    reason: "must be positive".to_owned(),
                });
            }
            Ok(Duration::from_millis(value))
        };
        Ok(Self {
            address,
            session_timeout: millis("session", DEFAULT_SESSION_TIMEOUT_MS)?,
            connect_timeout: millis("timeout", DEFAULT_CONNECT_TIMEOUT_MS)?,
        })
    }
}

impl ZookeeperClient {
    /// Connects to the ZooKeeper ensemble `url` names (`zookeeper://host:port`, more hosts in
    /// `backup`), with the session timeout of the `session` parameter (default 60 s) and waiting
    /// at most the `timeout` parameter (default 30 s) for the first session.
    pub async fn connect(url: &Url) -> Result<Arc<ZookeeperClient>, RegistryError> {
        let config = ClientConfig::from_url(url)?;
        Self::connect_with(config).await
    }

    pub(crate) async fn connect_with(
        config: ClientConfig,
    ) -> Result<Arc<ZookeeperClient>, RegistryError> {
        let (sessions, mut first) = watch::channel(None);
        let shared = Arc::new(Shared {
            address: config.address,
            session_timeout: config.session_timeout,
            connect_timeout: config.connect_timeout,
            connected: AtomicBool::new(false),
            generation: AtomicU64::new(0),
            sessions,
            ephemerals: Mutex::new(BTreeMap::new()),
        });
        let stop = CancellationToken::new();
        tokio::spawn(supervise(shared.clone(), stop.clone()));
        let client = Arc::new(ZookeeperClient {
            shared: shared.clone(),
            _stop: stop.drop_guard(),
        });
        let waited =
            tokio::time::timeout(shared.connect_timeout, first.wait_for(|s| s.is_some())).await;
        match waited {
            Ok(Ok(_)) => Ok(client),
            _ => Err(RegistryError::Unreachable {
                address: shared.address.clone(),
                reason: format!(
                    "no session within {} ms",
                    shared.connect_timeout.as_millis()
                ),
            }),
        }
    }

    /// The connect string (`host:port,host:port`).
    pub fn address(&self) -> &str {
        &self.shared.address
    }

    /// Whether the session is connected now.
    pub fn is_connected(&self) -> bool {
        self.shared.connected.load(Ordering::Acquire)
    }

    /// The session timeout asked of the server.
    pub fn session_timeout(&self) -> Duration {
        self.shared.session_timeout
    }

    /// How long a call or the first session may take (the URL's `timeout`).
    pub(crate) fn connect_timeout(&self) -> Duration {
        self.shared.connect_timeout
    }

    /// How many sessions this client has established: 1 after connecting, one more after
    /// each expiry that was recovered from.
    pub fn session_generation(&self) -> u64 {
        self.shared.generation.load(Ordering::Acquire)
    }

    /// The sessions as they come and go, for watch loops.
    pub(crate) fn sessions(&self) -> watch::Receiver<Option<Session>> {
        self.shared.sessions.subscribe()
    }

    fn unreachable(&self, reason: impl Into<String>) -> RegistryError {
        RegistryError::Unreachable {
            address: self.shared.address.clone(),
            reason: reason.into(),
        }
    }

    /// The current session, if connected.
    pub(crate) fn session(&self) -> Result<Session, RegistryError> {
        if !self.is_connected() {
            return Err(self.unreachable("not connected"));
        }
        self.shared
            .sessions
            .borrow()
            .clone()
            .ok_or_else(|| self.unreachable("no session"))
    }

    /// Runs one ZooKeeper operation on the current session, bounded by the connection timeout
    /// so that a call made just as the connection drops does not wait for the reconnect.
    pub(crate) async fn run<T, F, Fut>(&self, operation: &str, f: F) -> Result<T, RegistryError>
    where
        F: FnOnce(zk::Client) -> Fut,
        Fut: Future<Output = Result<T, zk::Error>>,
    {
        let session = self.session()?;
        match tokio::time::timeout(self.shared.connect_timeout, f(session.zk)).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.map_error(operation, e)),
            Err(_) => Err(self.unreachable(format!("{operation} timed out"))),
        }
    }

    /// The project's error for a ZooKeeper error.
    pub(crate) fn map_error(&self, operation: &str, e: zk::Error) -> RegistryError {
        map_error(&self.shared.address, operation, e)
    }

    /// Creates the ephemeral node `path` (parents persistent) and remembers it, so that it is
    /// created again in every later session until [`remove_ephemeral`](Self::remove_ephemeral).
    pub(crate) async fn create_ephemeral(
        &self,
        path: &str,
        data: &[u8],
        parents: zk::CreateMode,
    ) -> Result<(), RegistryError> {
        self.remember(path, data, parents);
        let result = self
            .run(&format!("create {path}"), |zk| async move {
                create_node(&zk, path, data, zk::CreateMode::Ephemeral, parents).await
            })
            .await;
        if result.is_err() {
            self.forget(path);
        }
        result
    }

    /// Replaces the data of the ephemeral node `path`, creating it when it is gone.
    pub(crate) async fn put_ephemeral(
        &self,
        path: &str,
        data: &[u8],
        parents: zk::CreateMode,
    ) -> Result<(), RegistryError> {
        let known = self.remember(path, data, parents);
        let result = self
            .run(&format!("update {path}"), |zk| async move {
                // A node this client did not register may belong to an older session, whose
                // node the server removes later: creating takes it over properly.
                if !known {
                    return create_node(&zk, path, data, zk::CreateMode::Ephemeral, parents).await;
                }
                match zk.set_data(path, data, None).await {
                    Ok(_) => Ok(()),
                    Err(zk::Error::NoNode) => {
                        create_node(&zk, path, data, zk::CreateMode::Ephemeral, parents).await
                    }
                    Err(e) => Err(e),
                }
            })
            .await;
        if result.is_err() && !known {
            self.forget(path);
        }
        result
    }

    /// Deletes the ephemeral node `path` and stops re-creating it.
    pub(crate) async fn remove_ephemeral(&self, path: &str) -> Result<(), RegistryError> {
        self.forget(path);
        self.delete(path).await
    }

    /// Deletes `path`; a node already gone is not an error.
    pub(crate) async fn delete(&self, path: &str) -> Result<(), RegistryError> {
        self.run(&format!("delete {path}"), |zk| async move {
            match zk.delete(path, None).await {
                Ok(()) | Err(zk::Error::NoNode) => Ok(()),
                Err(e) => Err(e),
            }
        })
        .await
    }

    /// Creates the persistent node `path` (and its parents) if it does not exist; data of an
    /// existing node is left alone.
    pub(crate) async fn create_persistent(
        &self,
        path: &str,
        data: &[u8],
    ) -> Result<(), RegistryError> {
        self.run(&format!("create {path}"), |zk| async move {
            create_node(
                &zk,
                path,
                data,
                zk::CreateMode::Persistent,
                zk::CreateMode::Persistent,
            )
            .await
        })
        .await
    }

    /// Writes `data` to the persistent node `path`, creating it (and its parents) if needed.
    pub(crate) async fn put_persistent(
        &self,
        path: &str,
        data: &[u8],
    ) -> Result<(), RegistryError> {
        self.run(&format!("write {path}"), |zk| async move {
            match zk.set_data(path, data, None).await {
                Ok(_) => Ok(()),
                Err(zk::Error::NoNode) => {
                    match create_node(
                        &zk,
                        path,
                        data,
                        zk::CreateMode::Persistent,
                        zk::CreateMode::Persistent,
                    )
                    .await
                    {
                        // Someone created it in between: write over it as asked.
                        Ok(()) => zk.set_data(path, data, None).await.map(|_| ()),
                        Err(e) => Err(e),
                    }
                }
                Err(e) => Err(e),
            }
        })
        .await
    }

    /// The data of `path`, or `None` when there is no such node.
    pub(crate) async fn data(
        &self,
        path: &str,
    ) -> Result<Option<(Vec<u8>, zk::Stat)>, RegistryError> {
        self.run(&format!("read {path}"), |zk| async move {
            match zk.get_data(path).await {
                Ok(v) => Ok(Some(v)),
                Err(zk::Error::NoNode) => Ok(None),
                Err(e) => Err(e),
            }
        })
        .await
    }

    /// The children of `path` (none when there is no such node).
    pub(crate) async fn children(&self, path: &str) -> Result<Vec<String>, RegistryError> {
        self.run(&format!("list {path}"), |zk| async move {
            match zk.list_children(path).await {
                Ok(v) => Ok(v),
                Err(zk::Error::NoNode) => Ok(Vec::new()),
                Err(e) => Err(e),
            }
        })
        .await
    }

    /// Records an ephemeral node; whether it was known before.
    fn remember(&self, path: &str, data: &[u8], parents: zk::CreateMode) -> bool {
        let mut nodes = self
            .shared
            .ephemerals
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        nodes
            .insert(path.to_owned(), (data.to_vec(), parents))
            .is_some()
    }

    fn forget(&self, path: &str) {
        let mut nodes = self
            .shared
            .ephemerals
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        nodes.remove(path);
    }
}

/// The ACL Dubbo uses when no credentials are configured.
pub(crate) fn open_acl(mode: zk::CreateMode) -> zk::CreateOptions<'static> {
    mode.with_acls(zk::Acls::anyone_all())
}

/// Creates `path` with `mode`, its missing parents with `parents` (persistent or container).
///
/// An existing persistent node is kept as it is. An existing ephemeral node of this session
/// gets the new data; one of another session is deleted and created again: after a session
/// expiry (or a restart of the process) the server may still hold the node of the old session
/// for a while, and that node would vanish under us when the server gets to it.
pub(crate) async fn create_node(
    zk: &zk::Client,
    path: &str,
    data: &[u8],
    mode: zk::CreateMode,
    parents: zk::CreateMode,
) -> Result<(), zk::Error> {
    let options = open_acl(mode);
    let mut last = zk::Error::NoNode;
    for _ in 0..4 {
        match zk.create(path, data, &options).await {
            Ok(_) => return Ok(()),
            Err(zk::Error::NoNode) => {
                if let Some(parent) = parent_of(path) {
                    zk.mkdir(parent, &open_acl(parents)).await?;
                }
                last = zk::Error::NoNode;
            }
            Err(zk::Error::NodeExists) if mode == zk::CreateMode::Ephemeral => {
                // Ours already (registered twice): keep it, so watchers see no flap.
                if let Ok((_, stat)) = zk.get_data(path).await {
                    if stat.ephemeral_owner == zk.session_id().0 {
                        return zk.set_data(path, data, None).await.map(|_| ());
                    }
                }
                match zk.delete(path, None).await {
                    Ok(()) | Err(zk::Error::NoNode) => {}
                    Err(e) => return Err(e),
                }
                last = zk::Error::NodeExists;
            }
            Err(zk::Error::NodeExists) => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// The parent of an absolute path, `None` for a child of the root.
pub(crate) fn parent_of(path: &str) -> Option<&str> {
    match path.rfind('/') {
        Some(0) | None => None,
        Some(i) => Some(&path[..i]),
    }
}

/// Maps a ZooKeeper error: connection and session failures are [`RegistryError::Unreachable`]
/// (retryable), the rest are refusals by the server.
pub(crate) fn map_error(address: &str, operation: &str, e: zk::Error) -> RegistryError {
    match e {
        zk::Error::ConnectionLoss
        | zk::Error::SessionExpired
        | zk::Error::SessionMoved
        | zk::Error::ClientClosed
        | zk::Error::Timeout
        | zk::Error::NoHosts
        | zk::Error::Throttled => RegistryError::Unreachable {
            address: address.to_owned(),
            reason: format!("{operation}: {e}"),
        },
        zk::Error::BadVersion | zk::Error::NodeExists => RegistryError::Conflict {
            path: operation.to_owned(),
        },
        other => RegistryError::Refused {
            address: address.to_owned(),
            operation: operation.to_owned(),
            reason: other.to_string(),
        },
    }
}

/// Keeps a session: connects, publishes it, follows its state, and after expiry starts over
/// with a new session that first gets this process's ephemeral nodes back.
async fn supervise(shared: Arc<Shared>, stop: CancellationToken) {
    let mut backoff = Duration::from_millis(100);
    loop {
        let connector = zk::Client::connector().with_session_timeout(shared.session_timeout);
        let attempt = tokio::select! {
            _ = stop.cancelled() => return,
            r = tokio::time::timeout(shared.connect_timeout, connector.connect(&shared.address)) => r,
        };
        let zk = match attempt {
            Ok(Ok(zk)) => zk,
            Ok(Err(e)) => {
                tracing::warn!(address = %shared.address, error = %e, "ZooKeeper session not established; retrying");
                if sleep_or_stop(&stop, &mut backoff).await {
                    return;
                }
                continue;
            }
            Err(_) => {
                tracing::warn!(address = %shared.address, "ZooKeeper session not established in time; retrying");
                if sleep_or_stop(&stop, &mut backoff).await {
                    return;
                }
                continue;
            }
        };
        backoff = Duration::from_millis(100);
        let generation = shared.generation.load(Ordering::Acquire) + 1;
        if generation > 1 {
            restore_ephemerals(&shared, &zk).await;
        }
        shared.generation.store(generation, Ordering::Release);
        shared.connected.store(true, Ordering::Release);
        shared
            .sessions
            .send_replace(Some(Session { zk: zk.clone() }));
        tracing::info!(address = %shared.address, session = ?zk.session_id(), generation, "ZooKeeper session established");

        let mut states = zk.state_watcher();
        loop {
            let state = tokio::select! {
                _ = stop.cancelled() => {
                    shared.connected.store(false, Ordering::Release);
                    shared.sessions.send_replace(None);
                    return;
                }
                s = states.changed() => s,
            };
            match state {
                zk::SessionState::Disconnected => {
                    shared.connected.store(false, Ordering::Release);
                    tracing::warn!(address = %shared.address, "ZooKeeper disconnected; reconnecting");
                }
                zk::SessionState::SyncConnected | zk::SessionState::ConnectedReadOnly => {
                    shared.connected.store(true, Ordering::Release);
                    tracing::info!(address = %shared.address, "ZooKeeper reconnected");
                    // Watches survive a reconnect, but events during the gap can be lost
                    // (ZOOKEEPER-4698): a fresh publish makes every watcher read again.
                    shared
                        .sessions
                        .send_replace(Some(Session { zk: zk.clone() }));
                }
                zk::SessionState::Expired
                | zk::SessionState::Closed
                | zk::SessionState::AuthFailed => {
                    shared.connected.store(false, Ordering::Release);
                    shared.sessions.send_replace(None);
                    tracing::warn!(address = %shared.address, ?state, "ZooKeeper session ended; starting a new one");
                    break;
                }
            }
        }
    }
}

/// Sleeps for `backoff` (doubling it for next time); whether the client was stopped meanwhile.
async fn sleep_or_stop(stop: &CancellationToken, backoff: &mut Duration) -> bool {
    let wait = *backoff;
    *backoff = (*backoff * 2).min(MAX_BACKOFF);
    tokio::select! {
        _ = stop.cancelled() => true,
        _ = tokio::time::sleep(wait) => false,
    }
}

async fn restore_ephemerals(shared: &Shared, zk: &zk::Client) {
    let nodes: Vec<(String, (Vec<u8>, zk::CreateMode))> = {
        let nodes = shared
            .ephemerals
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        nodes.iter().map(|(p, d)| (p.clone(), d.clone())).collect()
    };
    for (path, (data, parents)) in nodes {
        match create_node(zk, &path, &data, zk::CreateMode::Ephemeral, parents).await {
            Ok(()) => tracing::info!(%path, "re-created ephemeral node in the new session"),
            Err(e) => {
                tracing::warn!(%path, error = %e, "could not re-create ephemeral node in the new session")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_follows_java_defaults() {
        let url = Url::parse("zookeeper://127.0.0.1:2181").unwrap();
        let c = ClientConfig::from_url(&url).unwrap();
        assert_eq!(c.address, "127.0.0.1:2181");
        assert_eq!(c.session_timeout, Duration::from_millis(60_000));
        assert_eq!(c.connect_timeout, Duration::from_millis(30_000));
        let url =
            Url::parse("zookeeper://127.0.0.1?backup=127.0.0.1:2182&session=4000&timeout=5000")
                .unwrap();
        let c = ClientConfig::from_url(&url).unwrap();
        assert_eq!(c.address, "127.0.0.1:2181,127.0.0.1:2182");
        assert_eq!(c.session_timeout, Duration::from_millis(4000));
        assert_eq!(c.connect_timeout, Duration::from_millis(5000));
        let bad = Url::parse("zookeeper://127.0.0.1:2181?session=abc").unwrap();
        assert_eq!(
            ClientConfig::from_url(&bad).unwrap_err().code(),
            "REGISTRY_CONFIG"
        );
    }

    #[test]
    fn parents() {
        assert_eq!(parent_of("/a/b/c"), Some("/a/b"));
        assert_eq!(parent_of("/a"), None);
    }
}
