//! The service of the registry quickstart, shared by its provider and consumer.

// Each example uses one side of the service (the server or the client).
#![allow(dead_code)]

use dubbo_rs::prelude::*;

/// The service, mapped to a Java interface so Java Dubbo consumers can call it too.
#[dubbo_rs::service(interface = "org.apache.dubbo.demo.GreeterService")]
pub trait GreeterService {
    /// Says hello.
    async fn say_hello(&self, name: String) -> Result<String, RpcError>;
}

/// The registry both sides use: `DUBBO_REGISTRY`, else the embedded file registry in its
/// default directory (no server to run).
pub fn registry() -> String {
    std::env::var("DUBBO_REGISTRY").unwrap_or_else(|_| "file://localhost".to_owned())
}
