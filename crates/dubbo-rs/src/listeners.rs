//! Listeners told of what an application serves and calls, as it changes: the hook that
//! registries, the metadata service and QoS use to follow exports and references.

use crate::view::{ExportedService, ReferredService};

/// Told, synchronously and in order, of every export, withdrawal and reference of an
/// application's modules. Work that takes time (a registry write) belongs in a task spawned on
/// [`Application::tasks`](crate::Application::tasks), so the export is not held up.
///
/// Every method has an empty default, so a listener implements only what it follows.
pub trait ServiceListener: Send + Sync + 'static {
    /// A service was exported on one protocol.
    fn exported(&self, service: &ExportedService) {
        let _ = service;
    }

    /// An export was withdrawn (module released or application shut down).
    fn unexported(&self, service: &ExportedService) {
        let _ = service;
    }

    /// A reference was made.
    fn referred(&self, reference: &ReferredService) {
        let _ = reference;
    }

    /// A reference was released.
    fn released(&self, reference: &ReferredService) {
        let _ = reference;
    }
}
