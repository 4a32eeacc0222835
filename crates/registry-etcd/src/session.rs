//! [`Session`]: one lease kept alive for the ephemeral keys of one registry or discovery, and
//! the re-grant and re-put when the lease is lost.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use dubbo_registry::RegistryError;
use tokio::sync::{Mutex, Notify};
use tokio_util::sync::CancellationToken;

use crate::client::{is_lease_not_found, EtcdClient};
use crate::proto::LeaseKeepAliveRequest;

/// What an ephemeral key holds.
#[derive(Clone, Debug)]
pub(crate) enum EntryValue {
    /// The lease id in decimal, which is what Java's etcd3 registry stores for an ephemeral
    /// URL key; it changes when the lease is re-granted.
    LeaseId,
    /// Fixed bytes (an instance's JSON).
    Bytes(Vec<u8>),
}

impl EntryValue {
    fn bytes(&self, lease: i64) -> Vec<u8> {
        match self {
            EntryValue::LeaseId => lease.to_string().into_bytes(),
            EntryValue::Bytes(b) => b.clone(),
        }
    }
}

#[derive(Default)]
struct State {
    /// The current lease, 0 when none is granted.
    lease: i64,
    /// Every ephemeral key this session keeps, re-put under a new lease when the old is lost.
    entries: BTreeMap<String, EntryValue>,
    /// Whether the keep-alive task runs.
    keeping_alive: bool,
}

/// The lease and ephemeral keys of one owner. Its keep-alive task stops when `cancel` is
/// cancelled (destroy, or the owner dropped): the lease then expires after its TTL, like the
/// session of a crashed process.
pub(crate) struct Session {
    client: EtcdClient,
    ttl: i64,
    state: Mutex<State>,
    lease_changed: Notify,
    cancel: CancellationToken,
}

impl Session {
    pub(crate) fn new(client: EtcdClient, ttl: i64, cancel: CancellationToken) -> Arc<Session> {
        Arc::new(Session {
            client,
            ttl,
            state: Mutex::new(State::default()),
            lease_changed: Notify::new(),
            cancel,
        })
    }

    /// Writes `key` on the session's lease and keeps it there until removed.
    pub(crate) async fn put(
        self: &Arc<Self>,
        key: &str,
        value: EntryValue,
    ) -> Result<(), RegistryError> {
        if self.cancel.is_cancelled() {
            return Err(RegistryError::Closed {
                address: self.client.address().to_owned(),
            });
        }
        let mut state = self.state.lock().await;
        let lease = self.ensure_lease(&mut state).await?;
        match self.client.put(key, value.bytes(lease), lease).await {
            Ok(()) => {}
            Err(status) if is_lease_not_found(&status) => {
                // The lease died between keep-alives; everything on it is gone too.
                state.lease = 0;
                state.entries.insert(key.to_owned(), value);
                return self.reput_all(&mut state).await;
            }
            Err(status) => return Err(self.client.error(&format!("put {key}"), &status)),
        }
        state.entries.insert(key.to_owned(), value);
        Ok(())
    }

    /// Deletes `key` and stops keeping it.
    pub(crate) async fn remove(&self, key: &str) -> Result<(), RegistryError> {
        let mut state = self.state.lock().await;
        state.entries.remove(key);
        self.client
            .delete(key)
            .await
            .map(|_| ())
            .map_err(|s| self.client.error(&format!("delete {key}"), &s))
    }

    /// Stops the keep-alive and revokes the lease, which deletes every key on it at once.
    pub(crate) async fn close(&self) {
        self.cancel.cancel();
        let mut state = self.state.lock().await;
        state.entries.clear();
        let lease = std::mem::take(&mut state.lease);
        if lease != 0 {
            if let Err(status) = self.client.revoke(lease).await {
                tracing::warn!(lease, error = %status, "etcd: could not revoke the lease; its keys expire with its TTL");
            }
        }
    }

    async fn ensure_lease(self: &Arc<Self>, state: &mut State) -> Result<i64, RegistryError> {
        if state.lease == 0 {
            self.grant(state).await?;
        }
        if !state.keeping_alive {
            state.keeping_alive = true;
            let session = Arc::clone(self);
            tokio::spawn(async move { session.keep_alive_loop().await });
        }
        Ok(state.lease)
    }

    /// Grants a lease and wakes the keep-alive task for it.
    async fn grant(&self, state: &mut State) -> Result<i64, RegistryError> {
        state.lease = self
            .client
            .grant(self.ttl)
            .await
            .map_err(|s| self.client.error("grant lease", &s))?;
        self.lease_changed.notify_one();
        Ok(state.lease)
    }

