//! The Triple client: a shared HTTP/2 channel per provider, calls of the four kinds on it, and
//! the interface-mode invoker.

pub(crate) mod backoff;
pub mod channel;
mod first_read;
pub mod idl_call;
mod idl_send;
pub mod idl_transport;
pub mod interface_reference;
pub mod interface_stream;
pub mod invoker;
pub mod streaming;
pub mod unary;

pub use channel::TripleChannel;
pub use unary::{RawResponse, TripleClient};
