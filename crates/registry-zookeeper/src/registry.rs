//! [`ZookeeperRegistry`]: the interface-level registry in Java Dubbo's ZooKeeper layout.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use dubbo_core::BoxFuture;
use dubbo_registry::{
    Category, ChildChange, ChildListing, Notification, NotifyListener, ParsedUrlCache, Registry,
    RegistryError,
};
use dubbo_url::{Interner, Url};
use tokio_util::sync::{CancellationToken, DropGuard};
use zookeeper_client as zk;

use crate::child_feed::{ChildEvent, ChildFeed};
use crate::client::{create_node, ZookeeperClient};
use crate::matching::{empty_url, is_match};
use crate::paths::{category_path, interface_of, root_of, url_path};
use crate::watch::{spawn_watch, Changed, Watched};

/// The categories a subscription gets when its URL names none.
const DEFAULT_SUBSCRIBE_CATEGORIES: &str = "providers,configurators,routers";

/// An interface-level registry on ZooKeeper.
///
/// A registered URL becomes the node
/// `/{root}/{URL-encoded interface}/{category}/{URL-encoded full URL}`, ephemeral unless the
/// URL says `dynamic=false`; the root is `/dubbo`, or `/` + the registry URL's `group`.
/// A subscription watches the children of each category node and pushes the matching URLs
/// (or one `empty://` URL) on every change, after reconnects and in every new session.
pub struct ZookeeperRegistry {
    url: Url,
    root: String,
    client: Mutex<Option<Arc<ZookeeperClient>>>,
    /// Node path → URL, for withdrawing on destroy.
    registered: Mutex<BTreeMap<String, Url>>,
    subscriptions: Mutex<Vec<Subscription>>,
    /// Strings shared between the URLs parsed from child nodes.
    interner: Arc<Interner>,
    stop: CancellationToken,
    _stop_on_drop: DropGuard,
}

struct Subscription {
    key: String,
    listener: Arc<dyn NotifyListener>,
    stop: CancellationToken,
}

impl std::fmt::Debug for ZookeeperRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZookeeperRegistry")
            .field("url", &self.url.to_full_string())
            .field("root", &self.root)
            .finish()
    }
}

impl ZookeeperRegistry {
    /// A registry for `url` on `client` (which may be shared with a discovery and a metadata
    /// report of the same address).
    pub fn new(url: &Url, client: Arc<ZookeeperClient>) -> Self {
        let stop = CancellationToken::new();
        Self {
            url: url.clone(),
            root: root_of(url),
            client: Mutex::new(Some(client)),
            registered: Mutex::new(BTreeMap::new()),
            subscriptions: Mutex::new(Vec::new()),
            interner: Arc::new(Interner::new()),
            _stop_on_drop: stop.clone().drop_guard(),
            stop,
        }
    }

    /// Connects to the ZooKeeper `url` names and creates a registry with its own session.
    pub async fn connect(url: &Url) -> Result<Self, RegistryError> {
        let client = ZookeeperClient::connect(url).await?;
        Ok(Self::new(url, client))
    }

    /// The root node (`/dubbo` unless the URL's `group` says otherwise).
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The node `url` is (or would be) registered at.
    pub fn node_path(&self, url: &Url) -> Result<String, RegistryError> {
        url_path(&self.root, url)
    }

    fn client(&self) -> Result<Arc<ZookeeperClient>, RegistryError> {
        lock(&self.client)
            .clone()
            .ok_or_else(|| RegistryError::Closed {
                address: self.url.address(),
            })
    }

    async fn do_register(&self, url: &Url) -> Result<(), RegistryError> {
        let client = self.client()?;
        let path = self.node_path(url)?;
        // ZooKeeper needs some data; Curator stores the local address, which nobody reads.
        let data = url.host().unwrap_or_default().as_bytes().to_vec();
        if url.parameter_bool_or("dynamic", true) {
            client
                .create_ephemeral(&path, &data, zk::CreateMode::Persistent)
                .await?;
        } else {
            client.create_persistent(&path, &data).await?;
        }
        lock(&self.registered).insert(path, url.clone());
        Ok(())
    }

