//! Coalesced notifications (Java's "delay notification", `RegistryNotifier`): a burst of
//! pushes for the same category or application reaches the listener as one push of the
//! latest list.
//!
//! During a large rollout a registry pushes a service's provider list once per changed
//! provider; each push makes the consumer rebuild its invokers. Java Dubbo 3 waits a little
//! after a change and keeps only the last list (`delay-notification`, 5000 ms by default). The
//! wrappers here do the same per key: at most one delivery per window, always of the newest
//! list, and keys (categories, applications) never hold each other back.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dubbo_url::Url;
use tokio_util::sync::CancellationToken;

use crate::discovery::InstancesListener;
use crate::instance::ServiceInstance;
use crate::registry::{Category, Notification, NotifyListener};

/// The URL parameter holding the window in milliseconds (Java's `delay-notification`).
pub const DELAY_NOTIFICATION_KEY: &str = "delay-notification";

/// Java's default window, `DEFAULT_DELAY_NOTIFICATION_TIME`.
pub const DEFAULT_DELAY_NOTIFICATION: Duration = Duration::from_millis(5000);

/// How pushes are coalesced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoalesceConfig {
    /// The window: after a delivery, pushes of the same key wait until it has passed.
    pub delay: Duration,
    /// Whether a push that finds its key quiet (no window running) is delivered at once and
    /// opens a window, as Java does once a key has been quiet for the delay. A consumer that
    /// subscribes then gets its first provider list without waiting. With `false` every push
    /// waits for the end of a window.
    pub leading: bool,
}

impl Default for CoalesceConfig {
    fn default() -> Self {
        Self {
            delay: DEFAULT_DELAY_NOTIFICATION,
            leading: true,
        }
    }
}

impl CoalesceConfig {
    /// The window from `url`'s `delay-notification` (milliseconds), else the default; the
    /// push that finds its key quiet is delivered at once. An unreadable value keeps the default.
    pub fn from_url(url: &Url) -> Self {
        let delay = url
            .parameter_u64(DELAY_NOTIFICATION_KEY)
            .ok()
            .flatten()
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_DELAY_NOTIFICATION);
        Self {
            delay,
            leading: true,
        }
    }
}

/// A [`NotifyListener`] that coalesces pushes per [`Category`] before handing them on.
///
/// Needs a tokio runtime to hold pushes back; without one it hands every push on at once.
/// Dropping it drops pushes still held back (the subscription they belonged to is gone).
pub struct CoalescingNotifyListener {
    core: Arc<Core<Category, Arc<[Url]>>>,
}

impl CoalescingNotifyListener {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn NotifyListener>, config: CoalesceConfig) -> Self {
        let deliver = move |category: &Category, urls: Arc<[Url]>| {
            inner.notify(Notification {
                category: *category,
                urls,
            })
        };
        Self {
            core: Core::new(config, Box::new(deliver)),
        }
    }
}

impl NotifyListener for CoalescingNotifyListener {
    fn notify(&self, notification: Notification) {
        Core::push(&self.core, notification.category, notification.urls);
    }
}

impl Drop for CoalescingNotifyListener {
    fn drop(&mut self) {
        self.core.cancel.cancel();
    }
}

/// An [`InstancesListener`] that coalesces pushes per application before handing them on.
///
/// Same rules as [`CoalescingNotifyListener`].
pub struct CoalescingInstancesListener {
    core: Arc<Core<String, Vec<ServiceInstance>>>,
}

impl CoalescingInstancesListener {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn InstancesListener>, config: CoalesceConfig) -> Self {
        let deliver =
            move |app: &String, instances: Vec<ServiceInstance>| inner.on_instances(app, instances);
        Self {
            core: Core::new(config, Box::new(deliver)),
        }
    }
}

impl InstancesListener for CoalescingInstancesListener {
    fn on_instances(&self, app: &str, instances: Vec<ServiceInstance>) {
        Core::push(&self.core, app.to_owned(), instances);
    }
}

impl Drop for CoalescingInstancesListener {
    fn drop(&mut self) {
        self.core.cancel.cancel();
    }
}

type Deliver<K, V> = Box<dyn Fn(&K, V) + Send + Sync>;

/// The state of one key.
struct Slot<V> {
    /// The newest value not yet delivered.
    pending: Option<V>,
    /// Whether a window is running (a timer task exists for the key).
    in_window: bool,
}

struct Core<K, V> {
    config: CoalesceConfig,
    deliver: Deliver<K, V>,
    slots: Mutex<HashMap<K, Slot<V>>>,
    cancel: CancellationToken,
}