    /// Grants a fresh lease and writes every entry again under it. The keep-alive task is
    /// running already (it is the caller, or was started by the first put).
    async fn reput_all(&self, state: &mut State) -> Result<(), RegistryError> {
        state.lease = 0;
        let lease = self.grant(state).await?;
        for (key, value) in &state.entries {
            if let Err(status) = self.client.put(key, value.bytes(lease), lease).await {
                // Re-grant next time: a half-written lease is not worth keeping.
                state.lease = 0;
                return Err(self.client.error(&format!("re-put {key}"), &status));
            }
        }
        tracing::info!(
            lease,
            keys = state.entries.len(),
            "etcd: ephemeral keys re-put under a new lease"
        );
        Ok(())
    }

    async fn keep_alive_loop(self: Arc<Self>) {
        let mut backoff = Duration::from_millis(200);
        loop {
            let (lease, has_entries) = {
                let state = self.state.lock().await;
                (state.lease, !state.entries.is_empty())
            };
            let outcome = if lease == 0 {
                if has_entries {
                    Outcome::Lost
                } else {
                    tokio::select! {
                        _ = self.cancel.cancelled() => return,
                        _ = self.lease_changed.notified() => continue,
                    }
                }
            } else {
                tokio::select! {
                    _ = self.cancel.cancelled() => return,
                    o = self.keep_alive_once(lease) => o,
                }
            };
            match outcome {
                Outcome::Lost => {
                    tracing::warn!(
                        lease,
                        "etcd: lease lost; granting a new one and re-putting the keys"
                    );
                    let mut state = self.state.lock().await;
                    if self.cancel.is_cancelled() {
                        return;
                    }
                    if state.lease == lease || state.lease == 0 {
                        match self.reput_all(&mut state).await {
                            Ok(()) => backoff = Duration::from_millis(200),
                            Err(e) => {
                                drop(state);
                                tracing::warn!(error = %e, "etcd: could not re-put the ephemeral keys; retrying");
                                if self.sleep(&mut backoff).await {
                                    return;
                                }
                            }
                        }
                    }
                }
                Outcome::Failed(reason) => {
                    tracing::warn!(lease, %reason, "etcd: lease keep-alive failed; retrying");
                    if self.sleep(&mut backoff).await {
                        return;
                    }
                }
                Outcome::Changed => backoff = Duration::from_millis(200),
            }
        }
    }

    /// Sleeps `backoff` (doubling it up to 5 s); true when cancelled meanwhile.
    async fn sleep(&self, backoff: &mut Duration) -> bool {
        let d = *backoff;
        *backoff = (*backoff * 2).min(Duration::from_secs(5));
        tokio::select! {
            _ = self.cancel.cancelled() => true,
            _ = tokio::time::sleep(d) => false,
        }
    }

    /// Keeps `lease` alive until it is lost, the stream fails, or the session moves to
    /// another lease.
    async fn keep_alive_once(&self, lease: i64) -> Outcome {
        let request = LeaseKeepAliveRequest { id: lease };
        let (tx, mut stream) = match self.client.keep_alive(request).await {
            Ok(s) => s,
            Err(status) => return Outcome::Failed(status.to_string()),
        };
        // A third of the TTL leaves two more tries before the lease expires.
        let interval = Duration::from_millis((self.ttl as u64 * 1000 / 3).max(300));
        let mut first = true;
        loop {
            if !std::mem::take(&mut first) && tx.send(request).await.is_err() {
                return Outcome::Failed("keep-alive stream closed".to_owned());
            }
            let answer = tokio::time::timeout(interval * 2, stream.message()).await;
            match answer {
                Err(_) => return Outcome::Failed("no keep-alive answer".to_owned()),
                Ok(Err(status)) => {
                    self.client.record::<()>(&Err(status.clone()));
                    return Outcome::Failed(status.to_string());
                }
                Ok(Ok(None)) => return Outcome::Failed("keep-alive stream ended".to_owned()),
                Ok(Ok(Some(response))) => {
                    self.client.record::<()>(&Ok(()));
                    if response.ttl <= 0 {
                        return Outcome::Lost;
                    }
                }
            }
            tokio::time::sleep(interval).await;
            if self.state.lock().await.lease != lease {
                return Outcome::Changed;
            }
        }
    }
}

enum Outcome {
    /// etcd no longer knows the lease.
    Lost,
    /// The stream failed; the lease may still be alive.
    Failed(String),
    /// The session moved to another lease.
    Changed,
}