    async fn do_unregister(&self, url: &Url) -> Result<(), RegistryError> {
        let client = self.client()?;
        let path = self.node_path(url)?;
        lock(&self.registered).remove(&path);
        client.remove_ephemeral(&path).await
    }

    /// The consumer URL with the categories it subscribes to made explicit.
    fn subscribed(consumer: &Url) -> Url {
        if consumer.category().is_some() {
            consumer.clone()
        } else {
            consumer.with_parameter("category", DEFAULT_SUBSCRIBE_CATEGORIES)
        }
    }

    fn categories(consumer: &Url) -> Vec<&str> {
        let mut out: Vec<&str> = consumer
            .category()
            .unwrap_or(DEFAULT_SUBSCRIBE_CATEGORIES)
            .split(',')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        if out.contains(&"*") {
            out = Category::ALL.iter().map(|c| c.as_str()).collect();
        }
        out
    }

    async fn do_subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> Result<(), RegistryError> {
        let client = self.client()?;
        let consumer = Self::subscribed(consumer);
        let interface = interface_of(&consumer)?.to_owned();
        if interface == "*" {
            return Err(RegistryError::Config {
                key: "interface".to_owned(),
                reason: "subscribing to every interface is not supported".to_owned(),
            });
        }
        // Fail now, not only in the background, when the registry cannot be reached.
        client.session()?;
        let stop = self.stop.child_token();
        for name in Self::categories(&consumer) {
            let Some(category) = Category::parse(name) else {
                tracing::warn!(category = name, "unknown category in subscription; ignored");
                continue;
            };
            let watch = CategoryWatch {
                path: Arc::from(category_path(&self.root, &interface, name)),
                consumer: consumer.clone(),
                category,
                listener: listener.clone(),
                listing: Arc::new(Mutex::new(ChildListing::new(
                    ParsedUrlCache::with_interner(Interner::clone(&self.interner)),
                ))),
                feed: true,
            };
            spawn_watch(client.clone(), stop.clone(), watch);
        }
        lock(&self.subscriptions).push(Subscription {
            key: consumer.to_full_string(),
            listener,
            stop,
        });
        Ok(())
    }

    fn do_unsubscribe(&self, consumer: &Url, listener: &Arc<dyn NotifyListener>) {
        let key = Self::subscribed(consumer).to_full_string();
        let mut subs = lock(&self.subscriptions);
        subs.retain(|s| {
            let same = s.key == key && same_listener(&s.listener, listener);
            if same {
                s.stop.cancel();
            }
            !same
        });
    }

    /// What is registered now under each category `consumer` names (Java's `lookup`: its
    /// `category` list, `*` for all, `providers` when it names none).
    async fn do_lookup(&self, consumer: &Url) -> Result<Vec<Url>, RegistryError> {
        let client = self.client()?;
        let interface = interface_of(consumer)?;
        let mut categories: Vec<&str> = match consumer.category() {
            Some(_) => Self::categories(consumer),
            None => vec![Category::Providers.as_str()],
        };
        categories.dedup();
        let cache = ParsedUrlCache::with_interner(Interner::clone(&self.interner));
        let mut urls = Vec::new();
        for category in categories {
            let path = category_path(&self.root, interface, category);
            let children = client.children(&path).await?;
            urls.extend(matching_urls(consumer, &path, &children, &cache));
        }
        Ok(urls)
    }

