//! [`RuleWatcher`]: the keys an owner (a reference, a provider application) watches in the
//! config centre, armed once the centre can be reached, re-keyed when what they depend on
//! changes, and their changes funnelled into one channel the owner reads in order.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

use dubbo_config_center::{
    ConfigChangeType, ConfigChangedEvent, ConfigListener, DynamicConfiguration, RuleKey,
};
use dubbo_metrics::EventMetrics;
use tokio::sync::mpsc;

/// Where the changes a watcher hears are counted (`dubbo_configcenter_total`, by key, group,
/// config centre and change type, as Java counts them).
#[derive(Clone)]
pub(crate) struct ChangeCounter {
    pub(crate) events: Arc<EventMetrics>,
    pub(crate) app: String,
    /// The config centre's protocol (`zookeeper`, `etcd3`, `file`, ...).
    pub(crate) center: String,
}

impl ChangeCounter {
    fn count(&self, e: &ConfigChangedEvent) {
        let change = match e.change {
            ConfigChangeType::Added => "added",
            ConfigChangeType::Modified => "modified",
            ConfigChangeType::Deleted => "deleted",
        };
        self.events
            .config_changed(&self.app, &e.key, &e.group, &self.center, change);
    }
}

/// A change of the rule in `slot`, read at `key`: its new text, `None` once deleted.
pub(crate) type RuleChange<S> = (S, String, Option<String>);

/// A key being watched, and the listener to remove when the key changes or the owner goes.
struct Armed {
    key: RuleKey,
    listener: Arc<dyn ConfigListener>,
}

/// The keys one owner wants watched, by slot (where the rule goes), and those watched now.
pub(crate) struct RuleWatcher<S> {
    wanted: HashMap<S, RuleKey>,
    armed: HashMap<S, Armed>,
    events: mpsc::UnboundedSender<RuleChange<S>>,
    counter: ChangeCounter,
}

impl<S> RuleWatcher<S>
where
    S: Clone + Eq + Hash + Send + Sync + 'static,
{
    /// A watcher with no key, counting the changes it hears in `counter`, and the channel
    /// its changes arrive on.
    pub(crate) fn new(counter: ChangeCounter) -> (Self, mpsc::UnboundedReceiver<RuleChange<S>>) {
        let (events, rx) = mpsc::unbounded_channel();
        let watcher = Self {
            wanted: HashMap::new(),
            armed: HashMap::new(),
            events,
            counter,
        };
        (watcher, rx)
    }

    /// Watches `key` for `slot` from the next [`arm`](Self::arm) on, instead of the key the
    /// slot had.
    pub(crate) fn want(&mut self, slot: S, key: RuleKey) {
        self.wanted.insert(slot, key);
    }

    /// Stops watching `slot` at the next [`arm`](Self::arm).
    pub(crate) fn unwant(&mut self, slot: &S) {
        self.wanted.remove(slot);
    }

    /// Whether a change read at `key` is still about the rule `slot` holds (a change of a key
    /// the slot no longer watches is stale).
    pub(crate) fn is_current(&self, slot: &S, key: &str) -> bool {
        self.armed.get(slot).is_some_and(|a| a.key.key == key)
    }

    /// Brings the watches in line with the wanted keys: removes those no longer wanted (their
    /// slots get a `None`, the rule is gone) and adds the missing ones (their slots get the
    /// value read as the watch was armed). Returns those values to apply, in no particular
    /// order, and whether some key could not be watched yet (to try again later).
    pub(crate) async fn arm(
        &mut self,
        center: &Arc<dyn DynamicConfiguration>,
    ) -> (Vec<RuleChange<S>>, bool) {
        let mut out = Vec::new();
        let stale: Vec<S> = self
            .armed
            .iter()
            .filter(|(slot, a)| self.wanted.get(*slot) != Some(&a.key))
            .map(|(slot, _)| slot.clone())
            .collect();
        for slot in stale {
            if let Some(old) = self.armed.remove(&slot) {
                let _ = center
                    .remove_listener(&old.key.key, old.key.group, &old.listener)
                    .await;
                if !self.wanted.contains_key(&slot) {
                    out.push((slot, old.key.key, None));
                }
            }
        }
        let mut pending = false;
        let todo: Vec<(S, RuleKey)> = self
            .wanted
            .iter()
            .filter(|(slot, _)| !self.armed.contains_key(*slot))
            .map(|(s, k)| (s.clone(), k.clone()))
            .collect();
        for (slot, key) in todo {
            let events = self.events.clone();
            let counter = self.counter.clone();
            let tag = slot.clone();
            let listener: Arc<dyn ConfigListener> = Arc::new(move |e: &ConfigChangedEvent| {
                counter.count(e);
                let _ = events.send((tag.clone(), e.key.clone(), e.content.clone()));
            });
            match center
                .add_listener(&key.key, key.group, listener.clone())
                .await
            {
                Ok(now) => {
                    out.push((slot.clone(), key.key.clone(), now));
                    self.armed.insert(slot, Armed { key, listener });
                }
                Err(e) => {
                    pending = true;
                    tracing::warn!(key = %key.key, group = key.group, code = e.code(), error = %e, "cannot watch a rule; trying again");
                }
            }
        }
        (out, pending)
    }

    /// Ends every watch (the owner is going away).
    pub(crate) async fn disarm(&mut self, center: &Arc<dyn DynamicConfiguration>) {
        for (_, a) in self.armed.drain() {
            let _ = center
                .remove_listener(&a.key.key, a.key.group, &a.listener)
                .await;
        }
    }
}
