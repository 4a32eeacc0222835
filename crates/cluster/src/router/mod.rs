//! Routers: rules that narrow the providers a call may go to.

mod chain;

pub use chain::RouterChain;