    async fn do_destroy(&self) {
        self.stop.cancel();
        lock(&self.subscriptions).clear();
        let registered: Vec<(String, Url)> = std::mem::take(&mut *lock(&self.registered))
            .into_iter()
            .collect();
        if let Ok(client) = self.client() {
            for (path, url) in registered {
                // Persistent nodes (dynamic=false) outlive the process on purpose.
                if url.parameter_bool_or("dynamic", true) {
                    if let Err(e) = client.remove_ephemeral(&path).await {
                        tracing::warn!(%path, error = %e, "could not withdraw on destroy");
                    }
                }
            }
        }
        lock(&self.client).take();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn same_listener(a: &Arc<dyn NotifyListener>, b: &Arc<dyn NotifyListener>) -> bool {
    std::ptr::addr_eq(Arc::as_ptr(a), Arc::as_ptr(b))
}

/// The URLs among `children` (node names under `path`) that `consumer` receives, parsed
/// through `cache`.
fn matching_urls(
    consumer: &Url,
    path: &str,
    children: &[String],
    cache: &ParsedUrlCache,
) -> Vec<Url> {
    let mut urls = Vec::new();
    for url in cache.parse_listing(url_names(path, children)) {
        match url {
            Ok(url) if is_match(consumer, &url) => urls.push(url),
            Ok(_) => {}
            Err(e) => warn_unparsable(path, &e),
        }
    }
    urls
}

/// The names among `children` that stand for URLs; the others are logged and skipped.
fn url_names<'a>(path: &str, children: &'a [String]) -> Vec<&'a str> {
    children
        .iter()
        .filter(|child| is_url_name(path, child))
        .map(String::as_str)
        .collect()
}

/// Java only considers names holding an encoded "://".
fn is_url_name(path: &str, child: &str) -> bool {
    let url = child.contains("%3A%2F%2F");
    if !url {
        tracing::warn!(path = %format!("{path}/{child}"), "registry node is not a URL; skipped");
    }
    url
}

fn warn_unparsable(path: &str, e: &RegistryError) {
    tracing::warn!(%path, error = %e, "unparsable registry node; skipped");
}

/// Watches one category node of a subscription.
///
/// On a server with persistent watches (ZooKeeper 3.6 and later) the children are listed
/// once per session and then followed through a [`ChildFeed`]: a change costs what it
/// changes. Otherwise every change is a one-shot watch firing and a new listing.
struct CategoryWatch {
    path: Arc<str>,
    consumer: Url,
    category: Category,
    listener: Arc<dyn NotifyListener>,
    /// The children's URLs this subscription receives, and the parsed URLs of every child
    /// (their strings shared through the registry's interner). Shared with the feed task.
    listing: Arc<Mutex<ChildListing>>,
    /// Whether to try a persistent watch; cleared when the server has none.
    feed: bool,
}

impl CategoryWatch {
    /// Lists the children (creating the category node first if it is missing, as Java does,
    /// so that the watch has a node), with a one-shot watch when `watch` says so.
    async fn list(
        &self,
        zk: &zk::Client,
        watch: bool,
    ) -> Result<(Vec<String>, Option<zk::OneshotWatcher>), zk::Error> {
        match self.list_once(zk, watch).await {
            Err(zk::Error::NoNode) => {
                create_node(
                    zk,
                    &self.path,
                    &[],
                    zk::CreateMode::Persistent,
                    zk::CreateMode::Persistent,
                )
                .await?;
                self.list_once(zk, watch).await
            }
            other => other,
        }
    }

    async fn list_once(
        &self,
        zk: &zk::Client,
        watch: bool,
    ) -> Result<(Vec<String>, Option<zk::OneshotWatcher>), zk::Error> {
        if watch {
            let (children, watcher) = zk.list_and_watch_children(&self.path).await?;
            Ok((children, Some(watcher)))
        } else {
            Ok((zk.list_children(&self.path).await?, None))
        }
    }

    /// Replaces the listing with `children` and notifies it.
    fn relist(&self, children: &[String]) {
        let urls = {
            let mut listing = lock(&self.listing);
            let consumer = &self.consumer;
            for e in listing.relist(url_names(&self.path, children), |u| is_match(consumer, u)) {
                warn_unparsable(&self.path, &e);
            }
            listing.list()
        };
        notify_listing(&self.listener, &self.consumer, self.category, urls);
    }

