//! [`CachingRegistry`]: a registry whose subscriptions feed a [`RegistryCacheFile`], and which
//! serves a consumer from that file when the registry cannot.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use dubbo_core::BoxFuture;
use dubbo_url::Url;

use crate::cache_file::RegistryCacheFile;
use crate::error::RegistryError;
use crate::registry::{Category, Notification, NotifyListener, Registry};

/// Wraps a registry: every list pushed to a subscriber is also remembered in the cache file
/// under the subscribed service key, and a subscription or lookup that fails is first served
/// from the file (Java `AbstractRegistry`), then reported as failed so that an outer
/// [`FailbackRegistry`](crate::FailbackRegistry) retries it.
pub struct CachingRegistry {
    inner: Arc<dyn Registry>,
    cache: Arc<RegistryCacheFile>,
    /// The recording listener handed to `inner` for each (subscribed URL, user listener).
    recorders: Mutex<HashMap<(String, usize), Arc<dyn NotifyListener>>>,
}

impl CachingRegistry {
    /// Wraps `inner`, remembering in `cache`.
    pub fn new(inner: Arc<dyn Registry>, cache: Arc<RegistryCacheFile>) -> Self {
        Self {
            inner,
            cache,
            recorders: Mutex::default(),
        }
    }

    /// The cache file.
    pub fn cache(&self) -> &Arc<RegistryCacheFile> {
        &self.cache
    }

    fn feed_from_cache(&self, consumer: &Url, listener: &Arc<dyn NotifyListener>) -> bool {
        let Some(urls) = consumer.service_key().and_then(|k| self.cache.get(&k)) else {
            return false;
        };
        let mut by_category: BTreeMap<Category, Vec<Url>> = BTreeMap::new();
        for u in urls {
            by_category.entry(Category::of(&u)).or_default().push(u);
        }
        tracing::info!(service = ?consumer.service_key(), "registry unavailable; notifying the URLs of the cache file");
        for (category, urls) in by_category {
            listener.notify(Notification {
                category,
                urls: urls.into(),
            });
        }
        true
    }
}

fn listener_id(l: &Arc<dyn NotifyListener>) -> usize {
    Arc::as_ptr(l) as *const () as usize
}

/// Records each category's latest list of one subscription and saves them all under the
/// service key.
struct Recorder {
    service_key: String,
    lists: Mutex<BTreeMap<Category, Arc<[Url]>>>,
    cache: Arc<RegistryCacheFile>,
    inner: Arc<dyn NotifyListener>,
}

impl NotifyListener for Recorder {
    fn notify(&self, notification: Notification) {
        // The lists themselves, not a copy of their URLs: rendering waits for the save.
        let all: Vec<Arc<[Url]>> = {
            let mut lists = self.lists.lock().unwrap_or_else(PoisonError::into_inner);
            lists.insert(notification.category, Arc::clone(&notification.urls));
            lists.values().cloned().collect()
        };
        self.cache.put_lists(&self.service_key, all);
        self.inner.notify(notification);
    }
}

impl Registry for CachingRegistry {
    fn url(&self) -> &Url {
        self.inner.url()
    }

    fn register(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        self.inner.register(url)
    }

    fn unregister(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        self.inner.unregister(url)
    }

    fn subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let consumer = consumer.clone();
        Box::pin(async move {
            let key = (consumer.to_full_string(), listener_id(&listener));
            let recorder = {
                let mut recorders = self
                    .recorders
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                recorders
                    .entry(key.clone())
                    .or_insert_with(|| {
                        Arc::new(Recorder {
                            service_key: consumer.service_key().unwrap_or_default(),
                            lists: Mutex::default(),
                            cache: self.cache.clone(),
                            inner: listener.clone(),
                        })
                    })
                    .clone()
            };
            match self.inner.subscribe(&consumer, recorder).await {
                Ok(()) => Ok(()),
                Err(e) => {
                    self.feed_from_cache(&consumer, &listener);
                    Err(e)
                }
            }
        })
    }

    fn unsubscribe(
        &self,
        consumer: &Url,
        listener: &Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let key = (consumer.to_full_string(), listener_id(listener));
        let consumer = consumer.clone();
        Box::pin(async move {
            let recorder = self
                .recorders
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&key);
            match recorder {
                Some(r) => self.inner.unsubscribe(&consumer, &r).await,
                None => Ok(()),
            }
        })
    }

    fn lookup(&self, consumer: &Url) -> BoxFuture<'_, Result<Vec<Url>, RegistryError>> {
        let consumer = consumer.clone();
        Box::pin(async move {
            match self.inner.lookup(&consumer).await {
                Ok(urls) => Ok(urls),
                Err(e) => {
                    let cached = consumer
                        .service_key()
                        .and_then(|k| self.cache.get(&k))
                        .map(|urls| {
                            urls.into_iter()
                                .filter(|u| {
                                    u.protocol() != Some("empty")
                                        && Category::of(u) == Category::Providers
                                })
                                .collect::<Vec<_>>()
                        })
                        .filter(|u| !u.is_empty());
                    cached.ok_or(e)
                }
            }
        })
    }

    fn is_available(&self) -> bool {
        self.inner.is_available()
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            self.inner.destroy().await;
            if let Err(e) = self.cache.flush().await {
                tracing::warn!(code = e.code(), error = %e, "cannot save the registry cache file");
            }
            self.cache.close();
        })
    }
}
