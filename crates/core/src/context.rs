//! The per-call context: what travels with a call inside the process but not on the wire.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Local, per-call state that filters, routers and protocols share.
///
/// It is passed explicitly with the [`Invocation`](crate::Invocation) rather than kept in a
/// thread-local, so it follows the call across tasks and awaits.
///
/// Cloning is cheap: typed attributes are shared (`Arc`), so a clone sent to a second provider
/// by a fault-tolerance strategy sees the same attributes. An attribute that must collect
/// something from inner layers (a [`CallReport`](crate::CallReport), a reply slot) is therefore
/// shared by every attempt of one call.
#[derive(Default, Clone)]
pub struct CallContext {
    deadline: Option<Instant>,
    remote_addr: Option<SocketAddr>,
    local_addr: Option<SocketAddr>,
    encoded_result_ok: bool,
    attributes: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl CallContext {
    /// An empty context with no deadline.
    pub fn new() -> Self {
        Self::default()
    }

    /// The instant by which the call must complete.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Sets the deadline; an earlier existing deadline is kept.
    pub fn set_deadline(&mut self, deadline: Instant) {
        self.deadline = Some(match self.deadline {
            Some(d) if d < deadline => d,
            _ => deadline,
        });
    }

    /// Sets the deadline to `timeout` from now (an earlier existing deadline is kept).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.set_deadline(Instant::now() + timeout);
    }

    /// Lets the protocol return the result still in its wire form
    /// ([`Value::Encoded`](crate::Value::Encoded)), for a caller that decodes it into its own
    /// type straight away (the typed clients do): that skips building a `Value` tree. Off by
    /// default, so filters and raw callers see trees.
    pub fn accept_encoded_result(&mut self) {
        self.encoded_result_ok = true;
    }

    /// Whether [`accept_encoded_result`](Self::accept_encoded_result) was called.
    pub fn accepts_encoded_result(&self) -> bool {
        self.encoded_result_ok
    }

    /// Time left before the deadline; `None` means no deadline, zero means expired.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// The peer's address: the provider on the consumer side, the consumer on the provider side.
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.remote_addr
    }

    /// Records the peer's address.
    pub fn set_remote_addr(&mut self, addr: SocketAddr) {
        self.remote_addr = Some(addr);
    }

    /// This side's address of the connection that carries the call.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local_addr
    }

    /// Records this side's address.
    pub fn set_local_addr(&mut self, addr: SocketAddr) {
        self.local_addr = Some(addr);
    }

    /// A typed attribute previously stored with [`insert`](Self::insert).
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.attributes
            .get(&TypeId::of::<T>())
            .and_then(|b| b.downcast_ref::<T>())
    }

    /// A typed attribute as a shared handle, for one that inner layers fill in (e.g. a
    /// [`CallReport`](crate::CallReport)) and the caller reads after the call.
    pub fn get_shared<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.attributes
            .get(&TypeId::of::<T>())
            .and_then(|b| Arc::clone(b).downcast::<T>().ok())
    }

    /// Stores a typed attribute, one per type, returning the previous one (shared with any
    /// clone of this context that still holds it).
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) -> Option<Arc<T>> {
        self.attributes
            .insert(TypeId::of::<T>(), Arc::new(value))
            .and_then(|b| b.downcast::<T>().ok())
    }

    /// Removes a typed attribute.
    pub fn remove<T: Any + Send + Sync>(&mut self) -> Option<Arc<T>> {
        self.attributes
            .remove(&TypeId::of::<T>())
            .and_then(|b| b.downcast::<T>().ok())
    }
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("deadline", &self.deadline)
            .field("remote_addr", &self.remote_addr)
            .field("local_addr", &self.local_addr)
            .field("attributes", &self.attributes.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_earliest_deadline() {
        let mut cx = CallContext::new();
        cx.set_timeout(Duration::from_millis(50));
        let first = cx.deadline();
        cx.set_timeout(Duration::from_secs(60));
        assert_eq!(cx.deadline(), first);
    }

    #[test]
    fn typed_attributes() {
        let mut cx = CallContext::new();
        assert!(cx.insert(7u32).is_none());
        assert_eq!(cx.get::<u32>(), Some(&7));
        assert_eq!(cx.insert(8u32).as_deref(), Some(&7));
        let copy = cx.clone();
        assert_eq!(cx.remove::<u32>().as_deref(), Some(&8));
        assert!(cx.get::<u32>().is_none());
        assert_eq!(copy.get::<u32>(), Some(&8), "a clone keeps its attributes");
    }
}