    /// Follows `feed` until it ends, applying and notifying each batch.
    fn follow(&self, mut feed: ChildFeed) -> Changed {
        let (path, consumer, category) = (self.path.clone(), self.consumer.clone(), self.category);
        let (listener, listing) = (self.listener.clone(), self.listing.clone());
        Box::pin(async move {
            while let Some(batch) = feed.next().await {
                let changes = batch.iter().filter_map(|event| match event {
                    ChildEvent::Created(name) => {
                        is_url_name(&path, name).then_some(ChildChange::Created(name))
                    }
                    ChildEvent::Deleted(name) => Some(ChildChange::Deleted(name)),
                });
                let urls = {
                    let mut listing = lock(&listing);
                    let change = listing.apply(changes, |u| is_match(&consumer, u));
                    for e in &change.errors {
                        warn_unparsable(&path, e);
                    }
                    change.changed.then(|| listing.list())
                };
                if let Some(urls) = urls {
                    notify_listing(&listener, &consumer, category, urls);
                }
            }
        })
    }
}

/// Pushes `urls` as the category's list, or the one `empty://` URL that says it has none.
fn notify_listing(
    listener: &Arc<dyn NotifyListener>,
    consumer: &Url,
    category: Category,
    urls: Arc<[Url]>,
) {
    let urls = if urls.is_empty() {
        Arc::from(vec![empty_url(consumer, category.as_str())])
    } else {
        urls
    };
    listener.notify(Notification { category, urls });
}

impl Watched for CategoryWatch {
    fn path(&self) -> &str {
        &self.path
    }

    fn read<'a>(&'a mut self, zk: &'a zk::Client) -> BoxFuture<'a, Result<Changed, zk::Error>> {
        Box::pin(async move {
            if self.feed {
                // The feed first, then the listing (see `ChildFeed::start`).
                match ChildFeed::start(zk, &self.path).await? {
                    Some(feed) => {
                        let (children, _) = self.list(zk, false).await?;
                        self.relist(&children);
                        return Ok(self.follow(feed));
                    }
                    None => {
                        tracing::info!(
                            path = &*self.path,
                            "the ZooKeeper server has no persistent watches (before 3.6); \
                             listing every child on each change"
                        );
                        self.feed = false;
                    }
                }
            }
            let (children, watcher) = self.list(zk, true).await?;
            self.relist(&children);
            Ok(Box::pin(async move {
                if let Some(watcher) = watcher {
                    watcher.changed().await;
                }
            }) as Changed)
        })
    }
}

impl Registry for ZookeeperRegistry {
    fn url(&self) -> &Url {
        &self.url
    }

    fn register(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        let url = url.clone();
        Box::pin(async move { self.do_register(&url).await })
    }

    fn unregister(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        let url = url.clone();
        Box::pin(async move { self.do_unregister(&url).await })
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
        self.do_unsubscribe(consumer, listener);
        Box::pin(async { Ok(()) })
    }

    fn services(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        Box::pin(async move {
            let client = self.client()?;
            let mut services = Vec::new();
            for child in client.children(&self.root).await? {
                // The metadata report, the mapping and the config centre share the root.
                if matches!(child.as_str(), "metadata" | "mapping" | "config") {
                    continue;
                }
                let name = dubbo_url::decode(&child).unwrap_or_else(|_| child.clone());
                services.push(name);
            }
            services.sort();
            Ok(services)
        })
    }

    fn lookup(&self, consumer: &Url) -> BoxFuture<'_, Result<Vec<Url>, RegistryError>> {
        let consumer = consumer.clone();
        Box::pin(async move { self.do_lookup(&consumer).await })
    }

    fn is_available(&self) -> bool {
        self.client().map(|c| c.is_connected()).unwrap_or(false)
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.do_destroy())
    }
}
