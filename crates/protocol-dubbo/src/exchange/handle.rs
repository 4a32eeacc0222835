//! [`Handle`]: a cell holding a cheaply cloned value that callers take a copy of on every call
//! and that is replaced rarely (a connection made or closed, an invoker destroyed).

use std::sync::RwLock;

/// An optional `T` read by cloning it out.
///
/// The call path clones the value anyway (a call keeps its own connection and client
/// handles), so what matters is the cost of getting at it: an uncontended read lock is an
/// atomic exchange and a decrement, cheaper than an `arc-swap` load, which also registers and
/// pays a debt on every access. Writers are rare and brief. On many cores the lock's word is
/// written by every caller, as the value's reference count already is: one more shared cache
/// line per call, which a two-core machine cannot show.
#[derive(Debug)]
pub(crate) struct Handle<T> {
    cell: RwLock<Option<T>>,
}

impl<T> Default for Handle<T> {
    fn default() -> Self {
        Handle {
            cell: RwLock::new(None),
        }
    }
}

impl<T: Clone> Handle<T> {
    /// A cell holding `value`.
    pub(crate) fn new(value: Option<T>) -> Self {
        Handle {
            cell: RwLock::new(value),
        }
    }

    /// A copy of the value, if there is one.
    pub(crate) fn get(&self) -> Option<T> {
        // A writer that panicked left a whole value (replacing it is one move): use it.
        self.cell.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether there is a value.
    pub(crate) fn is_some(&self) -> bool {
        self.cell
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Replaces the value, returning the old one (dropped by the caller, outside the lock).
    pub(crate) fn replace(&self, value: Option<T>) -> Option<T> {
        std::mem::replace(
            &mut *self.cell.write().unwrap_or_else(|p| p.into_inner()),
            value,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_replaces_and_empties() {
        let h = Handle::new(Some(1));
        assert_eq!(h.get(), Some(1));
        assert_eq!(h.replace(Some(2)), Some(1));
        assert_eq!(h.get(), Some(2));
        assert_eq!(h.replace(None), Some(2));
        assert!(!h.is_some());
        assert_eq!(Handle::<u8>::default().get(), None);
    }
}
