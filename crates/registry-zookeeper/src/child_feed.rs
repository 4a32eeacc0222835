//! [`ChildFeed`]: the children of one node as a stream of created and deleted names, from a
//! persistent recursive watch (ZooKeeper 3.6 and later).
//!
//! A one-shot child watch says only "the children changed"; the registry must then list them
//! all again, which for 100,000 Java providers is about 75 MB to fetch and digest for one
//! restarted provider. A persistent recursive watch names each created and deleted child and
//! stays armed, so a change costs what it changes.
//!
//! Events can be lost across a reconnect (ZOOKEEPER-4698), so any session event ends the
//! feed: the watcher lists the children again, which covers whatever happened meanwhile,
//! and starts a new feed.

use futures::FutureExt;
use zookeeper_client as zk;

/// One change of the watched node's children, by the child's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChildEvent {
    Created(String),
    Deleted(String),
}

/// The created and deleted children of one node, in the order ZooKeeper applied them.
pub(crate) struct ChildFeed {
    path: String,
    watcher: zk::PersistentWatcher,
}

impl ChildFeed {
    /// Starts following `path`'s children (the node need not exist yet). `None` when the
    /// server has no persistent watches (before 3.6): the caller lists on each change instead.
    ///
    /// Start the feed before listing the children: a change made between the two is then
    /// both in the listing and in the feed, and applying it twice changes nothing.
    pub(crate) async fn start(zk: &zk::Client, path: &str) -> Result<Option<Self>, zk::Error> {
        match zk.watch(path, zk::AddWatchMode::PersistentRecursive).await {
            Ok(watcher) => Ok(Some(Self {
                path: path.to_owned(),
                watcher,
            })),
            Err(zk::Error::Unimplemented) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Waits for the next changes: every event already received, as one batch (so that a
    /// burst, such as a provider's deregistration and its new registration, is applied and
    /// notified once). `None` when the feed has ended and the children must be listed again:
    /// a session event (disconnection, expiry, close), or the node itself deleted.
    pub(crate) async fn next(&mut self) -> Option<Vec<ChildEvent>> {
        let mut batch = Vec::new();
        let first = self.watcher.changed().await;
        if !self.take(first, &mut batch) {
            return None;
        }
        // Only what is queued already; a session event stops the draining, as the watcher
        // must not be polled after a terminal one.
        while let Some(event) = self.watcher.changed().now_or_never() {
            if !self.take(event, &mut batch) {
                return None;
            }
        }
        Some(batch)
    }

    /// Adds `event` to `batch`; `false` when it ends the feed.
    fn take(&self, event: zk::WatchedEvent, batch: &mut Vec<ChildEvent>) -> bool {
        match event.event_type {
            zk::EventType::Session => false,
            zk::EventType::NodeDeleted if event.path == self.path => false,
            zk::EventType::NodeCreated | zk::EventType::NodeDeleted => {
                // Deeper nodes (the watch is recursive) are no child of ours.
                if let Some(name) = child_name(&self.path, &event.path) {
                    batch.push(if event.event_type == zk::EventType::NodeCreated {
                        ChildEvent::Created(name.to_owned())
                    } else {
                        ChildEvent::Deleted(name.to_owned())
                    });
                }
                true
            }
            zk::EventType::NodeDataChanged | zk::EventType::NodeChildrenChanged => true,
        }
    }
}

/// The name of `node` when it is a direct child of `parent`.
fn child_name<'a>(parent: &str, node: &'a str) -> Option<&'a str> {
    let name = node.strip_prefix(parent)?.strip_prefix('/')?;
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::child_name;

    #[test]
    fn only_direct_children_are_children() {
        let parent = "/dubbo/org.Echo/providers";
        assert_eq!(
            child_name(parent, "/dubbo/org.Echo/providers/dubbo%3A%2F%2Fa"),
            Some("dubbo%3A%2F%2Fa")
        );
        assert_eq!(child_name(parent, "/dubbo/org.Echo/providers/a/b"), None);
        assert_eq!(child_name(parent, "/dubbo/org.Echo/providers"), None);
        assert_eq!(child_name(parent, "/dubbo/org.Echo/providersx/a"), None);
        assert_eq!(child_name(parent, "/dubbo/org.Echo/providers/"), None);
    }
}
