use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arc_swap::ArcSwap;
use tokio::sync::Notify;

/// Calls in progress per key (a service's or provider's method), the part of Java's `RpcStatus`
/// that the `executes` and `actives` limits need. Owned by one filter instance; never global.
#[derive(Debug, Default)]
pub(crate) struct CallCounts {
    /// Read on every limited call without a lock; swapped when a key is seen the first time.
    slots: ArcSwap<HashMap<String, Arc<Slot>>>,
}

impl CallCounts {
    /// The counter for `key`, created on first use.
    pub(crate) fn slot(&self, key: String) -> Arc<Slot> {
        if let Some(slot) = self.slots.load().get(&key) {
            return slot.clone();
        }
        let mut found = None;
        self.slots.rcu(|slots| {
            let mut slots = HashMap::clone(slots);
            found = Some(slots.entry(key.clone()).or_default().clone());
            slots
        });
        found.unwrap_or_default()
    }
}

/// One key's count of calls in progress, and a signal for callers waiting for one to end.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    active: AtomicUsize,
    released: Notify,
}

impl Slot {
    /// Counts one more call if fewer than `max` are in progress; the call ends when the guard is
    /// dropped (also when its future is dropped before completing).
    pub(crate) fn try_begin(self: &Arc<Self>, max: usize) -> Option<CallGuard> {
        self.active
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()
            .map(|_| CallGuard { slot: self.clone() })
    }

    /// Calls in progress now.
    pub(crate) fn active(&self) -> usize {
        self.active.load(Ordering::Acquire)
    }

    /// Waits until some call of this key ends. Register before checking, so that no end is
    /// missed: `let n = slot.released(); tokio::pin!(n); n.as_mut().enable(); ...; n.await`.
    pub(crate) fn released(&self) -> tokio::sync::futures::Notified<'_> {
        self.released.notified()
    }
}

/// One counted call; dropping it ends the call and wakes the callers waiting for a place.
#[derive(Debug)]
pub(crate) struct CallGuard {
    slot: Arc<Slot>,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.slot.active.fetch_sub(1, Ordering::AcqRel);
        self.slot.released.notify_waiters();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_up_to_max_and_back() {
        let counts = CallCounts::default();
        let slot = counts.slot("a#m".into());
        let g1 = slot.try_begin(2);
        let g2 = slot.try_begin(2);
        assert!(g1.is_some() && g2.is_some());
        assert!(slot.try_begin(2).is_none());
        assert_eq!(slot.active(), 2);
        drop(g1);
        assert_eq!(slot.active(), 1);
        assert!(slot.try_begin(2).is_some());
        assert!(Arc::ptr_eq(&slot, &counts.slot("a#m".into())));
        assert!(!Arc::ptr_eq(&slot, &counts.slot("a#n".into())));
    }
}
