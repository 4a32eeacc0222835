//! [`Health`]: whether a REST base URL can be called now, from how its connections fare.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::client::backoff::Backoff;

/// The wait after a failed connection before the base URL counts as available again; it
/// doubles with each further failure in a row, as a Triple channel's reconnect wait does.
pub(crate) const BACKOFF: Duration = Duration::from_millis(100);

/// The longest wait.
pub(crate) const BACKOFF_MAX: Duration = Duration::from_secs(3);

/// Connection failures in a row to one base URL, as a Triple channel counts failed connects:
/// after one the base URL is unavailable for a wait (100 ms, doubling up to 3 s), so the
/// cluster sends calls elsewhere; once the wait is over it may be chosen again, and an answer
/// (any HTTP status) clears the count.
#[derive(Debug, Default)]
pub(crate) struct Health {
    /// Whether the last connection attempt failed, read without the lock on every answer.
    failing: AtomicBool,
    backoff: Mutex<Backoff>,
}

impl Health {
    /// Whether calls should be sent now: no failure, or its wait is over.
    pub(crate) fn is_available(&self) -> bool {
        if !self.failing.load(Ordering::Acquire) {
            return true;
        }
        self.backoff
            .lock()
            .map_or(true, |b| b.remaining(Instant::now()).is_none())
    }

    /// Records a connection that could not be made.
    pub(crate) fn failed(&self, error: String) {
        if let Ok(mut b) = self.backoff.lock() {
            b.failed(BACKOFF, BACKOFF_MAX, error);
            self.failing.store(true, Ordering::Release);
        }
    }

    /// Records an answer: the base URL is reachable.
    pub(crate) fn answered(&self) {
        if self.failing.swap(false, Ordering::AcqRel) {
            if let Ok(mut b) = self.backoff.lock() {
                b.succeeded();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unavailable_for_a_wait_after_a_failure_and_cleared_by_an_answer() {
        let h = Health::default();
        assert!(h.is_available());
        h.failed("refused".into());
        assert!(!h.is_available());
        std::thread::sleep(BACKOFF + Duration::from_millis(20));
        assert!(h.is_available(), "the wait is over: worth trying again");
        h.failed("refused".into());
        assert!(!h.is_available(), "a second failure waits again (longer)");
        h.answered();
        assert!(h.is_available());
        h.failed("refused".into());
        assert!(!h.is_available());
    }
}
