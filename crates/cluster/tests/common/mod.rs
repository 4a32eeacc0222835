//! What the cluster's integration tests share: the service they call and the call itself.

use std::sync::Arc;

use dubbo_core::{Invocation, MethodSignature, ServiceKey};

/// The interface every test provider exports.
pub const SERVICE: &str = "org.example.Greeter";

/// `sayHello("x")` on [`SERVICE`].
pub fn call() -> Invocation {
    Invocation::new(
        ServiceKey::interface_only(SERVICE),
        Arc::new(MethodSignature::new(
            "sayHello",
            &["java.lang.String"],
            "java.lang.String",
        )),
        vec!["x".into()],
    )
}
