//! [`Backoff`]: the wait between failed connect attempts of one connection slot of a client.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Connect failures in a row, when the next attempt may be made, and why the last one failed.
#[derive(Default)]
pub(crate) struct Backoff {
    failures: u32,
    pub(crate) retry_at: Option<Instant>,
    pub(crate) last_error: String,
}

impl Backoff {
    /// Records a failed attempt: the next one waits `base` doubled per failure in a row, at
    /// most `max`.
    pub(crate) fn failed(&mut self, base: Duration, max: Duration, error: String) {
        self.failures = self.failures.saturating_add(1);
        let factor = 1u32 << (self.failures - 1).min(16);
        self.retry_at = Some(Instant::now() + base.saturating_mul(factor).min(max));
        self.last_error = error;
    }
}

/// `backoff` locked: the guarded state is plain data that every writer leaves consistent.
pub(crate) fn lock(backoff: &Mutex<Backoff>) -> MutexGuard<'_, Backoff> {
    backoff.lock().unwrap_or_else(|p| p.into_inner())
}
