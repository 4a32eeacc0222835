//! [`FileDynamicConfiguration`]: the config centre of the embedded file registry, values as
//! files under `dubbo/config/{group}/{key}` (ZooKeeper's layout), watched by polling.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dubbo_config_center::{
    ConfigCenterError, ConfigChangeType, ConfigChangedEvent, ConfigItem, ConfigListener,
    ConfigTicket, DynamicConfiguration,
};
use dubbo_core::BoxFuture;
use dubbo_url::Url;
use md5::Digest;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::layout::{poll_period, Layout};
use super::poller;
use crate::atomic_file::{inode, try_lock, write_atomic};

/// How long a compare-and-publish waits for another writer's lock before giving up.
const CAS_LOCK_WAIT: Duration = Duration::from_secs(5);

/// A [`DynamicConfiguration`] kept in the file registry's directory, so that every process
/// opening the same directory shares one config centre without a server.
///
/// Values are whole files replaced atomically; a compare-and-publish holds an exclusive
/// `flock` on a lock file beside the value, and its ticket is the MD5 of the content read.
/// Watched keys are polled every `poll.period` ms (default 300): a change is a new inode or
/// modification time, and each listener is told only what differs from what it was last told.
pub struct FileDynamicConfiguration {
    inner: Arc<Inner>,
}

struct Inner {
    url: Url,
    layout: Layout,
    watches: Mutex<HashMap<(String, String), Watch>>,
    cancel: CancellationToken,
    wake: Arc<Notify>,
}

struct Watch {
    /// The version of the value's file last read (`None`: no file).
    seen: Option<FileVersion>,
    /// Each listener with the value it was last given.
    listeners: Vec<(Arc<dyn ConfigListener>, Option<String>)>,
}

impl FileDynamicConfiguration {
    /// Opens the config centre `url` names (same URL forms as
    /// [`FileRegistry`](super::FileRegistry)) and starts the poller of its watches. Must run
    /// inside a tokio runtime.
    pub fn open(url: &Url) -> Result<Self, ConfigCenterError> {
        let inner = Arc::new(Inner {
            url: url.clone(),
            layout: Layout::from_url(url)?,
            watches: Mutex::default(),
            cancel: CancellationToken::new(),
            wake: Arc::new(Notify::new()),
        });
        poller::spawn(
            Arc::downgrade(&inner),
            poll_period(url),
            inner.wake.clone(),
            inner.cancel.clone(),
            Inner::tick,
        )?;
        Ok(Self { inner })
    }
}

impl Drop for FileDynamicConfiguration {
    fn drop(&mut self) {
        self.inner.cancel.cancel();
    }
}

/// What tells one write of a value from the next: the inode alone does not, since a value
/// removed and written again may get the freed inode back.
type FileVersion = (u64, Option<std::time::SystemTime>);

fn version_of(meta: &std::fs::Metadata) -> FileVersion {
    (inode(meta), meta.modified().ok())
}

/// The value in `path` with its version; `None` when there is no file.
fn read_value(path: &Path) -> Result<Option<(FileVersion, String)>, ConfigCenterError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ConfigCenterError::io(path, &e)),
    };
    let ino = file
        .metadata()
        .map(|m| version_of(&m))
        .map_err(|e| ConfigCenterError::io(path, &e))?;
    let text = std::io::read_to_string(file).map_err(|e| ConfigCenterError::io(path, &e))?;
    Ok(Some((ino, text)))
}

fn ticket_of(content: &str) -> ConfigTicket {
    let digest = md5::Md5::digest(content.as_bytes());
    ConfigTicket::new(
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>(),
    )
}

