//! [`DynamicConfiguration`]: the config centre contract (Java's `DynamicConfiguration`).

use std::sync::Arc;

use dubbo_core::BoxFuture;
use dubbo_url::Url;

use crate::error::ConfigCenterError;

/// What happened to a watched key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConfigChangeType {
    /// The key did not exist and now holds a value.
    Added,
    /// The key's value changed.
    Modified,
    /// The key was removed.
    Deleted,
}

impl ConfigChangeType {
    /// The change that takes a key from `previous` to `current` (`None`: absent); `None` when
    /// nothing changed. Implementations compare what they last delivered with what they read
    /// now, so a re-read after an outage delivers only the difference.
    pub fn between(previous: Option<&str>, current: Option<&str>) -> Option<Self> {
        match (previous, current) {
            (None, Some(_)) => Some(ConfigChangeType::Added),
            (Some(before), Some(now)) if before != now => Some(ConfigChangeType::Modified),
            (Some(_), None) => Some(ConfigChangeType::Deleted),
            _ => None,
        }
    }
}

/// One change of a watched key, as delivered to a [`ConfigListener`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigChangedEvent {
    /// The key, as given to [`DynamicConfiguration::add_listener`].
    pub key: String,
    /// The group, as given to [`DynamicConfiguration::add_listener`].
    pub group: String,
    /// The new value; `None` for [`ConfigChangeType::Deleted`].
    pub content: Option<String>,
    /// What happened.
    pub change: ConfigChangeType,
}

/// Receives the changes of watched keys.
///
/// Called from the config centre's own task: implementations hand the work over (a channel,
/// an atomic swap) instead of blocking.
pub trait ConfigListener: Send + Sync + 'static {
    /// `event.key` in `event.group` changed.
    fn on_change(&self, event: &ConfigChangedEvent);
}

impl<F> ConfigListener for F
where
    F: Fn(&ConfigChangedEvent) + Send + Sync + 'static,
{
    fn on_change(&self, event: &ConfigChangedEvent) {
        self(event)
    }
}

/// A value with the version it was read at, for [`DynamicConfiguration::publish_config_cas`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigItem {
    /// The value.
    pub content: String,
    /// The version the value was read at (ZooKeeper's data version, etcd's mod revision, a
    /// digest of a file); opaque to callers.
    pub ticket: ConfigTicket,
}

/// The opaque version of a read value, handed back to
/// [`publish_config_cas`](DynamicConfiguration::publish_config_cas).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConfigTicket(String);

impl ConfigTicket {
    /// A ticket holding an implementation's version text.
    pub fn new(version: impl Into<String>) -> Self {
        Self(version.into())
    }

    /// The implementation's version text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A config centre: values by (group, key), written by operators and tools (Dubbo Admin, a
/// script) and read live by applications.
///
/// The group defaults to [`DEFAULT_GROUP`](crate::DEFAULT_GROUP) (`dubbo`); governance rules
/// live under their keys there ([`RuleKey`](crate::RuleKey)). Where a value is stored is the
/// implementation's business, but implementations that Java Dubbo also reads store it where
/// Java does (ZooKeeper: `/{namespace}/config/{group}/{key}`, namespace `dubbo`).
///
/// # Watches and outages
///
/// A listener added with [`add_listener`](Self::add_listener) gets every later change of its
/// key, once, in order. When the connection to the server is lost and comes back (a new
/// session, a restarted server), the implementation re-reads every watched key and delivers
/// the difference from what it last delivered (a `Deleted` for a key now gone), so a listener
/// ends up with the current value without having to reconnect itself. While the server is
/// away nothing is delivered: the last values stay in force.
pub trait DynamicConfiguration: Send + Sync + 'static {
    /// The config centre's own URL.
    fn url(&self) -> &Url;

    /// The value of `key` in `group`, if there is one.
    fn get_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>>;

    /// The value of `key` in `group` with its version, for a later compare-and-publish.
    fn get_config_item(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<Option<ConfigItem>, ConfigCenterError>>;

    /// Sets `key` in `group` to `content`, creating it if needed.
    fn publish_config(
        &self,
        key: &str,
        group: &str,
        content: &str,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>>;

    /// Sets `key` in `group` to `content` only if it is still at `ticket` (`None`: only if it
    /// does not exist). `Ok(false)` when another writer got there first; read again and retry.
    fn publish_config_cas<'a>(
        &'a self,
        key: &'a str,
        group: &'a str,
        content: &'a str,
        ticket: Option<&'a ConfigTicket>,
    ) -> BoxFuture<'a, Result<bool, ConfigCenterError>>;

    /// Removes `key` from `group`. `Ok(false)` when it did not exist.
    fn remove_config(
        &self,
        key: &str,
        group: &str,
    ) -> BoxFuture<'_, Result<bool, ConfigCenterError>>;

    /// Watches `key` in `group`: `listener` gets every change from now on. Returns the value
    /// at the moment the watch was armed, so a caller that applies it and then the events
    /// misses nothing.
    fn add_listener(
        &self,
        key: &str,
        group: &str,
        listener: Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<Option<String>, ConfigCenterError>>;

    /// Ends a watch made with the same key, group and listener (`Arc::ptr_eq`).
    fn remove_listener(
        &self,
        key: &str,
        group: &str,
        listener: &Arc<dyn ConfigListener>,
    ) -> BoxFuture<'_, Result<(), ConfigCenterError>>;

    /// Ends every watch and the connection. Later calls fail with
    /// [`ConfigCenterError::Closed`].
    fn close(&self) -> BoxFuture<'_, ()>;
}

/// Creates config centres for one URL scheme, registered in the framework's extension table
/// under the scheme.
pub trait DynamicConfigurationFactory: Send + Sync + 'static {
    /// Connects to the config centre at `url`.
    fn create(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DynamicConfiguration>, ConfigCenterError>>;
}

#[cfg(test)]
mod tests {
    use super::ConfigChangeType::{self, *};

    #[test]
    fn change_between_two_reads() {
        assert_eq!(ConfigChangeType::between(None, Some("a")), Some(Added));
        assert_eq!(
            ConfigChangeType::between(Some("a"), Some("b")),
            Some(Modified)
        );
        assert_eq!(ConfigChangeType::between(Some("a"), None), Some(Deleted));
        assert_eq!(ConfigChangeType::between(Some("a"), Some("a")), None);
        assert_eq!(ConfigChangeType::between(None, None), None);
    }
}
