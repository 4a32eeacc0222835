//! The last second of a service's completed calls, in ten buckets.

use std::time::{Duration, Instant};

/// Buckets in the window.
const BUCKETS: usize = 10;
/// One bucket's span; the window is [`BUCKETS`] of them, one second.
const BUCKET_SPAN: Duration = Duration::from_millis(100);

#[derive(Debug, Clone, Copy, Default)]
struct Bucket {
    calls: u64,
    latency_us: u64,
    min_us: Option<u64>,
}

/// What a window says about the last second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WindowStats {
    /// Calls completed.
    pub calls: u64,
    /// Their mean latency, seconds.
    pub mean_latency: f64,
    /// The shortest latency among them, seconds.
    pub min_latency: f64,
    /// The highest rate of completions of any whole bucket, calls per second; `None` while
    /// no bucket is whole yet (a rate over the first few milliseconds says little).
    pub max_rate: Option<f64>,
}

/// A ring of [`BUCKETS`] buckets, each [`BUCKET_SPAN`] long; the oldest is emptied and reused
/// when time moves past it. Not synchronised: its owner holds it under a lock.
#[derive(Debug)]
pub(crate) struct Window {
    buckets: [Bucket; BUCKETS],
    /// Start of the bucket at `current`.
    current_start: Instant,
    current: usize,
    /// Whole buckets seen since then, up to [`BUCKETS`].
    whole: usize,
}

impl Window {
    pub(crate) fn new(now: Instant) -> Self {
        Self {
            buckets: [Bucket::default(); BUCKETS],
            current_start: now,
            current: 0,
            whole: 0,
        }
    }

    /// Counts one call that took `latency` and ended at `now`.
    pub(crate) fn record(&mut self, latency: Duration, now: Instant) {
        self.rotate(now);
        let us = u64::try_from(latency.as_micros()).unwrap_or(u64::MAX);
        let b = &mut self.buckets[self.current];
        b.calls += 1;
        b.latency_us = b.latency_us.saturating_add(us);
        b.min_us = Some(b.min_us.map_or(us, |m| m.min(us)));
    }

    /// The window's figures at `now`; `None` when it holds no call.
    pub(crate) fn stats(&mut self, now: Instant) -> Option<WindowStats> {
        self.rotate(now);
        let mut calls = 0u64;
        let mut latency_us = 0u64;
        let mut min_us: Option<u64> = None;
        let mut max_rate = 0f64;
        for (i, b) in self.buckets.iter().enumerate() {
            calls += b.calls;
            latency_us = latency_us.saturating_add(b.latency_us);
            if let Some(m) = b.min_us {
                min_us = Some(min_us.map_or(m, |x| x.min(m)));
            }
            if i != self.current {
                max_rate = max_rate.max(b.calls as f64 / BUCKET_SPAN.as_secs_f64());
            }
        }
        if calls == 0 {
            return None;
        }
        Some(WindowStats {
            calls,
            mean_latency: latency_us as f64 / calls as f64 / 1e6,
            min_latency: min_us.unwrap_or(0) as f64 / 1e6,
            max_rate: (self.whole > 0).then_some(max_rate),
        })
    }

    fn rotate(&mut self, now: Instant) {
        let mut passed = now.saturating_duration_since(self.current_start);
        // After a silence longer than the window, every bucket is stale: empty them at once
        // rather than one by one.
        if passed >= BUCKET_SPAN * BUCKETS as u32 {
            self.buckets = [Bucket::default(); BUCKETS];
            self.current_start = now;
            self.whole = BUCKETS;
            return;
        }
        while passed >= BUCKET_SPAN {
            self.current = (self.current + 1) % BUCKETS;
            self.buckets[self.current] = Bucket::default();
            self.current_start += BUCKET_SPAN;
            passed -= BUCKET_SPAN;
            self.whole = (self.whole + 1).min(BUCKETS);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn figures_of_the_last_second() {
        let t0 = Instant::now();
        let mut w = Window::new(t0);
        assert_eq!(w.stats(t0), None);
        // 20 calls of 2 ms in the first bucket, 40 of 4 ms in the second.
        for i in 0..20 {
            w.record(2 * MS, t0 + i * MS);
        }
        for i in 0..40 {
            w.record(4 * MS, t0 + 100 * MS + i * MS);
        }
        let s = w.stats(t0 + 150 * MS).unwrap();
        assert_eq!(s.calls, 60);
        assert!((s.mean_latency - (20.0 * 0.002 + 40.0 * 0.004) / 60.0).abs() < 1e-9);
        assert!((s.min_latency - 0.002).abs() < 1e-9);
        // The whole first bucket: 20 calls in 100 ms.
        assert!((s.max_rate.unwrap() - 200.0).abs() < 1e-9, "{s:?}");
        // A second later the first two buckets have gone.
        assert_eq!(w.stats(t0 + 1250 * MS), None);
    }

    #[test]
    fn no_rate_before_a_bucket_is_whole() {
        let t0 = Instant::now();
        let mut w = Window::new(t0);
        for i in 0..10 {
            w.record(MS, t0 + i * 5 * MS);
        }
        let s = w.stats(t0 + 50 * MS).unwrap();
        assert_eq!((s.calls, s.max_rate), (10, None));
        assert!(w.stats(t0 + 120 * MS).unwrap().max_rate.is_some());
    }
}