/// The event that takes a listener from `before` to `after`, if they differ.
fn change(before: Option<&str>, after: Option<&str>) -> Option<ConfigChangeType> {
    match (before, after) {
        (None, Some(_)) => Some(ConfigChangeType::Added),
        (Some(a), Some(b)) if a != b => Some(ConfigChangeType::Modified),
        (Some(_), None) => Some(ConfigChangeType::Deleted),
        _ => None,
    }
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Watch>> {
        self.watches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn tick(&self) {
        let mut events = Vec::new();
        {
            let mut watches = self.lock();
            for ((group, key), w) in watches.iter_mut() {
                let path = self.layout.config_file(group, key);
                let now = std::fs::metadata(&path).ok().map(|m| version_of(&m));
                if now == w.seen {
                    continue;
                }
                let value = match read_value(&path) {
                    Ok(v) => v,
                    Err(e) => {
                        tracing::warn!(code = e.code(), error = %e, "cannot read a config value");
                        continue;
                    }
                };
                w.seen = value.as_ref().map(|(ino, _)| *ino);
                let content = value.map(|(_, text)| text);
                for (listener, last) in w.listeners.iter_mut() {
                    if let Some(kind) = change(last.as_deref(), content.as_deref()) {
                        *last = content.clone();
                        let event = ConfigChangedEvent {
                            key: key.clone(),
                            group: group.clone(),
                            content: content.clone(),
                            change: kind,
                        };
                        events.push((Arc::clone(listener), event));
                    }
                }
            }
        }
        // Outside the lock: a listener may add or remove watches.
        for (listener, event) in events {
            listener.on_change(&event);
        }
    }

    fn closed(&self) -> Result<(), ConfigCenterError> {
        if self.cancel.is_cancelled() {
            return Err(ConfigCenterError::Closed {
                address: self.url.to_string(),
            });
        }
        Ok(())
    }

    fn get(&self, key: &str, group: &str) -> Result<Option<ConfigItem>, ConfigCenterError> {
        self.closed()?;
        Ok(
            read_value(&self.layout.config_file(group, key))?.map(|(_, content)| ConfigItem {
                ticket: ticket_of(&content),
                content,
            }),
        )
    }

    fn publish(&self, key: &str, group: &str, content: &str) -> Result<(), ConfigCenterError> {
        self.closed()?;
        write_atomic(&self.layout.config_file(group, key), content.as_bytes())?;
        self.wake.notify_one();
        Ok(())
    }

    /// One compare-and-publish attempt under the lock; `None` when the lock is busy.
    fn try_cas(
        &self,
        key: &str,
        group: &str,
        content: &str,
        ticket: Option<&ConfigTicket>,
    ) -> Result<Option<bool>, ConfigCenterError> {
        let Some(_lock) = try_lock(&self.layout.config_lock(group, key))? else {
            return Ok(None);
        };
        let current = self.get(key, group)?.map(|item| item.ticket);
        if current.as_ref() != ticket {
            return Ok(Some(false));
        }
        self.publish(key, group, content)?;
        Ok(Some(true))
    }

    fn remove(&self, key: &str, group: &str) -> Result<bool, ConfigCenterError> {
        self.closed()?;
        let path = self.layout.config_file(group, key);
        match std::fs::remove_file(&path) {
            Ok(()) => {
                self.wake.notify_one();
                Ok(true)
            }
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
            Err(e) => Err(ConfigCenterError::io(&path, &e)),
        }
    }
}

impl DynamicConfiguration for FileDynamicConfiguration {
    fn url(&self) -> &Url {
        &self.inner.url
    }

    fn get_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>> {
        let r = self.inner.get(key, group).map(|i| i.map(|i| i.content));
        Box::pin(async move { r })
    }

    fn get_config_item(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<ConfigItem>, ConfigCenterError>> {
        let r = self.inner.get(key, group);
        Box::pin(async move { r })
    }

    fn publish_config(
        &self,
        key: &str,
        group: &str,
        content: &str,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>> {
        let r = self.inner.publish(key, group, content);
        Box::pin(async move { r })
    }

    fn publish_config_cas<'a>(
        &'a self,
        key: &'a str,
        group: &'a str,
        content: &'a str,
        ticket: Option<&'a ConfigTicket>,
    ) -> BoxFuture<'a, Result<bool, ConfigCenterError>> {
        Box::pin(async move {
            self.inner.closed()?;
            let deadline = tokio::time::Instant::now() + CAS_LOCK_WAIT;
            loop {
                if let Some(won) = self.inner.try_cas(key, group, content, ticket)? {
                    return Ok(won);
                }
                if tokio::time::Instant::now() >= deadline {
                    return Err(ConfigCenterError::Refused {
                        address: self.inner.url.to_string(),
                        operation: format!("publish {group}/{key}"),
                        reason: "another writer holds the lock".to_owned(),
                    });
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    }

    fn remove_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<bool, ConfigCenterError>> {
        let r = self.inner.remove(key, group);
        Box::pin(async move { r })
    }

    fn add_listener(
        &self,
        key: &str,
        group: &str,
        listener: Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>> {
        let r = (|| {
            self.inner.closed()?;
            // Read and register under the watch lock, so the tick cannot deliver a change
            // between the two (the listener would then see it twice or miss it).
            let mut watches = self.inner.lock();
            let value = read_value(&self.inner.layout.config_file(group, key))?;
            let content = value.as_ref().map(|(_, text)| text.clone());
            let w = watches
                .entry((group.to_owned(), key.to_owned()))
                .or_insert(Watch {
                    seen: value.as_ref().map(|(ino, _)| *ino),
                    listeners: Vec::new(),
                });
            w.listeners.push((listener, content.clone()));
            Ok(content)
        })();
        Box::pin(async move { r })
    }

    fn remove_listener(
        &self,
        key: &str,
        group: &str,
        listener: &Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>> {
        let mut watches = self.inner.lock();
        let id = (group.to_owned(), key.to_owned());
        if let Some(w) = watches.get_mut(&id) {
            w.listeners.retain(|(l, _)| !Arc::ptr_eq(l, listener));
            if w.listeners.is_empty() {
                watches.remove(&id);
            }
        }
        Box::pin(async { Ok(()) })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        self.inner.cancel.cancel();
        self.inner.lock().clear();
        Box::pin(async {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &Path) -> FileDynamicConfiguration {
        let url = Url::parse(&format!("file://{}?poll.period=20", dir.display())).unwrap();
        FileDynamicConfiguration::open(&url).unwrap()
    }

    type Seen = Arc<Mutex<Vec<(ConfigChangeType, Option<String>)>>>;

    fn recorder() -> (Arc<dyn ConfigListener>, Seen) {
        let seen: Seen = Arc::default();
        let s = Arc::clone(&seen);
        let listener = move |e: &ConfigChangedEvent| {
            s.lock().unwrap().push((e.change, e.content.clone()));
        };
        (Arc::new(listener), seen)
    }

    type Events = Vec<(ConfigChangeType, Option<String>)>;

    /// The events seen once `done` holds of them (or after 10 s, for the assertion to say).
    async fn wait_until(seen: &Seen, done: impl Fn(&Events) -> bool) -> Events {
        for _ in 0..1000 {
            if done(&seen.lock().unwrap()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        seen.lock().unwrap().clone()
    }

    async fn wait_for(seen: &Seen, n: usize) -> Events {
        wait_until(seen, |got| got.len() >= n).await
    }

    #[tokio::test]
    async fn publish_get_cas_and_remove() {
        let dir = tempfile::tempdir().unwrap();
        let cc = open(dir.path());
        assert_eq!(
            cc.get_config("a.configurators", "dubbo").await.unwrap(),
            None
        );
        assert!(cc.publish_config_cas("k", "g", "one", None).await.unwrap());
        assert!(!cc.publish_config_cas("k", "g", "two", None).await.unwrap());
        let item = cc.get_config_item("k", "g").await.unwrap().unwrap();
        assert_eq!(item.content, "one");
        assert!(cc
            .publish_config_cas("k", "g", "two", Some(&item.ticket))
            .await
            .unwrap());
        // The ticket read before "two" is stale now.
        assert!(!cc
            .publish_config_cas("k", "g", "three", Some(&item.ticket))
            .await
            .unwrap());
        assert_eq!(
            cc.get_config("k", "g").await.unwrap().as_deref(),
            Some("two")
        );
        // ZooKeeper's layout, the key encoded as one file name.
        cc.publish_config("org.foo.Svc::.configurators", "dubbo", "x")
            .await
            .unwrap();
        assert!(dir
            .path()
            .join("dubbo/config/dubbo/org.foo.Svc%3A%3A.configurators")
            .is_file());
        assert!(cc.remove_config("k", "g").await.unwrap());
        assert!(!cc.remove_config("k", "g").await.unwrap());
        assert_eq!(cc.get_config("k", "g").await.unwrap(), None);
    }

    #[tokio::test]
    async fn listeners_see_each_change_once_from_another_process_view() {
        let dir = tempfile::tempdir().unwrap();
        let reader = open(dir.path());
        let writer = open(dir.path());
        writer
            .publish_config("app.tag-router", "dubbo", "v1")
            .await
            .unwrap();
        let (listener, seen) = recorder();
        let now = reader
            .add_listener("app.tag-router", "dubbo", Arc::clone(&listener))
            .await
            .unwrap();
        assert_eq!(now.as_deref(), Some("v1"));
        writer
            .publish_config("app.tag-router", "dubbo", "v2")
            .await
            .unwrap();
        assert_eq!(
            wait_for(&seen, 1).await,
            vec![(ConfigChangeType::Modified, Some("v2".to_owned()))]
        );
        writer
            .remove_config("app.tag-router", "dubbo")
            .await
            .unwrap();
        writer
            .publish_config("app.tag-router", "dubbo", "v3")
            .await
            .unwrap();
        let got = wait_until(&seen, |got| {
            got.last().is_some_and(|(_, c)| c.as_deref() == Some("v3"))
        })
        .await;
        // A poll may fall between the removal and the new value, or not.
        let kinds: Vec<ConfigChangeType> = got.iter().map(|(k, _)| *k).collect();
        use ConfigChangeType::{Added, Deleted, Modified};
        assert!(
            kinds == [Modified, Deleted, Added] || kinds == [Modified, Modified],
            "{got:?}"
        );
        assert_eq!(got.last().unwrap().1.as_deref(), Some("v3"));
        reader
            .remove_listener("app.tag-router", "dubbo", &listener)
            .await
            .unwrap();
        let before = seen.lock().unwrap().len();
        writer
            .publish_config("app.tag-router", "dubbo", "v4")
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(150)).await;
        assert_eq!(seen.lock().unwrap().len(), before);
    }

    #[tokio::test]
    async fn a_deleted_value_is_reported_and_close_refuses_later_calls() {
        let dir = tempfile::tempdir().unwrap();
        let cc = open(dir.path());
        cc.publish_config("k", "dubbo", "v").await.unwrap();
        let (listener, seen) = recorder();
        cc.add_listener("k", "dubbo", listener).await.unwrap();
        cc.remove_config("k", "dubbo").await.unwrap();
        assert_eq!(
            wait_for(&seen, 1).await,
            vec![(ConfigChangeType::Deleted, None)]
        );
        cc.close().await;
        assert_eq!(
            cc.get_config("k", "dubbo").await.unwrap_err().code(),
            "CONFIG_CENTER_CLOSED"
        );
    }
}
