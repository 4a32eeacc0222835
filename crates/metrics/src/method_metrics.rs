//! The numbers of one key: counters since start, the last and extreme response times, and
//! the sliding window.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::clock::{Clock, Tick};
use crate::failure::FailureKind;
use crate::window::{Window, WindowConfig, WindowSnapshot};

const KINDS: usize = FailureKind::ALL.len();

/// Call metrics of one [`MetricKey`](crate::MetricKey). Every field is an atomic: recording
/// takes no lock.
#[derive(Debug)]
pub struct MethodMetrics {
    // No count of successes here: the window keeps it since start with its response-time
    // sum, in the same locked add.
    failed: [AtomicU64; KINDS],
    /// Calls counted as started. In flight is started less completed less abandoned, so a
    /// call pays one locked add to enter and none extra to leave (its outcome's counter
    /// already says it completed).
    started: AtomicU64,
    /// Started calls the caller gave up on.
    abandoned: AtomicU64,
    rt_last: AtomicU64,
    rt_min: AtomicU64,
    rt_max: AtomicU64,
    // No sum of response times here either: the window keeps it since start (its slots and
    // what left them), one locked add fewer per call.
    window: Window,
}

/// The numbers of one key at one moment. Response times are in milliseconds, Java's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsSnapshot {
    /// Calls completed since start.
    pub total: u64,
    /// Calls that succeeded since start.
    pub succeeded: u64,
    /// Failed calls since start by kind, indexed by [`FailureKind::index`].
    pub failed: [u64; KINDS],
    /// Calls in progress now.
    pub processing: i64,
    /// The response time of the last call.
    pub rt_last_ms: f64,
    /// The smallest response time since start (0 before the first call).
    pub rt_min_ms: f64,
    /// The largest response time since start.
    pub rt_max_ms: f64,
    /// The sum of the response times since start.
    pub rt_sum_ms: f64,
    /// Calls with a response time since start (the same as `total`).
    pub rt_count: u64,
    /// The mean response time since start (0 before the first call).
    pub rt_avg_ms: f64,
    /// The sliding window's numbers.
    pub window: WindowSnapshot,
}

impl MetricsSnapshot {
    /// Failed calls of every kind since start.
    pub fn failed_total(&self) -> u64 {
        self.failed.iter().sum()
    }

    /// Failed calls of one kind since start.
    pub fn failed(&self, kind: FailureKind) -> u64 {
        self.failed.get(kind.index()).copied().unwrap_or(0)
    }
}

impl MethodMetrics {
    pub(crate) fn new(config: WindowConfig, origin: Instant) -> Self {
        Self {
            failed: Default::default(),
            started: AtomicU64::new(0),
            abandoned: AtomicU64::new(0),
            rt_last: AtomicU64::new(0),
            rt_min: AtomicU64::new(u64::MAX),
            rt_max: AtomicU64::new(0),
            window: Window::new(config, origin),
        }
    }

