//! [`ConfigKeyWatch`]: one listener's watch of one config centre node, delivering each
//! change of its value once.

use std::sync::Arc;

use dubbo_config_center::{ConfigChangeType, ConfigChangedEvent, ConfigListener};
use dubbo_core::BoxFuture;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use zookeeper_client as zk;

use crate::watch::{Changed, Watched};

/// What the first read found: the value the watch was armed with, or why it failed.
pub(crate) type FirstRead = Result<Option<String>, zk::Error>;

/// The watch of one node for one listener.
///
/// Every read (after an event, a reconnect or a new session) is compared with the value last
/// delivered, and only a difference is delivered: a re-read after an outage catches up
/// without repeating anything, and nothing is delivered while the server is away.
pub(crate) struct ConfigKeyWatch {
    pub(crate) path: String,
    pub(crate) key: String,
    pub(crate) group: String,
    pub(crate) listener: Arc<dyn ConfigListener>,
    /// Cancelled by `remove_listener`; checked right before each delivery.
    pub(crate) stop: CancellationToken,
    /// The value last delivered (or returned by the first read).
    pub(crate) last: Option<String>,
    /// Where the first read goes; `None` once it has.
    pub(crate) first: Option<oneshot::Sender<FirstRead>>,
}

impl ConfigKeyWatch {
    /// Hands a read failure to `add_listener` when it is the first read.
    fn failed(&mut self, e: zk::Error) -> zk::Error {
        if let Some(first) = self.first.take() {
            let _ = first.send(Err(e.clone()));
        }
        e
    }

    fn deliver(&mut self, content: Option<String>) {
        if let Some(first) = self.first.take() {
            let _ = first.send(Ok(content.clone()));
        } else if let Some(change) =
            ConfigChangeType::between(self.last.as_deref(), content.as_deref())
        {
            if !self.stop.is_cancelled() {
                self.listener.on_change(&ConfigChangedEvent {
                    key: self.key.clone(),
                    group: self.group.clone(),
                    content: content.clone(),
                    change,
                });
            }
        }
        self.last = content;
    }
}

impl Watched for ConfigKeyWatch {
    fn path(&self) -> &str {
        &self.path
    }

    fn read<'a>(&'a mut self, zk: &'a zk::Client) -> BoxFuture<'a, Result<Changed, zk::Error>> {
        Box::pin(async move {
            let (content, watcher) = match zk.get_and_watch_data(&self.path).await {
                Ok((data, _, watcher)) => (Some(text(&data)), watcher),
                Err(zk::Error::NoNode) => match zk.check_and_watch_stat(&self.path).await {
                    Ok((None, watcher)) => (None, watcher),
                    // Created between the two calls: read it again at once.
                    Ok((Some(_), _)) => return Ok(Box::pin(async {}) as Changed),
                    Err(e) => return Err(self.failed(e)),
                },
                Err(e) => return Err(self.failed(e)),
            };
            self.deliver(content);
            Ok(Box::pin(async move {
                watcher.changed().await;
            }) as Changed)
        })
    }
}

/// A node's data as text. Like Java's `new String(data, UTF_8)`, bytes that are not UTF-8
/// become replacement characters rather than an error.
pub(crate) fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}
