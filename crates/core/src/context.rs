//! The per-call context: what travels with a call inside the process but not on the wire.

use std::any::{Any, TypeId};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::connection_addrs::ConnectionAddrs;

/// One typed attribute: its type and its shared value.
type Attribute = (TypeId, Arc<dyn Any + Send + Sync>);

/// Local, per-call state that filters, routers and protocols share.
///
/// It is passed explicitly with the [`Invocation`](crate::Invocation) rather than kept in a
/// thread-local, so it follows the call across tasks and awaits.
///
/// Cloning is cheap: typed attributes are shared (`Arc`), so a clone sent to a second provider
/// by a fault-tolerance strategy sees the same attributes. An attribute that must collect
/// something from inner layers (a [`CallReport`](crate::CallReport), a reply slot) is therefore
/// shared by every attempt of one call.
///
/// The context is kept small (48 bytes): every layer of a call moves the
/// [`Invocation`](crate::Invocation) by value, copying each of its bytes, and clones and drops
/// cost by the field. The addresses and the attributes, which most calls on the consumer's side
/// do not have, are one pointer each, and a retry's clone shares the attributes.
#[derive(Default, Clone)]
pub struct CallContext {
    deadline: Option<Instant>,
    addrs: Option<Arc<ConnectionAddrs>>,
    /// Copied on write: a call sets few attributes, and a retry's clone of the context only
    /// takes another reference to them.
    attributes: Option<Arc<[Attribute]>>,
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

    /// Time left before the deadline; `None` means no deadline, zero means expired.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// The peer's address: the provider on the consumer side, the consumer on the provider side.
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.addrs.as_ref().and_then(|a| a.remote)
    }

    /// Records the peer's address.
    pub fn set_remote_addr(&mut self, addr: SocketAddr) {
        self.addrs_mut().remote = Some(addr);
    }

    /// This side's address of the connection that carries the call.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.addrs.as_ref().and_then(|a| a.local)
    }

    /// Records this side's address.
    pub fn set_local_addr(&mut self, addr: SocketAddr) {
        self.addrs_mut().local = Some(addr);
    }

    /// Both ends of the connection that carries the call, when a protocol recorded them.
    pub fn connection_addrs(&self) -> Option<&Arc<ConnectionAddrs>> {
        self.addrs.as_ref()
    }

    /// Records both ends at once, shared: a protocol makes them once per connection and
    /// hands each of its calls a reference, where setting them one by one would allocate
    /// per call.
    pub fn set_connection_addrs(&mut self, addrs: Arc<ConnectionAddrs>) {
        self.addrs = Some(addrs);
    }

    fn addrs_mut(&mut self) -> &mut ConnectionAddrs {
        Arc::make_mut(self.addrs.get_or_insert_with(Default::default))
    }

    fn attribute(&self, of: TypeId) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.attributes
            .as_deref()?
            .iter()
            .find(|(t, _)| *t == of)
            .map(|(_, v)| v)
    }

    /// A typed attribute previously stored with [`insert`](Self::insert).
    pub fn get<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.attribute(TypeId::of::<T>())
            .and_then(|b| b.downcast_ref::<T>())
    }

    /// A typed attribute as a shared handle, for one that inner layers fill in (e.g. a
    /// [`CallReport`](crate::CallReport)) and the caller reads after the call.
    pub fn get_shared<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        self.attribute(TypeId::of::<T>())
            .and_then(|b| Arc::clone(b).downcast::<T>().ok())
    }

    /// Stores a typed attribute, one per type, returning the previous one (shared with any
    /// clone of this context that still holds it).
    pub fn insert<T: Any + Send + Sync>(&mut self, value: T) -> Option<Arc<T>> {
        let of = TypeId::of::<T>();
        let previous = self.attribute(of).cloned();
        let value: Arc<dyn Any + Send + Sync> = Arc::new(value);
        // One allocation of the exact size: the others, then the new value.
        self.attributes = Some(
            self.others(of)
                .chain(std::iter::once((of, value)))
                .collect(),
        );
        previous.and_then(|b| b.downcast::<T>().ok())
    }

    /// Removes a typed attribute.
    pub fn remove<T: Any + Send + Sync>(&mut self) -> Option<Arc<T>> {
        let of = TypeId::of::<T>();
        let previous = self.attribute(of)?.clone();
        let rest: Arc<[Attribute]> = self.others(of).collect();
        self.attributes = (!rest.is_empty()).then_some(rest);
        previous.downcast::<T>().ok()
    }

    /// The attributes of every type but `of`, shared.
    fn others(&self, of: TypeId) -> impl Iterator<Item = Attribute> + '_ {
        self.attributes
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .filter(move |(t, _)| *t != of)
            .cloned()
    }
}

impl std::fmt::Debug for CallContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallContext")
            .field("deadline", &self.deadline)
            .field("remote_addr", &self.remote_addr())
            .field("local_addr", &self.local_addr())
            .field(
                "attributes",
                &self.attributes.as_deref().map_or(0, <[_]>::len),
            )
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

    #[test]
    fn attributes_of_several_types_keep_their_values_and_clones_their_own() {
        let mut cx = CallContext::new();
        cx.insert(1u8);
        cx.insert("two");
        cx.insert(3u64);
        let copy = cx.clone();
        assert_eq!(cx.insert(4u8).as_deref(), Some(&1));
        assert_eq!(cx.get::<u8>(), Some(&4));
        assert_eq!(cx.get::<&str>(), Some(&"two"));
        assert_eq!(cx.get::<u64>(), Some(&3));
        assert_eq!(
            copy.get::<u8>(),
            Some(&1),
            "a clone does not see a later insert"
        );
        assert_eq!(cx.remove::<&str>().as_deref(), Some(&"two"));
        assert!(cx.remove::<&str>().is_none());
        assert_eq!(cx.get::<u64>(), Some(&3));
        assert_eq!(copy.get::<&str>(), Some(&"two"), "nor a later remove");
    }

    #[test]
    fn addresses_set_one_by_one_or_shared_per_connection() {
        let remote: SocketAddr = "10.0.0.1:20880".parse().unwrap();
        let local: SocketAddr = "10.0.0.2:41000".parse().unwrap();
        let mut cx = CallContext::new();
        assert_eq!(cx.remote_addr(), None);
        cx.set_remote_addr(remote);
        let copy = cx.clone();
        cx.set_local_addr(local);
        assert_eq!(
            (cx.remote_addr(), cx.local_addr()),
            (Some(remote), Some(local))
        );
        assert_eq!(copy.local_addr(), None, "a clone keeps its own addresses");

        let shared = Arc::new(ConnectionAddrs {
            remote: Some(remote),
            local: Some(local),
        });
        let mut a = CallContext::new();
        a.set_connection_addrs(shared.clone());
        assert!(Arc::ptr_eq(a.connection_addrs().unwrap(), &shared));
        assert_eq!(a.local_addr(), Some(local));
    }

    #[test]
    fn the_context_stays_small() {
        assert!(std::mem::size_of::<CallContext>() <= 48);
        assert!(std::mem::size_of::<crate::Invocation>() <= 136);
    }
}
