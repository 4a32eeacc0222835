//! [`Availability`]: what a client's callers can learn about its connections without loading
//! them, and the per-connection state that keeps it up to date.
//!
//! The cluster asks every provider whether it is available on every call. Answering through
//! the invoker's client handle and the slot's current connection is two `arc-swap` loads per
//! provider; a count of the connections that can carry calls now, kept by the connections'
//! own state changes, answers the usual case with two atomic loads. The count is only ever
//! trusted when it says "yes": when it is zero the client looks at its slots, which also
//! knows about connections that could be (re)opened.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

/// Shared by a client, its connections and the invokers using it; does not keep the
/// connections open.
#[derive(Debug, Default)]
pub(crate) struct Availability {
    /// Set once by the client's close.
    closed: AtomicBool,
    /// Connections that are neither closed nor read-only.
    usable: AtomicUsize,
}

impl Availability {
    /// A fresh state for a new client: open, no connections.
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Marks the client closed.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }

    /// Whether the client was closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// `true` when the client is open and some connection can carry calls now; `false` means
    /// "look closer" (the slots may still be able to connect).
    pub(crate) fn surely_available(&self) -> bool {
        !self.is_closed() && self.usable.load(Ordering::Acquire) > 0
    }
}

/// Bits of [`ConnFlags`].
const CLOSED: u8 = 1;
const READONLY: u8 = 2;

/// One connection's closed and read-only state, counted in its client's [`Availability`]
/// while it has neither. Every change goes through one atomic word, so that a close racing
/// with a writable event cannot count a connection twice or leave a dead one counted.
#[derive(Debug)]
pub(crate) struct ConnFlags {
    bits: AtomicU8,
    client: Arc<Availability>,
}

impl ConnFlags {
    /// The state of a connection just opened: usable, and counted as such.
    pub(crate) fn open(client: Arc<Availability>) -> Self {
        client.usable.fetch_add(1, Ordering::AcqRel);
        ConnFlags {
            bits: AtomicU8::new(0),
            client,
        }
    }

    /// Whether the connection was closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.bits.load(Ordering::Acquire) & CLOSED != 0
    }

    /// Whether the provider said it is shutting down (its readonly event).
    pub(crate) fn is_readonly(&self) -> bool {
        self.bits.load(Ordering::Acquire) & READONLY != 0
    }

    /// Marks the connection closed (for good).
    pub(crate) fn close(&self) {
        self.update(|b| b | CLOSED);
    }

    /// Records the provider's readonly (`true`) or writable (`false`) event.
    pub(crate) fn set_readonly(&self, readonly: bool) {
        if readonly {
            self.update(|b| b | READONLY);
        } else {
            self.update(|b| b & !READONLY);
        }
    }

    fn update(&self, f: impl Fn(u8) -> u8) {
        let old = self
            .bits
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |b| Some(f(b)))
            .unwrap_or_else(|b| b);
        let new = f(old);
        match (old == 0, new == 0) {
            (true, false) => {
                self.client.usable.fetch_sub(1, Ordering::AcqRel);
            }
            (false, true) => {
                self.client.usable.fetch_add(1, Ordering::AcqRel);
            }
            _ => {}
        }
    }
}

impl Drop for ConnFlags {
    fn drop(&mut self) {
        // A connection dropped without a close (its client went away first) leaves the count.
        if *self.bits.get_mut() == 0 {
            self.client.usable.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_connections_that_can_carry_calls() {
        let client = Availability::new();
        assert!(!client.surely_available());
        let a = ConnFlags::open(client.clone());
        let b = ConnFlags::open(client.clone());
        assert!(client.surely_available());
        a.set_readonly(true);
        a.set_readonly(true);
        assert!(client.surely_available());
        b.close();
        b.close();
        assert!(!client.surely_available());
        assert!(b.is_closed() && a.is_readonly());
        a.set_readonly(false);
        assert!(client.surely_available());
        // A writable event after the close does not count a dead connection again.
        a.close();
        a.set_readonly(false);
        assert!(!client.surely_available());
    }

    #[test]
    fn a_closed_client_is_not_surely_available() {
        let client = Availability::new();
        let _a = ConnFlags::open(client.clone());
        client.close();
        assert!(!client.surely_available());
    }

    #[test]
    fn dropping_an_open_connection_leaves_the_count() {
        let client = Availability::new();
        let a = ConnFlags::open(client.clone());
        drop(a);
        assert!(!client.surely_available());
        let b = ConnFlags::open(client.clone());
        b.close();
        drop(b);
        let _c = ConnFlags::open(client.clone());
        assert!(client.surely_available());
    }
}