impl<K, V> Core<K, V>
where
    K: Clone + Eq + Hash + Send + Sync + 'static,
    V: Send + 'static,
{
    fn new(config: CoalesceConfig, deliver: Deliver<K, V>) -> Arc<Self> {
        Arc::new(Self {
            config,
            deliver,
            slots: Mutex::default(),
            cancel: CancellationToken::new(),
        })
    }

    fn push(this: &Arc<Self>, key: K, value: V) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            (this.deliver)(&key, value);
            return;
        };
        let deliver_now = {
            let mut slots = this.slots.lock().unwrap_or_else(PoisonError::into_inner);
            let slot = slots.entry(key.clone()).or_insert(Slot {
                pending: None,
                in_window: false,
            });
            if slot.in_window {
                // Latest wins: the window's end delivers whatever is newest then.
                slot.pending = Some(value);
                return;
            }
            slot.in_window = true;
            if this.config.leading {
                Some(value)
            } else {
                slot.pending = Some(value);
                None
            }
        };
        if let Some(value) = deliver_now {
            (this.deliver)(&key, value);
        }
        let core = Arc::clone(this);
        runtime.spawn(async move { core.run_window(key).await });
    }

    /// Waits out windows for `key`, delivering the newest pending value at the end of each,
    /// until a window passes with nothing pending.
    async fn run_window(self: Arc<Self>, key: K) {
        loop {
            tokio::select! {
                _ = self.cancel.cancelled() => return,
                _ = tokio::time::sleep(self.config.delay) => {}
            }
            let value = {
                let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
                let Some(slot) = slots.get_mut(&key) else {
                    return;
                };
                match slot.pending.take() {
                    Some(v) => v,
                    None => {
                        slot.in_window = false;
                        return;
                    }
                }
            };
            (self.deliver)(&key, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn url(i: usize) -> Url {
        Url::parse(&format!("dubbo://10.0.0.1:{}/org.Foo", 20000 + i)).unwrap()
    }

    type Seen = Arc<Mutex<Vec<(Category, Vec<Url>)>>>;

    fn recorder() -> (Seen, Arc<dyn NotifyListener>) {
        let seen: Seen = Arc::default();
        let s = seen.clone();
        let l: Arc<dyn NotifyListener> =
            Arc::new(move |n: Notification| s.lock().unwrap().push((n.category, n.urls.to_vec())));
        (seen, l)
    }

    fn cfg(leading: bool) -> CoalesceConfig {
        CoalesceConfig {
            delay: Duration::from_millis(50),
            leading,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_hundred_rapid_pushes_become_one_delivery_of_the_last() {
        let (seen, inner) = recorder();
        let l = CoalescingNotifyListener::new(inner, cfg(false));
        for i in 0..100 {
            l.notify(Notification {
                category: Category::Providers,
                urls: vec![url(i)].into(),
            });
            tokio::task::yield_now().await;
        }
        assert!(seen.lock().unwrap().is_empty());
        tokio::time::sleep(Duration::from_millis(200)).await;
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].1, vec![url(99)]);
    }

    #[tokio::test(start_paused = true)]
    async fn a_push_on_a_quiet_key_goes_at_once_and_the_burst_after_it_once() {
        let (seen, inner) = recorder();
        let l = CoalescingNotifyListener::new(inner, cfg(true));
        for i in 0..100 {
            l.notify(Notification {
                category: Category::Providers,
                urls: vec![url(i)].into(),
            });
        }
        assert_eq!(seen.lock().unwrap().len(), 1);
        assert_eq!(seen.lock().unwrap()[0].1, vec![url(0)]);
        tokio::time::sleep(Duration::from_millis(49)).await;
        assert_eq!(seen.lock().unwrap().len(), 1);
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(seen.lock().unwrap().len(), 2);
        assert_eq!(seen.lock().unwrap()[1].1, vec![url(99)]);
        // A whole quiet window has passed: the next push goes at once again.
        l.notify(Notification {
            category: Category::Providers,
            urls: vec![url(7)].into(),
        });
        assert_eq!(seen.lock().unwrap().len(), 3);
        assert_eq!(seen.lock().unwrap()[2].1, vec![url(7)]);
    }

    #[tokio::test(start_paused = true)]
    async fn categories_are_kept_apart() {
        let (seen, inner) = recorder();
        let l = CoalescingNotifyListener::new(inner, cfg(false));
        for i in 0..10 {
            l.notify(Notification {
                category: Category::Providers,
                urls: vec![url(i)].into(),
            });
            l.notify(Notification {
                category: Category::Routers,
                urls: vec![url(100 + i)].into(),
            });
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut seen = seen.lock().unwrap().clone();
        seen.sort_by_key(|(c, _)| *c);
        assert_eq!(
            seen,
            vec![
                (Category::Providers, vec![url(9)]),
                (Category::Routers, vec![url(109)])
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn instance_lists_are_coalesced_per_application() {
        let seen: Arc<Mutex<Vec<(String, usize)>>> = Arc::default();
        let s = seen.clone();
        let inner: Arc<dyn InstancesListener> =
            Arc::new(move |app: &str, i: Vec<ServiceInstance>| {
                s.lock().unwrap().push((app.to_owned(), i.len()))
            });
        let l = CoalescingInstancesListener::new(inner, cfg(false));
        for n in 1..=20 {
            let list: Vec<_> = (0..n)
                .map(|p| ServiceInstance::new("a", "h", p as u16))
                .collect();
            l.on_instances("a", list.clone());
            l.on_instances("b", list[..1].to_vec());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let mut seen = seen.lock().unwrap().clone();
        seen.sort();
        assert_eq!(seen, vec![("a".to_owned(), 20), ("b".to_owned(), 1)]);
    }

    #[tokio::test(start_paused = true)]
    async fn dropping_the_listener_drops_held_pushes() {
        let (seen, inner) = recorder();
        let l = CoalescingNotifyListener::new(inner, cfg(false));
        l.notify(Notification {
            category: Category::Providers,
            urls: vec![url(1)].into(),
        });
        drop(l);
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(seen.lock().unwrap().is_empty());
    }

    #[test]
    fn the_window_comes_from_delay_notification() {
        let u = Url::parse("zookeeper://h:2181?delay-notification=250").unwrap();
        assert_eq!(
            CoalesceConfig::from_url(&u).delay,
            Duration::from_millis(250)
        );
        let u = Url::parse("zookeeper://h:2181").unwrap();
        assert_eq!(
            CoalesceConfig::from_url(&u).delay,
            DEFAULT_DELAY_NOTIFICATION
        );
    }
}
