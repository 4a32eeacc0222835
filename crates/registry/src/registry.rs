//! [`Registry`]: interface-level registration and subscription (Java's `Registry`).

use std::fmt;
use std::sync::Arc;

use dubbo_core::BoxFuture;
use dubbo_url::Url;

use crate::error::RegistryError;

/// The category a notification is about (`category=` on registry URLs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    /// `providers`: the provider URLs of a service.
    Providers,
    /// `consumers`: the consumer URLs of a service (admin tools read them).
    Consumers,
    /// `configurators`: override rules (`override://`).
    Configurators,
    /// `routers`: routing rules (`condition://`, `route://`).
    Routers,
}

impl Category {
    /// Every category, in the order Java lists them.
    pub const ALL: [Category; 4] = [
        Category::Providers,
        Category::Consumers,
        Category::Configurators,
        Category::Routers,
    ];

    /// The name as it appears in paths and in `category=`.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Providers => "providers",
            Category::Consumers => "consumers",
            Category::Configurators => "configurators",
            Category::Routers => "routers",
        }
    }

    /// The category named `name`.
    pub fn parse(name: &str) -> Option<Category> {
        match name {
            "providers" => Some(Category::Providers),
            "consumers" => Some(Category::Consumers),
            "configurators" => Some(Category::Configurators),
            "routers" => Some(Category::Routers),
            _ => None,
        }
    }

    /// The category a URL belongs to: its `category` parameter, else providers for a
    /// provider URL and consumers for a consumer URL.
    pub fn of(url: &Url) -> Category {
        if let Some(c) = url.parameter("category").and_then(Category::parse) {
            return c;
        }
        match url.protocol() {
            Some("override") => Category::Configurators,
            Some("condition") | Some("route") | Some("tag") => Category::Routers,
            _ if url.side() == Some("consumer") => Category::Consumers,
            _ => Category::Providers,
        }
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One push from a registry: the complete current list of one category of one service.
///
/// An empty category is pushed as a single `empty://` URL (Java's convention), so a listener
/// can tell "the registry says there is none" from "nothing known yet".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    /// The category the URLs belong to.
    pub category: Category,
    /// The full list; it replaces the previous one of this category.
    ///
    /// Shared rather than owned: a registry that keeps its list (see
    /// [`ChildListing`](crate::ChildListing)) hands out the same list its listeners and the
    /// consumer's directory keep, with no copy per notification, and can reuse a list nobody
    /// holds any more.
    pub urls: Arc<[Url]>,
}

/// Receives the pushes of a subscription.
///
/// Called from the registry's own task; an implementation must not block (hand the work to a
/// task or a channel).
pub trait NotifyListener: Send + Sync + 'static {
    /// The registry's current list of one category changed (or was read for the first time).
    fn notify(&self, notification: Notification);
}

impl<F> NotifyListener for F
where
    F: Fn(Notification) + Send + Sync + 'static,
{
    fn notify(&self, notification: Notification) {
        self(notification)
    }
}

/// An interface-level registry: providers and consumers register their service URLs;
/// consumers subscribe to a service's providers, configurators and routers.
///
/// The subscribed URL names the service (`interface`, `group`, `version`) and the categories
/// wanted (`category=providers,configurators,routers`, Java's default for consumers).
/// Implementations push the current lists once on subscribe, then on every change, and keep
/// registrations and subscriptions alive across reconnects.
pub trait Registry: Send + Sync + 'static {
    /// The registry's own URL (`zookeeper://127.0.0.1:2181`, ...).
    fn url(&self) -> &Url;

    /// Publishes `url` (a provider or consumer URL).
    fn register(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Withdraws a URL published with [`register`](Self::register).
    fn unregister(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Subscribes `listener` to the service and categories `consumer` names. The current
    /// lists are pushed before this returns or shortly after.
    fn subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// Ends a subscription made with the same URL and listener.
    fn unsubscribe(
        &self,
        consumer: &Url,
        listener: &Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>>;

    /// The current provider URLs of the service `consumer` names, read once.
    /// Every interface registered here at interface level (for operators' tools; the call
    /// path never lists). The default: [`RegistryError::Unsupported`].
    fn services(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        Box::pin(async {
            Err(RegistryError::Unsupported {
                what: "listing services".to_owned(),
            })
        })
    }

    fn lookup(&self, consumer: &Url) -> BoxFuture<'_, Result<Vec<Url>, RegistryError>>;

    /// Whether the registry is connected now.
    fn is_available(&self) -> bool;

    /// Withdraws every registration, ends every subscription and closes the connection.
    fn destroy(&self) -> BoxFuture<'_, ()>;
}

/// Creates registries for one URL scheme. Registered in the framework's extension table under
/// the scheme (`zookeeper`, `etcd3`, `file`, ...), so users can add their own.
pub trait RegistryFactory: Send + Sync + 'static {
    /// Connects to the registry at `url`.
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn Registry>, RegistryError>>;
}
