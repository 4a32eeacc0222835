//! [`EtcdRegistry`]: interface-level registry on etcd, in Java's etcd3 key layout.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use dubbo_core::BoxFuture;
use dubbo_registry::{Category, Notification, NotifyListener, Registry, RegistryError};
use dubbo_url::Url;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::client::{EtcdClient, PutGuard};
use crate::layout::{category_path, child, java_hash, registered_interface, root, url_key};
use crate::matching::is_match;
use crate::session::{EntryValue, Session};
use crate::watch::{prefix_end, spawn_watch, Delivery, Snapshot};

/// Java's `DEFAULT_KEEPALIVE_TIMEOUT`: 30 s when the URL has no `session` (milliseconds).
const DEFAULT_SESSION_MS: u64 = 30_000;

/// A subscription: one watch per category, stopped together.
type SubKey = (String, usize);

/// An interface-level [`Registry`] on etcd v3.
///
/// Keys are Java's: `/{group}/{encoded interface}/{category}/{encoded full URL}`, the group
/// defaulting to `dubbo`. Dynamic URLs (the default) are written on a lease of `session`
/// milliseconds / 1000 seconds (30 s by default) kept alive by a background task; the value
/// is the lease id, as Java writes it. Static URLs (`dynamic=false`) are persistent.
pub struct EtcdRegistry {
    url: Url,
    root: String,
    client: EtcdClient,
    session: Arc<Session>,
    subscriptions: Mutex<HashMap<SubKey, CancellationToken>>,
    cancel: CancellationToken,
    closed: AtomicBool,
    // Dropping the registry without destroy stops its tasks; the lease then lapses.
    _guard: DropGuard,
}

impl EtcdRegistry {
    /// A registry for `url` over `client` (which may be shared with a discovery and a report
    /// of the same address). Nothing is sent until the first call.
    pub fn new(url: &Url, client: EtcdClient) -> Result<EtcdRegistry, RegistryError> {
        let cancel = CancellationToken::new();
        let ttl = lease_ttl(url)?;
        Ok(EtcdRegistry {
            url: url.clone(),
            root: root(url),
            session: Session::new(client.clone(), ttl, cancel.child_token()),
            client,
            subscriptions: Mutex::new(HashMap::new()),
            _guard: cancel.clone().drop_guard(),
            cancel,
            closed: AtomicBool::new(false),
        })
    }

    fn check_open(&self) -> Result<(), RegistryError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(RegistryError::Closed {
                address: self.client.address().to_owned(),
            });
        }
        Ok(())
    }

    /// Writes the category "directory" key if absent, as Java's subscriber does.
    async fn ensure_dir(&self, path: &str) -> Result<(), RegistryError> {
        ensure_dir(&self.client, path).await
    }

    async fn do_subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> Result<(), RegistryError> {
        self.check_open()?;
        let interface = consumer.service_interface().unwrap_or_default().to_owned();
        if interface.is_empty() || interface == "*" {
            return Err(RegistryError::Config {
                key: "interface".to_owned(),
                reason: "the etcd registry subscribes to one named interface; `*` is not supported"
                    .to_owned(),
            });
        }
        let key = (consumer.to_full_string(), listener_id(&listener));
        let token = self.cancel.child_token();
        if let Some(old) = self.lock_subs().insert(key.clone(), token.clone()) {
            old.cancel();
        }
        for category in categories(consumer) {
            let path = category_path(&self.root, &interface, category);
            let result = async {
                self.ensure_dir(&path).await?;
                let consumer = consumer.clone();
                let listener = Arc::clone(&listener);
                let parent = path.clone();
                spawn_watch(
                    self.client.clone(),
                    format!("{path}/"),
                    Delivery::PerBatch,
                    token.clone(),
                    move |snapshot: &Snapshot| {
                        listener.notify(Notification {
                            category,
                            urls: urls_with_empty(&consumer, &parent, category, snapshot).into(),
                        })
                    },
                )
                .await
            }
            .await;
            if let Err(e) = result {
                token.cancel();
                self.lock_subs().remove(&key);
                return Err(e);
            }
        }
        Ok(())
    }

    fn lock_subs(&self) -> std::sync::MutexGuard<'_, HashMap<SubKey, CancellationToken>> {
        self.subscriptions.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Registry for EtcdRegistry {
    fn url(&self) -> &Url {
        &self.url
    }

    fn register(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            self.check_open()?;
            let key = url_key(&self.root, &url);
            if url.parameter_bool_or("dynamic", true) {
                self.session.put(&key, EntryValue::LeaseId).await
            } else {
                self.client
                    .put(&key, java_hash(&key).into_bytes(), 0)
                    .await
                    .map_err(|s| self.client.error(&format!("register {key}"), &s))
            }
        })
    }

    fn unregister(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            self.check_open()?;
            self.session.remove(&url_key(&self.root, &url)).await
        })
    }

    fn subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let consumer = consumer.clone();
        Box::pin(async move { self.do_subscribe(&consumer, listener).await })
    }

    fn unsubscribe(
        &self,
        consumer: &Url,
        listener: &Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = (consumer.to_full_string(), listener_id(listener));
        Box::pin(async move {
            if let Some(token) = self.lock_subs().remove(&key) {
                token.cancel();
            }
            Ok(())
        })
    }

    fn services(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        Box::pin(async move {
            self.check_open()?;
            let prefix = format!("{}/", self.root.trim_end_matches('/'));
            let (kvs, _) = self
                .client
                .range(prefix.as_bytes(), &prefix_end(prefix.as_bytes()))
                .await
                .map_err(|s| self.client.error(&format!("read {prefix}"), &s))?;
            let mut services: Vec<String> = kvs
                .iter()
                .filter_map(|kv| std::str::from_utf8(&kv.key).ok())
                .filter_map(|key| registered_interface(&self.root, key))
                .collect();
            services.sort();
            services.dedup();
            Ok(services)
        })
    }

    fn lookup(&self, consumer: &Url) -> BoxFuture<'_, Result<Vec<Url>, RegistryError>> {
        let consumer = consumer.clone();
        Box::pin(async move {
            self.check_open()?;
            let interface = consumer.service_interface().unwrap_or_default();
            let mut out = Vec::new();
            for category in categories(&consumer) {
                let path = category_path(&self.root, interface, category);
                let prefix = format!("{path}/");
                let (kvs, _) = self
                    .client
                    .range(prefix.as_bytes(), &prefix_end(prefix.as_bytes()))
                    .await
                    .map_err(|s| self.client.error(&format!("read {path}"), &s))?;
                let snapshot: Snapshot = kvs
                    .into_iter()
                    .filter_map(|kv| String::from_utf8(kv.key).ok().map(|k| (k, kv.value)))
                    .collect();
                out.extend(urls(&consumer, &path, &snapshot));
            }
            Ok(out)
        })
    }

    fn is_available(&self) -> bool {
        !self.closed.load(Ordering::Acquire) && self.client.is_connected()
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if self.closed.swap(true, Ordering::AcqRel) {
                return;
            }
            for (_, token) in self.lock_subs().drain() {
                token.cancel();
            }
            // Revoking the lease withdraws every dynamic registration at once; static ones
            // stay, as in Java.
            self.session.close().await;
            self.cancel.cancel();
        })
    }
}

