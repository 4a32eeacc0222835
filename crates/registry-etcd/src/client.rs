//! [`EtcdClient`]: one gRPC connection to an etcd cluster, shared by the registry, the service
//! discovery and the metadata report of the same address.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dubbo_registry::RegistryError;
use dubbo_url::Url;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::{Channel, Endpoint};
use tonic::{Code, Status, Streaming};

use crate::proto::kv_client::KvClient;
use crate::proto::lease_client::LeaseClient;
use crate::proto::watch_client::WatchClient;
use crate::proto::{
    compare, request_op, Compare, DeleteRangeRequest, KeyValue, LeaseGrantRequest,
    LeaseKeepAliveRequest, LeaseKeepAliveResponse, LeaseRevokeRequest, PutRequest, RangeRequest,
    RequestOp, TxnRequest, WatchRequest, WatchResponse,
};

/// etcd's client port, used when the registry URL names none (Java's `DEFAULT_ETCD_PORT`).
const DEFAULT_PORT: u16 = 2379;
/// How long one unary call may take (Java's `DEFAULT_REQUEST_TIMEOUT`), unless the URL's
/// `timeout` parameter (milliseconds) says otherwise.
const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// What a conditional put ([`EtcdClient::put_if`]) requires of the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PutGuard {
    /// The key does not exist (its create revision is 0).
    Absent,
    /// The key was last modified at this revision.
    ModRevision(i64),
}

/// A connection to one etcd cluster (the registry URL's address plus its `backup` addresses).
///
/// Cheap to clone; clones share the connection. The connection is made lazily and re-made
/// after the server goes away, so creating a client never fails because etcd is down.
#[derive(Clone)]
pub struct EtcdClient {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    address: String,
    channel: Channel,
    connected: AtomicBool,
    request_timeout: Duration,
}

impl EtcdClient {
    /// Prepares a connection to the etcd cluster `url` names: its host and port (2379 when
    /// absent) and the comma-separated `backup` parameter. Fails only on an unusable URL.
    pub async fn connect(url: &Url) -> Result<EtcdClient, RegistryError> {
        let addresses = addresses(url)?;
        let request_timeout = match url.parameter_u64("timeout") {
            Ok(Some(ms)) if ms > 0 => Duration::from_millis(ms),
            Ok(_) => DEFAULT_REQUEST_TIMEOUT,
            Err(e) => {
                return Err(RegistryError::Config {
                    key: "timeout".to_owned(),
                    reason: e.to_string(),
                })
            }
        };
        let mut endpoints = Vec::with_capacity(addresses.len());
        for address in &addresses {
            let endpoint = Endpoint::from_shared(format!("http://{address}"))
                .map_err(|e| RegistryError::Config {
                    key: url.to_full_string(),
                    reason: format!("bad etcd address {address}: {e}"),
                })?
                .connect_timeout(Duration::from_secs(3))
                // Without pings a watch on a silently dead connection would wait forever.
                .http2_keep_alive_interval(Duration::from_secs(5))
                .keep_alive_timeout(Duration::from_secs(5))
                .keep_alive_while_idle(true);
            endpoints.push(endpoint);
        }
        let channel = match endpoints.len() {
            1 => endpoints.remove(0).connect_lazy(),
            _ => Channel::balance_list(endpoints.into_iter()),
        };
        Ok(EtcdClient {
            inner: Arc::new(Inner {
                address: addresses.join(","),
                channel,
                connected: AtomicBool::new(false),
                request_timeout,
            }),
        })
    }

    /// The addresses this client talks to, comma-separated.
    pub fn address(&self) -> &str {
        &self.inner.address
    }

    /// Whether the last call to etcd succeeded.
    pub fn is_connected(&self) -> bool {
        self.inner.connected.load(Ordering::Relaxed)
    }

    /// Whether `other` is a clone of this client (the same connection).
    pub fn same_connection(&self, other: &EtcdClient) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    pub(crate) fn downgrade(&self) -> std::sync::Weak<Inner> {
        Arc::downgrade(&self.inner)
    }

    pub(crate) fn upgrade(weak: &std::sync::Weak<Inner>) -> Option<EtcdClient> {
        weak.upgrade().map(|inner| EtcdClient { inner })
    }

