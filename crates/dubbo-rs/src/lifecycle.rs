//! The application's lifecycle: the ordered phases of shutdown that later layers hook into.
//!
//! Shutdown runs in a fixed order so that no consumer calls a provider that is going away:
//!
//! 1. [`Unregister`](ShutdownPhase::Unregister): registries withdraw this application's
//!    providers, so consumers stop choosing them.
//! 2. [`Notify`](ShutdownPhase::Notify): hooks that tell connected consumers (the protocols
//!    themselves send the read-only event / GOAWAY as the next phase starts).
//! 3. [`Drain`](ShutdownPhase::Drain): every protocol refuses new calls, lets the calls in
//!    flight finish within the shutdown wait, and closes its servers; hooks of this phase run
//!    after that.
//! 4. [`Close`](ShutdownPhase::Close): references are released, background tasks are stopped
//!    (newest first), then the hooks of this phase run.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use crate::sync::lock;

/// A step of graceful shutdown, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShutdownPhase {
    /// Withdraw from registries.
    Unregister,
    /// Tell connected consumers that this provider is going away.
    Notify,
    /// Refuse new calls, finish the ones in flight, close servers.
    Drain,
    /// Release references and stop background work.
    Close,
}

impl ShutdownPhase {
    /// Every phase, in order.
    pub const ALL: [ShutdownPhase; 4] = [
        ShutdownPhase::Unregister,
        ShutdownPhase::Notify,
        ShutdownPhase::Drain,
        ShutdownPhase::Close,
    ];
}

/// A boxed future returned by a hook.
pub type HookFuture = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

type Hook = Box<dyn FnOnce() -> HookFuture + Send>;

/// The hooks registered for each phase; each runs once, in registration order.
#[derive(Default)]
pub(crate) struct ShutdownHooks {
    hooks: Mutex<Vec<(ShutdownPhase, Hook)>>,
}

impl ShutdownHooks {
    pub(crate) fn add(&self, phase: ShutdownPhase, hook: Hook) {
        lock(&self.hooks).push((phase, hook));
    }

    /// Runs, one after the other, the hooks of `phase` registered so far.
    pub(crate) async fn run(&self, phase: ShutdownPhase) {
        let due: Vec<Hook> = {
            let mut hooks = lock(&self.hooks);
            let (due, keep): (Vec<_>, Vec<_>) = hooks.drain(..).partition(|(p, _)| *p == phase);
            *hooks = keep;
            due.into_iter().map(|(_, h)| h).collect()
        };
        for hook in due {
            hook().await;
        }
    }
}

impl std::fmt::Debug for ShutdownHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let phases: Vec<ShutdownPhase> = lock(&self.hooks).iter().map(|(p, _)| *p).collect();
        f.debug_struct("ShutdownHooks")
            .field("phases", &phases)
            .finish()
    }
}
