//! The two ends of the connection that carries a call.

use std::net::SocketAddr;

/// Where a call came from and where it arrived: the addresses of the connection that carries
/// it, as a protocol knows them.
///
/// A [`CallContext`](crate::CallContext) holds them behind an `Arc`, so that a protocol can
/// make them once per connection and every call on it shares them; a context without them
/// carries a null pointer, not two empty addresses, through every layer of the call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConnectionAddrs {
    /// The peer's address: the provider on the consumer side, the consumer on the provider
    /// side.
    pub remote: Option<SocketAddr>,
    /// This side's address.
    pub local: Option<SocketAddr>,
}