/// The lease TTL in seconds from `session` (milliseconds), as Java's client computes it.
pub(crate) fn lease_ttl(url: &Url) -> Result<i64, RegistryError> {
    let ms = url
        .parameter_u64("session")
        .map_err(|e| RegistryError::Config {
            key: "session".to_owned(),
            reason: e.to_string(),
        })?
        .unwrap_or(DEFAULT_SESSION_MS);
    let secs = ms / 1000;
    Ok(if secs == 0 {
        (DEFAULT_SESSION_MS / 1000) as i64
    } else {
        i64::try_from(secs).unwrap_or(i64::MAX)
    })
}

/// Writes `path` with Java's marker value unless it exists.
pub(crate) async fn ensure_dir(client: &EtcdClient, path: &str) -> Result<(), RegistryError> {
    client
        .put_if(path, java_hash(path).into_bytes(), PutGuard::Absent)
        .await
        .map(|_| ())
        .map_err(|s| client.error(&format!("create {path}"), &s))
}

fn listener_id(listener: &Arc<dyn NotifyListener>) -> usize {
    Arc::as_ptr(listener) as *const () as usize
}

/// The categories `consumer` asks for: its `category` list, `*` for all, providers by default.
fn categories(consumer: &Url) -> Vec<Category> {
    let wanted = consumer.parameter_list("category");
    if wanted.is_empty() {
        return vec![Category::Providers];
    }
    if wanted.contains(&"*") {
        return Category::ALL.to_vec();
    }
    let mut out: Vec<Category> = wanted.iter().filter_map(|c| Category::parse(c)).collect();
    out.dedup();
    out
}

/// The URLs under `path` that match `consumer`; keys that do not decode to a URL are skipped
/// with a warning naming them.
fn urls(consumer: &Url, path: &str, snapshot: &Snapshot) -> Vec<Url> {
    let mut out = Vec::new();
    for key in snapshot.keys() {
        let Some(child) = child(path, key) else {
            continue;
        };
        let decoded = match dubbo_url::decode(child) {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(key = %key, error = %e, "etcd: skipped a key that is not a URL-encoded URL");
                continue;
            }
        };
        // Java ignores children without a scheme (its own directory markers, foreign keys).
        if !decoded.contains("://") {
            tracing::warn!(key = %key, "etcd: skipped a key that is not a URL");
            continue;
        }
        match Url::parse(&decoded) {
            Ok(url) if is_match(consumer, &url) => out.push(url),
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(key = %key, error = %e, "etcd: skipped a key whose URL does not parse")
            }
        }
    }
    out
}

/// [`urls`], or the single `empty://` URL Java pushes for an empty category.
fn urls_with_empty(
    consumer: &Url,
    path: &str,
    category: Category,
    snapshot: &Snapshot,
) -> Vec<Url> {
    let found = urls(consumer, path, snapshot);
    if found.is_empty() {
        vec![consumer
            .with_protocol("empty")
            .with_parameter("category", category.as_str())]
    } else {
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttl_from_session_millis() {
        let ttl = |s: &str| lease_ttl(&Url::parse(s).unwrap()).unwrap();
        assert_eq!(ttl("etcd3://h:1"), 30);
        assert_eq!(ttl("etcd3://h:1?session=2000"), 2);
        assert_eq!(ttl("etcd3://h:1?session=500"), 30);
        assert!(lease_ttl(&Url::parse("etcd3://h:1?session=x").unwrap()).is_err());
    }

    #[test]
    fn categories_default_to_providers() {
        let c = |s: &str| categories(&Url::parse(s).unwrap());
        assert_eq!(c("consumer://h/a?interface=a"), vec![Category::Providers]);
        assert_eq!(c("consumer://h/a?category=*").len(), 4);
        assert_eq!(
            c("consumer://h/a?category=providers,routers"),
            vec![Category::Providers, Category::Routers]
        );
    }
}
