//! The watch loop: read a node, arm a one-shot watch, wait, and read again; across
//! reconnects and new sessions, until cancelled.

use std::sync::Arc;
use std::time::Duration;

use dubbo_core::BoxFuture;
use tokio_util::sync::CancellationToken;
use zookeeper_client as zk;

use crate::client::ZookeeperClient;

/// Completes when the watched node changes (or the session does).
pub(crate) type Changed = BoxFuture<'static, ()>;

/// Something watched in ZooKeeper: a node's children or data.
pub(crate) trait Watched: Send + 'static {
    /// The node, for logs.
    fn path(&self) -> &str;

    /// Reads the current state through `zk`, hands it to the listener, and returns the
    /// watches armed by the read, as one future.
    fn read<'a>(&'a mut self, zk: &'a zk::Client) -> BoxFuture<'a, Result<Changed, zk::Error>>;
}

/// Runs `target`'s watch loop on a task until `stop` is cancelled.
///
/// Watches are one-shot, so each event is followed by a new read that re-arms the watch. A
/// new session or a reconnect (published by the client) also triggers a read, which is how
/// subscriptions come back after an expiry and catch changes made during an outage.
pub(crate) fn spawn_watch<W: Watched>(
    client: Arc<ZookeeperClient>,
    stop: CancellationToken,
    mut target: W,
) {
    tokio::spawn(async move {
        let mut sessions = client.sessions();
        let mut retry = Duration::from_millis(100);
        loop {
            let current = sessions.borrow_and_update().clone();
            let Some(session) = current else {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    changed = sessions.changed() => if changed.is_err() { return },
                }
                continue;
            };
            let read = tokio::select! {
                _ = stop.cancelled() => return,
                r = target.read(&session.zk) => r,
            };
            match read {
                Ok(watcher) => {
                    retry = Duration::from_millis(100);
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        _ = watcher => {}
                        changed = sessions.changed() => if changed.is_err() { return },
                    }
                }
                Err(e) => {
                    tracing::debug!(path = target.path(), error = %e, "watch read failed; retrying");
                    tokio::select! {
                        _ = stop.cancelled() => return,
                        _ = tokio::time::sleep(retry) => {}
                        changed = sessions.changed() => if changed.is_err() { return },
                    }
                    retry = (retry * 2).min(Duration::from_secs(2));
                }
            }
        }
    });
}
