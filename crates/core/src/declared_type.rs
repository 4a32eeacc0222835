//! [`DeclaredReturnType`]: where a provider learns the Java return type a method declares.
//!
//! Java's Triple provider names the method's declared return type in every wrapper-mode
//! response (`int`, `void`, `org.example.User`), not the runtime class of the value; a `void`
//! method says `void`, and a method declared `Object` says `java.lang.Object` whatever it
//! returns. Only the service knows its declarations, so a protocol that needs the name puts an
//! empty slot in the invocation's [`CallContext`](crate::CallContext), and the
//! [`ServiceInvoker`](crate::service::ServiceInvoker) at the end of the chain fills it from
//! the called method's signature.

use std::sync::{Arc, Mutex};

/// A slot for the declared return type of the method an invocation calls.
#[derive(Debug, Default)]
pub struct DeclaredReturnType(Mutex<Option<Arc<str>>>);

impl DeclaredReturnType {
    /// An empty slot.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `java_type` (a `Class.getName()`).
    pub fn set(&self, java_type: &str) {
        // Only an `Option` is guarded and every writer leaves it whole.
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(Arc::from(java_type));
    }

    /// The recorded type, if the service declared one.
    pub fn get(&self) -> Option<Arc<str>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
