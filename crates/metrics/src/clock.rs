//! The clock a store's calls are timed with: [`Instant`], read as nanoseconds since the
//! store's origin so that a call's start fits in a `u64`.

use std::time::Instant;

/// A reading of a [`Clock`]: nanoseconds since its origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Tick(pub(crate) u64);

/// The time source of one store.
#[derive(Debug)]
pub(crate) struct Clock {
    origin: Instant,
}

impl Clock {
    /// A clock whose origin is `origin` (the store's).
    pub(crate) fn new(origin: Instant) -> Self {
        Self { origin }
    }

    /// The time now.
    #[inline]
    pub(crate) fn now(&self) -> Tick {
        Tick(u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX))
    }

    /// Nanoseconds from `start` to `end`; 0 when `end` reads earlier.
    #[inline]
    pub(crate) fn nanos_between(&self, start: Tick, end: Tick) -> u64 {
        end.0.saturating_sub(start.0)
    }

    /// Milliseconds from the origin to `at`.
    #[inline]
    pub(crate) fn millis_since_origin(&self, at: Tick) -> u64 {
        at.0 / 1_000_000
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn spin(d: Duration) {
        let t = Instant::now();
        while t.elapsed() < d {
            std::hint::spin_loop();
        }
    }

    #[test]
    fn a_reading_before_the_start_saturates_at_zero() {
        let clock = Clock::new(Instant::now());
        let a = clock.now();
        spin(Duration::from_micros(50));
        let b = clock.now();
        assert_eq!(clock.nanos_between(b, a), 0);
        assert!(clock.nanos_between(a, b) >= 50_000);
        assert_eq!(clock.millis_since_origin(Tick(0)), 0);
    }

    #[test]
    fn millis_since_origin_follow_the_monotonic_clock() {
        let origin = Instant::now();
        let clock = Clock::new(origin);
        spin(Duration::from_millis(30));
        let by_clock = clock.millis_since_origin(clock.now());
        let by_instant = origin.elapsed().as_millis() as u64;
        assert!(
            by_clock.abs_diff(by_instant) <= 1,
            "clock {by_clock} ms, instant {by_instant} ms"
        );
    }
}
