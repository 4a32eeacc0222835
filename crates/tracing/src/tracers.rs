//! The tracers of a framework's applications, found by application name on each call.

use std::sync::Arc;

use arc_swap::ArcSwap;

use crate::tracer::Tracer;

/// Each application with tracing enabled installs its [`Tracer`] here; the tracing filter,
/// shared by every chain of the framework, picks the one named by a URL's `application`.
///
/// With no tracer installed, a lookup is one atomic load and no allocation.
#[derive(Debug, Default)]
pub struct Tracers {
    installed: ArcSwap<Vec<Arc<Tracer>>>,
}

impl Tracers {
    /// No tracers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Installs `tracer`, replacing one of the same application.
    pub fn install(&self, tracer: Arc<Tracer>) {
        self.installed.rcu(|current| {
            let mut next: Vec<Arc<Tracer>> = current
                .iter()
                .filter(|t| t.application() != tracer.application())
                .cloned()
                .collect();
            next.push(tracer.clone());
            next
        });
    }

    /// Removes `tracer` (when its application shuts down).
    pub fn remove(&self, tracer: &Arc<Tracer>) {
        self.installed.rcu(|current| {
            current
                .iter()
                .filter(|t| !Arc::ptr_eq(t, tracer))
                .cloned()
                .collect::<Vec<_>>()
        });
    }

    /// Whether any tracer is installed.
    pub fn is_empty(&self) -> bool {
        self.installed.load().is_empty()
    }

    /// The tracer of `application`, if it has one.
    pub fn get(&self, application: &str) -> Option<Arc<Tracer>> {
        let installed = self.installed.load();
        if installed.is_empty() {
            return None;
        }
        installed
            .iter()
            .find(|t| t.application() == application)
            .cloned()
    }
}
