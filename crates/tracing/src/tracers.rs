//! The tracers of a framework's applications, found by application name on each call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;

use crate::tracer::Tracer;

/// Each application with tracing enabled installs its [`Tracer`] here; the tracing filter,
/// shared by every chain of the framework, picks the one named by a URL's `application`.
///
/// With no tracer installed, a lookup reads one counter: no snapshot load, no allocation.
#[derive(Debug, Default)]
pub struct Tracers {
    installed: ArcSwap<Vec<Arc<Tracer>>>,
    /// How many are installed, read on every call instead of loading the snapshot.
    count: AtomicUsize,
    /// Serialises installs and removals, so that `count` is stored in the order the
    /// snapshots were (two writers racing could otherwise leave a stale zero).
    writers: Mutex<()>,
}

impl Tracers {
    /// No tracers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Installs `tracer`, replacing one of the same application.
    pub fn install(&self, tracer: Arc<Tracer>) {
        let _writing = self.writers.lock().unwrap_or_else(|p| p.into_inner());
        self.installed.rcu(|current| {
            let mut next: Vec<Arc<Tracer>> = current
                .iter()
                .filter(|t| t.application() != tracer.application())
                .cloned()
                .collect();
            next.push(tracer.clone());
            next
        });
        self.count_installed();
    }

    /// Removes `tracer` (when its application shuts down).
    pub fn remove(&self, tracer: &Arc<Tracer>) {
        let _writing = self.writers.lock().unwrap_or_else(|p| p.into_inner());
        self.installed.rcu(|current| {
            current
                .iter()
                .filter(|t| !Arc::ptr_eq(t, tracer))
                .cloned()
                .collect::<Vec<_>>()
        });
        self.count_installed();
    }

    fn count_installed(&self) {
        self.count
            .store(self.installed.load().len(), Ordering::Release);
    }

    /// Whether any tracer is installed.
    pub fn is_empty(&self) -> bool {
        self.count.load(Ordering::Acquire) == 0
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TracerConfig;

    #[test]
    fn empty_until_a_tracer_is_installed_and_again_once_it_is_removed() {
        let tracers = Tracers::new();
        assert!(tracers.is_empty());
        assert!(tracers.get("demo").is_none());
        let (tracer, _exporter) = Tracer::new(TracerConfig::new("demo")).unwrap();
        let tracer = Arc::new(tracer);
        tracers.install(tracer.clone());
        assert!(!tracers.is_empty());
        assert!(tracers.get("demo").is_some());
        tracers.install(tracer.clone());
        tracers.remove(&tracer);
        assert!(tracers.is_empty(), "a re-install replaced, not added");
        assert!(tracers.get("demo").is_none());
    }
}