    /// Runs one unary call with the request timeout, recording whether etcd answered.
    async fn call<T, F>(&self, fut: F) -> Result<T, Status>
    where
        F: std::future::Future<Output = Result<tonic::Response<T>, Status>>,
    {
        let result = match tokio::time::timeout(self.inner.request_timeout, fut).await {
            Ok(r) => r.map(tonic::Response::into_inner),
            Err(_) => Err(Status::deadline_exceeded("etcd did not answer in time")),
        };
        self.record(&result);
        result
    }

    pub(crate) fn record<T>(&self, result: &Result<T, Status>) {
        let up = match result {
            Ok(_) => true,
            Err(s) => !is_unreachable(s),
        };
        self.inner.connected.store(up, Ordering::Relaxed);
    }

    /// The typed error for a failed `operation`.
    pub(crate) fn error(&self, operation: &str, status: &Status) -> RegistryError {
        if is_unreachable(status) {
            RegistryError::Unreachable {
                address: self.inner.address.clone(),
                reason: format!("{operation}: {}", status.message()),
            }
        } else {
            RegistryError::Refused {
                address: self.inner.address.clone(),
                operation: operation.to_owned(),
                reason: format!("{:?}: {}", status.code(), status.message()),
            }
        }
    }

    /// Every key in `[key, range_end)` (or `key` alone when `range_end` is empty) and the
    /// store's revision at the time of the read.
    pub(crate) async fn range(
        &self,
        key: &[u8],
        range_end: &[u8],
    ) -> Result<(Vec<KeyValue>, i64), Status> {
        let request = RangeRequest {
            key: key.to_vec(),
            range_end: range_end.to_vec(),
            ..Default::default()
        };
        let mut kv = KvClient::new(self.inner.channel.clone());
        let response = self.call(kv.range(request)).await?;
        let revision = response.header.map(|h| h.revision).unwrap_or_default();
        Ok((response.kvs, revision))
    }

    /// The key-value at `key`, if any.
    pub(crate) async fn get(&self, key: &str) -> Result<Option<KeyValue>, Status> {
        let (kvs, _) = self.range(key.as_bytes(), &[]).await?;
        Ok(kvs.into_iter().next())
    }

    /// Writes `key`, attached to `lease` unless it is 0.
    pub(crate) async fn put(&self, key: &str, value: Vec<u8>, lease: i64) -> Result<(), Status> {
        let request = PutRequest {
            key: key.as_bytes().to_vec(),
            value,
            lease,
            ..Default::default()
        };
        let mut kv = KvClient::new(self.inner.channel.clone());
        self.call(kv.put(request)).await.map(|_| ())
    }

    /// Deletes `key`; whether it existed.
    pub(crate) async fn delete(&self, key: &str) -> Result<bool, Status> {
        let request = DeleteRangeRequest {
            key: key.as_bytes().to_vec(),
            ..Default::default()
        };
        let mut kv = KvClient::new(self.inner.channel.clone());
        let response = self.call(kv.delete_range(request)).await?;
        Ok(response.deleted > 0)
    }

    /// Writes `key` (on no lease) in one transaction if `guard` holds; whether it did.
    pub(crate) async fn put_if(
        &self,
        key: &str,
        value: Vec<u8>,
        guard: PutGuard,
    ) -> Result<bool, Status> {
        let (target, target_union) = match guard {
            PutGuard::Absent => (
                compare::CompareTarget::Create,
                compare::TargetUnion::CreateRevision(0),
            ),
            PutGuard::ModRevision(revision) => (
                compare::CompareTarget::Mod,
                compare::TargetUnion::ModRevision(revision),
            ),
        };
        let request = TxnRequest {
            compare: vec![Compare {
                result: compare::CompareResult::Equal as i32,
                target: target as i32,
                key: key.as_bytes().to_vec(),
                target_union: Some(target_union),
                range_end: Vec::new(),
            }],
            success: vec![RequestOp {
                request: Some(request_op::Request::RequestPut(PutRequest {
                    key: key.as_bytes().to_vec(),
                    value,
                    ..Default::default()
                })),
            }],
            failure: Vec::new(),
        };
        let mut kv = KvClient::new(self.inner.channel.clone());
        Ok(self.call(kv.txn(request)).await?.succeeded)
    }