    /// Counts a call as started (in flight).
    pub fn begin(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a started call as no longer in flight without recording an outcome (the caller
    /// gave up on it).
    pub fn abandon(&self) {
        self.abandoned.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a started call that ended at `ended` after `micros` microseconds, successfully
    /// or with `failure`.
    pub fn end(&self, ended: Instant, micros: u64, failure: Option<FailureKind>) {
        self.complete(ended, micros, failure);
    }

    /// Records a call that was not counted as started.
    pub fn record(&self, ended: Instant, micros: u64, failure: Option<FailureKind>) {
        // Counted as started too, so that it is not taken for a call in flight.
        self.started.fetch_add(1, Ordering::Relaxed);
        self.complete(ended, micros, failure);
    }

    /// Records a started call that began at `start` and ended at `end` by the store's `clock`.
    pub(crate) fn end_between(
        &self,
        clock: &Clock,
        start: Tick,
        end: Tick,
        failure: Option<FailureKind>,
    ) {
        let micros = clock.nanos_between(start, end) / 1_000;
        self.complete_at(clock.millis_since_origin(end), micros, failure);
    }

    fn complete(&self, ended: Instant, micros: u64, failure: Option<FailureKind>) {
        self.complete_at(self.window.millis(ended), micros, failure);
    }

    /// Records a completed call.
    fn complete_at(&self, ended_ms: u64, micros: u64, failure: Option<FailureKind>) {
        // No separate total: it is succeeded plus failed, one locked add fewer per call; a
        // success is counted by the window.
        if let Some(f) = failure.and_then(|kind| self.failed.get(kind.index())) {
            f.fetch_add(1, Ordering::Relaxed);
        }
        self.rt_last.store(micros, Ordering::Relaxed);
        // A plain load first: the extremes rarely change, and a locked read-modify-write on
        // every call would cost more than the rest of the counters.
        if micros < self.rt_min.load(Ordering::Relaxed) {
            self.rt_min.fetch_min(micros, Ordering::Relaxed);
        }
        if micros > self.rt_max.load(Ordering::Relaxed) {
            self.rt_max.fetch_max(micros, Ordering::Relaxed);
        }
        self.window.record_at(ended_ms, micros, failure);
    }

    /// The numbers as of `now`.
    pub fn snapshot(&self, now: Instant) -> MetricsSnapshot {
        let ms = |us: u64| us as f64 / 1000.0;
        // Completions are read before the starts: a call always starts before it completes,
        // so read in this order the difference cannot count a call that is not there.
        let abandoned = self.abandoned.load(Ordering::Acquire);
        let mut failed = [0; KINDS];
        for (o, f) in failed.iter_mut().zip(self.failed.iter()) {
            *o = f.load(Ordering::Relaxed);
        }
        let (succeeded, sum) = self.window.since_start();
        let total = succeeded + failed.iter().sum::<u64>();
        let started = self.started.load(Ordering::Acquire);
        let processing = started.saturating_sub(total + abandoned);
        let min = self.rt_min.load(Ordering::Relaxed);
        MetricsSnapshot {
            total,
            succeeded,
            failed,
            processing: i64::try_from(processing).unwrap_or(i64::MAX),
            rt_last_ms: ms(self.rt_last.load(Ordering::Relaxed)),
            rt_min_ms: if min == u64::MAX { 0.0 } else { ms(min) },
            rt_max_ms: ms(self.rt_max.load(Ordering::Relaxed)),
            rt_sum_ms: ms(sum),
            rt_count: total,
            rt_avg_ms: if total == 0 {
                0.0
            } else {
                ms(sum) / total as f64
            },
            window: self.window.snapshot(now),
        }
    }

    /// The window's shape.
    pub fn window_config(&self) -> WindowConfig {
        self.window.config()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_kind_and_response_times() {
        let origin = Instant::now();
        let m = MethodMetrics::new(WindowConfig::default(), origin);
        m.begin();
        m.begin();
        assert_eq!(m.snapshot(origin).processing, 2);
        m.end(origin, 2_000, None);
        m.end(origin, 4_000, Some(FailureKind::Timeout));
        m.record(origin, 1_000, Some(FailureKind::Business));
        m.record(origin, 3_000, Some(FailureKind::Network));
        let s = m.snapshot(origin);
        assert_eq!(s.processing, 0);
        assert_eq!(s.total, 4);
        assert_eq!(s.succeeded, 1);
        assert_eq!(s.failed_total(), 3);
        assert_eq!(s.failed(FailureKind::Timeout), 1);
        assert_eq!(s.failed(FailureKind::Business), 1);
        assert_eq!(s.failed(FailureKind::Network), 1);
        assert_eq!(s.failed(FailureKind::Codec), 0);
        assert_eq!(s.rt_last_ms, 3.0);
        assert_eq!(s.rt_min_ms, 1.0);
        assert_eq!(s.rt_max_ms, 4.0);
        assert_eq!(s.rt_sum_ms, 10.0);
        assert_eq!(s.rt_avg_ms, 2.5);
        assert_eq!(s.window.total, 4);
        assert_eq!(s.window.failed_total(), 3);
    }
}
