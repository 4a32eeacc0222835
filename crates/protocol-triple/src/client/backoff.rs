//! [`Backoff`]: the wait between failed connect attempts of a channel.

use std::time::{Duration, Instant};

/// Connect failures in a row and when the next attempt may be made.
///
/// Without it a provider that is down would be dialled by every call, and a channel that
/// failed once would have no way to say when it is worth trying again.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    failures: u32,
    retry_at: Option<Instant>,
    last_error: String,
}

impl Backoff {
    /// How long until the next attempt is allowed; `None` when one may be made now.
    pub(crate) fn remaining(&self, now: Instant) -> Option<Duration> {
        self.retry_at
            .filter(|at| now < *at)
            .map(|at| at.saturating_duration_since(now))
    }

    /// The error of the last failed attempt.
    pub(crate) fn last_error(&self) -> &str {
        &self.last_error
    }

    /// Records a failed attempt: the wait is `base` doubled per failure in a row, at most `max`.
    pub(crate) fn failed(&mut self, base: Duration, max: Duration, error: String) {
        self.failures = self.failures.saturating_add(1);
        let factor = 1u32 << (self.failures - 1).min(16);
        let wait = base.saturating_mul(factor).min(max);
        self.retry_at = Some(Instant::now() + wait);
        self.last_error = error;
    }

    /// Records a successful attempt: the next failure waits `base` again.
    pub(crate) fn succeeded(&mut self) {
        *self = Backoff::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_up_to_the_maximum_and_resets() {
        let base = Duration::from_millis(100);
        let max = Duration::from_millis(350);
        let mut b = Backoff::default();
        assert_eq!(b.remaining(Instant::now()), None);
        let mut waits = Vec::new();
        for _ in 0..4 {
            let before = Instant::now();
            b.failed(base, max, "refused".into());
            let at = b.retry_at.unwrap();
            waits.push(at.duration_since(before).as_millis() / 50 * 50);
        }
        assert_eq!(waits, vec![100, 200, 350, 350]);
        assert!(b.remaining(Instant::now()).is_some());
        assert_eq!(b.last_error(), "refused");
        b.succeeded();
        assert_eq!(b.remaining(Instant::now()), None);
        b.failed(base, max, "again".into());
        let left = b.remaining(Instant::now()).unwrap();
        assert!(left <= base);
    }
}
