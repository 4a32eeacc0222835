//! The available part of a provider list, kept between calls.

use std::sync::Arc;

use arc_swap::ArcSwapOption;

use crate::directory::InvokerList;

/// Filters a directory's snapshot down to the providers that are available now, and hands
/// back the same list while nothing changes.
///
/// Routers cache their results per list (by identity): a directory that built a new list on
/// every call while one provider is down would make them start over on every call. This view
/// keeps the last filtered list with the availability it was made from, and returns it again
/// as long as the snapshot and every provider's availability are the same; checking costs one
/// pass over the providers and no allocation.
#[derive(Default)]
pub struct AvailableView {
    last: ArcSwapOption<Filtered>,
}

struct Filtered {
    /// The snapshot it was made from.
    from: InvokerList,
    /// Each provider's availability then, in order.
    up: Vec<bool>,
    /// The available providers.
    list: InvokerList,
}

impl AvailableView {
    /// A view with nothing cached.
    pub fn new() -> Self {
        Self::default()
    }

    /// The providers of `all` that are available now: `all` itself when every one is.
    pub fn available(&self, all: &InvokerList) -> InvokerList {
        if all.iter().all(|i| i.is_available()) {
            return InvokerList::clone(all);
        }
        if let Some(last) = self.last.load().as_ref() {
            if Arc::ptr_eq(&last.from, all)
                && last
                    .up
                    .iter()
                    .zip(all.iter())
                    .all(|(was, i)| *was == i.is_available())
            {
                return InvokerList::clone(&last.list);
            }
        }
        let up: Vec<bool> = all.iter().map(|i| i.is_available()).collect();
        let list: InvokerList = all
            .iter()
            .zip(&up)
            .filter(|(_, up)| **up)
            .map(|(i, _)| i.clone())
            .collect();
        self.last.store(Some(Arc::new(Filtered {
            from: InvokerList::clone(all),
            up,
            list: InvokerList::clone(&list),
        })));
        list
    }

    /// Forgets the cached list (the directory was destroyed).
    pub fn clear(&self) {
        self.last.store(None);
    }
}

impl std::fmt::Debug for AvailableView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AvailableView")
            .field("cached", &self.last.load().is_some())
            .finish()
    }
}
