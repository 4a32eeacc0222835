//! [`spawn_watch`]: keeps a live copy of the keys under a prefix and reports every change,
//! re-reading everything and re-arming the watch after the connection comes back.

use std::collections::BTreeMap;
use std::time::Duration;

use dubbo_registry::RegistryError;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::client::EtcdClient;
use crate::proto::{event::EventType, watch_request, WatchCreateRequest, WatchRequest};

/// The keys under a prefix and their values.
pub(crate) type Snapshot = BTreeMap<String, Vec<u8>>;

/// The end of the range of every key starting with `prefix` (etcd's prefix convention).
pub(crate) fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    // All 0xff: to the end of the key space.
    vec![0]
}

/// How often [`spawn_watch`] hands the snapshot over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// Once per batch of events etcd sends together: lists pushed whole (registry, discovery).
    PerBatch,
    /// After every event that changed the snapshot: single values whose every change counts
    /// (the config centre), even when etcd sends several in one response.
    PerEvent,
}

/// Watches every key starting with `prefix` until `cancel`. `on_change` gets the whole
/// snapshot: first after the initial read, then after each batch of events (or each event,
/// per `delivery`) that changed it, and again after every re-sync following a lost
/// connection.
///
/// Returns once the first snapshot was delivered, or with the error of the first read (the
/// task is then stopped, so the caller can retry the whole subscription).
pub(crate) async fn spawn_watch<F>(
    client: EtcdClient,
    prefix: String,
    delivery: Delivery,
    cancel: CancellationToken,
    on_change: F,
) -> Result<(), RegistryError>
where
    F: Fn(&Snapshot) + Send + Sync + 'static,
{
    let (first_tx, first_rx) = oneshot::channel();
    let task_cancel = cancel.clone();
    tokio::spawn(async move {
        let mut first = Some(first_tx);
        let mut backoff = Duration::from_millis(200);
        loop {
            let result = tokio::select! {
                _ = task_cancel.cancelled() => return,
                r = watch_once(&client, &prefix, delivery, &on_change, &mut first) => r,
            };
            let error = match result {
                Ok(()) => continue,
                Err(e) => e,
            };
            if let Some(first) = first.take() {
                let _ = first.send(Err(error));
                return;
            }
            tracing::warn!(prefix = %prefix, error = %error, "etcd: watch interrupted; re-reading and re-watching");
            let wait = backoff;
            backoff = (backoff * 2).min(Duration::from_secs(5));
            tokio::select! {
                _ = task_cancel.cancelled() => return,
                _ = tokio::time::sleep(wait) => {}
            }
        }
    });
    match first_rx.await {
        Ok(result) => result,
        // The task ended without a word: it was cancelled.
        Err(_) => Ok(()),
    }
}

/// One read-then-watch cycle; returns only with an error (the stream never ends on its own).
async fn watch_once<F>(
    client: &EtcdClient,
    prefix: &str,
    delivery: Delivery,
    on_change: &F,
    first: &mut Option<oneshot::Sender<Result<(), RegistryError>>>,
) -> Result<(), RegistryError>
where
    F: Fn(&Snapshot) + Send + Sync + 'static,
{
    let end = prefix_end(prefix.as_bytes());
    let (kvs, revision) = client
        .range(prefix.as_bytes(), &end)
        .await
        .map_err(|s| client.error(&format!("read {prefix}"), &s))?;
    let mut snapshot: Snapshot = kvs
        .into_iter()
        .filter_map(|kv| String::from_utf8(kv.key).ok().map(|k| (k, kv.value)))
        .collect();
    // Watching from just after the read misses nothing and repeats nothing.
    let create = WatchRequest {
        request_union: Some(watch_request::RequestUnion::CreateRequest(
            WatchCreateRequest {
                key: prefix.as_bytes().to_vec(),
                range_end: end,
                start_revision: revision + 1,
                ..Default::default()
            },
        )),
    };
    let (_requests, mut stream) = client
        .watch(create)
        .await
        .map_err(|s| client.error(&format!("watch {prefix}"), &s))?;
    on_change(&snapshot);
    if let Some(first) = first.take() {
        let _ = first.send(Ok(()));
    }
    loop {
        let response = match stream.message().await {
            Ok(Some(r)) => r,
            Ok(None) => return Err(unreachable(client, prefix, "the watch stream ended")),
            Err(status) => {
                client.record::<()>(&Err(status.clone()));
                return Err(client.error(&format!("watch {prefix}"), &status));
            }
        };
        if response.canceled {
            return Err(unreachable(
                client,
                prefix,
                &format!("etcd cancelled the watch: {}", response.cancel_reason),
            ));
        }
        let mut changed = false;
        for event in response.events {
            let Some(kv) = event.kv else { continue };
            let Ok(key) = String::from_utf8(kv.key) else {
                tracing::warn!(prefix = %prefix, "etcd: skipped a key that is not UTF-8");
                continue;
            };
            let changed_now = if event.r#type == EventType::Delete as i32 {
                snapshot.remove(&key).is_some()
            } else {
                let differs = snapshot.get(&key) != Some(&kv.value);
                snapshot.insert(key, kv.value);
                differs
            };
            if changed_now && delivery == Delivery::PerEvent {
                on_change(&snapshot);
            } else {
                changed |= changed_now;
            }
        }
        if changed {
            on_change(&snapshot);
        }
    }
}

fn unreachable(client: &EtcdClient, prefix: &str, reason: &str) -> RegistryError {
    RegistryError::Unreachable {
        address: client.address().to_owned(),
        reason: format!("watch {prefix}: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_end_increments_the_last_byte() {
        assert_eq!(prefix_end(b"/dubbo/a/"), b"/dubbo/a0".to_vec());
        assert_eq!(prefix_end(&[b'a', 0xff]), b"b".to_vec());
        assert_eq!(prefix_end(&[0xff]), vec![0]);
    }
}
