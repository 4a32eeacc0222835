//! The hand-over of instance lists from a discovery's listener to the task that resolves them.

use std::sync::{Arc, Mutex};

use dubbo_registry::ServiceInstance;
use tokio::sync::watch;

use crate::sync::lock;

/// Hands the discovery's latest instance list of one application to the task that resolves
/// it, keeping nothing once it is taken: the consumer keeps the resolved URLs, not the
/// instances (a large deployment's lists are hundreds of thousands). A list replaced before
/// it was taken is never resolved, as with a channel of lists.
pub(super) fn handoff() -> (LatestInstances, InstancesTaker) {
    let slot: Arc<Mutex<Option<Vec<ServiceInstance>>>> = Arc::default();
    let (signal, arrived) = watch::channel(());
    (
        LatestInstances {
            slot: slot.clone(),
            signal,
        },
        InstancesTaker { slot, arrived },
    )
}

/// The discovery's side of [`handoff`].
pub(super) struct LatestInstances {
    slot: Arc<Mutex<Option<Vec<ServiceInstance>>>>,
    signal: watch::Sender<()>,
}

impl LatestInstances {
    /// Replaces the list waiting to be taken.
    pub(super) fn put(&self, instances: Vec<ServiceInstance>) {
        *lock(&self.slot) = Some(instances);
        self.signal.send_replace(());
    }
}

/// The resolving task's side of [`handoff`].
pub(super) struct InstancesTaker {
    slot: Arc<Mutex<Option<Vec<ServiceInstance>>>>,
    arrived: watch::Receiver<()>,
}

impl InstancesTaker {
    /// The next list, taken out; `None` once the discovery's side is gone.
    pub(super) async fn next(&mut self) -> Option<Vec<ServiceInstance>> {
        loop {
            self.arrived.changed().await.ok()?;
            // Marked seen before taking: a list put after this is signalled again.
            self.arrived.borrow_and_update();
            if let Some(instances) = lock(&self.slot).take() {
                return Some(instances);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_handoff_gives_the_latest_list_once_and_keeps_nothing() {
        let (latest, mut taker) = handoff();
        let list = |port| vec![ServiceInstance::new("p", "127.0.0.1", port)];
        latest.put(list(1));
        latest.put(list(2));
        assert_eq!(taker.next().await, Some(list(2)));
        assert!(lock(&taker.slot).is_none(), "taken out, not copied");
        // Nothing new: no list until one is put.
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(50), taker.next());
        assert!(waiting.await.is_err());
        latest.put(list(3));
        assert_eq!(taker.next().await, Some(list(3)));
        latest.put(list(4));
        drop(latest);
        // A list put before the discovery's side went away is still delivered.
        assert_eq!(taker.next().await, Some(list(4)));
        assert_eq!(taker.next().await, None);
    }
}
