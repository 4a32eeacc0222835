//! The cluster layer of dubbo-rs: many providers behind one reference.
//!
//! A reference's call goes through, in order:
//!
//! - a [`Directory`](dubbo_core::Directory): the providers known now, as an immutable snapshot
//!   ([`directory`]: static lists and the dynamic one fed by registry notifications);
//! - override rules ([`configurator`]) rewrite provider URLs as governance tools say, before
//!   the directory builds their invokers;
//! - a [`RouterChain`](router::RouterChain): condition and tag rules narrow the list
//!   ([`router`]);
//! - a [`LoadBalance`](dubbo_core::LoadBalance): picks one provider ([`loadbalance`]: random,
//!   round robin, least active, shortest response, consistent hash, P2C, adaptive);
//! - a fault-tolerance strategy: what to do when that provider fails ([`strategy`]: failover,
//!   failfast, failsafe, failback, forking, broadcast, available, ...).
//!
//! Every choice is made by name from the framework's extension table, with Java Dubbo's names
//! (`loadbalance=roundrobin`, `cluster=failback`), so a Java user's settings carry over.

#![warn(missing_docs)]

mod cluster_invoker;
pub mod configurator;
pub mod directory;
mod fair_share;
pub mod loadbalance;
pub mod merger;
pub mod router;
pub mod strategy;

pub use cluster_invoker::{ClusterInvoker, DEFAULT_LOADBALANCE, DEFAULT_RETRIES};
pub use configurator::{Configurator, ConfiguratorKind, ConfiguratorSource, Configurators};