    /// Grants a lease of `ttl` seconds; returns its id.
    pub(crate) async fn grant(&self, ttl: i64) -> Result<i64, Status> {
        let mut lease = LeaseClient::new(self.inner.channel.clone());
        let response = self
            .call(lease.lease_grant(LeaseGrantRequest { ttl, id: 0 }))
            .await?;
        if response.error.is_empty() {
            Ok(response.id)
        } else {
            Err(Status::failed_precondition(response.error))
        }
    }

    /// Revokes a lease, deleting every key attached to it.
    pub(crate) async fn revoke(&self, id: i64) -> Result<(), Status> {
        let mut lease = LeaseClient::new(self.inner.channel.clone());
        self.call(lease.lease_revoke(LeaseRevokeRequest { id }))
            .await
            .map(|_| ())
    }

    /// Opens a keep-alive stream with `first` as its first request; later requests go
    /// through the returned sender.
    pub(crate) async fn keep_alive(
        &self,
        first: LeaseKeepAliveRequest,
    ) -> Result<
        (
            mpsc::Sender<LeaseKeepAliveRequest>,
            Streaming<LeaseKeepAliveResponse>,
        ),
        Status,
    > {
        let (tx, rx) = mpsc::channel(4);
        // etcd answers the stream's headers only with its first message, so the first request
        // must be queued before waiting for them.
        let _ = tx.try_send(first);
        let mut lease = LeaseClient::new(self.inner.channel.clone());
        let stream = self
            .call(lease.lease_keep_alive(ReceiverStream::new(rx)))
            .await?;
        Ok((tx, stream))
    }

    /// Opens a watch stream with `first` as its first request.
    pub(crate) async fn watch(
        &self,
        first: WatchRequest,
    ) -> Result<(mpsc::Sender<WatchRequest>, Streaming<WatchResponse>), Status> {
        let (tx, rx) = mpsc::channel(4);
        // The channel is fresh, so the first request always fits.
        let _ = tx.try_send(first);
        let mut watch = WatchClient::new(self.inner.channel.clone());
        let stream = self.call(watch.watch(ReceiverStream::new(rx))).await?;
        Ok((tx, stream))
    }
}

/// Whether a failed call means etcd could not be reached (rather than that it said no).
pub(crate) fn is_unreachable(status: &Status) -> bool {
    matches!(
        status.code(),
        Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled | Code::Unknown
    )
}

/// Whether etcd said the lease is gone (expired, revoked, or lost with the server's data).
pub(crate) fn is_lease_not_found(status: &Status) -> bool {
    status.code() == Code::NotFound
}

/// The `host:port` addresses of the cluster: the URL's own, then its `backup` ones.
pub(crate) fn addresses(url: &Url) -> Result<Vec<String>, RegistryError> {
    let host = url.host().unwrap_or_default();
    if host.is_empty() || url.is_any_host() {
        return Err(RegistryError::Config {
            key: url.to_full_string(),
            reason: "the etcd address is missing or is the any-host address".to_owned(),
        });
    }
    let mut out = vec![with_default_port(&format!(
        "{}:{}",
        bracket(host),
        url.port_or(DEFAULT_PORT)
    ))];
    for backup in url.parameter_list("backup") {
        let backup = backup.trim();
        if !backup.is_empty() {
            out.push(with_default_port(backup));
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn bracket(host: &str) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

/// `host` gets etcd's port when it names none, or port 0 (Java's `appendDefaultPort`).
fn with_default_port(address: &str) -> String {
    let address = address
        .trim_start_matches("http://")
        .trim_start_matches("https://");
    match address.rsplit_once(':') {
        Some((host, "0")) => format!("{host}:{DEFAULT_PORT}"),
        Some((host, port)) if !host.is_empty() && !port.contains(']') => address.to_owned(),
        _ => format!("{address}:{DEFAULT_PORT}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_get_default_ports_and_backups() {
        let url = Url::parse("etcd3://10.0.0.1?backup=10.0.0.2:2381,10.0.0.3").unwrap();
        assert_eq!(
            addresses(&url).unwrap(),
            vec!["10.0.0.1:2379", "10.0.0.2:2381", "10.0.0.3:2379"]
        );
        let any = Url::parse("etcd3://0.0.0.0:2379").unwrap();
        assert!(matches!(addresses(&any), Err(RegistryError::Config { .. })));
    }
}
