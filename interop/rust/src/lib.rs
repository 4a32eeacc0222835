//! The interop provider and consumer of dubbo-rs: the services every protocol must serve and
//! call identically to Java Dubbo 3.3 and gRPC peers.

#![warn(missing_docs)]

pub mod args;
pub mod auth_flags;
pub mod cases;
pub mod cors_flag;
pub mod events_check;
pub mod forbidden;
pub mod load;
pub mod notes;
pub mod provider;
pub mod reference_flags;
pub mod report;
pub mod rest;
pub mod rest_cases;
pub mod service;
pub mod streaming;
pub mod tls_flags;
pub mod tracing_flag;
