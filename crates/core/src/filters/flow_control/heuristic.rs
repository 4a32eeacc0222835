//! `heuristicSmoothingFlowControl`: a concurrency bound from Little's law, recomputed after
//! every call.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::window::Window;
use super::{to_bound, Algorithm, INITIAL_MAX_CONCURRENCY};

/// How much the mean latency may rise over the no-load latency before the bound closes in.
const ALPHA: f64 = 0.3;
/// Up to this CPU usage the window's shortest latency is taken as the no-load latency.
const LOW_CPU: f64 = 0.2;
/// Up to this usage the no-load latency follows the shortest latency half way; above it, only
/// downwards (a loaded machine's latencies say little about its unloaded ones).
const HIGH_CPU: f64 = 0.6;
/// The weight of the window's shortest latency when the no-load latency is smoothed.
const SMOOTHING: f64 = 0.5;

/// The bound is `max_rate × ((2 + α) × no_load − mean)` over the last second: with calls as
/// fast as unloaded ones it admits `(1 + α)` times the concurrency the rate needs; as queueing
/// pushes the mean latency towards `(2 + α) × no_load`, it shrinks towards one.
#[derive(Debug)]
pub(crate) struct HeuristicSmoothing {
    max: AtomicUsize,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    window: Window,
    /// Seconds; 0 before the first estimate.
    no_load: f64,
}

impl HeuristicSmoothing {
    pub(crate) fn new(now: Instant) -> Self {
        Self {
            max: AtomicUsize::new(INITIAL_MAX_CONCURRENCY),
            state: Mutex::new(State {
                window: Window::new(now),
                no_load: 0.0,
            }),
        }
    }
}

impl Algorithm for HeuristicSmoothing {
    fn max_concurrency(&self) -> usize {
        self.max.load(Ordering::Relaxed)
    }

    fn completed(&self, latency: Duration, now: Instant, cpu: f64) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.window.record(latency, now);
        let Some(stats) = st.window.stats(now) else {
            let halved = (self.max_concurrency() / 2).max(1);
            self.max.store(halved, Ordering::Relaxed);
            return;
        };
        let min = stats.min_latency;
        st.no_load = if st.no_load == 0.0 || cpu <= LOW_CPU {
            min
        } else {
            let smoothed = SMOOTHING * min + (1.0 - SMOOTHING) * st.no_load;
            if cpu <= HIGH_CPU {
                smoothed
            } else {
                smoothed.min(st.no_load)
            }
        };
        // The first 100 ms keep the initial bound: their rate is too short a sample.
        let Some(max_rate) = stats.max_rate else {
            return;
        };
        let bound = max_rate * ((2.0 + ALPHA) * st.no_load - stats.mean_latency);
        self.max.store(to_bound(bound), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    /// Calls of `latency` ending every `gap`, for `count` calls from `t`; returns the end.
    fn feed(
        h: &HeuristicSmoothing,
        t: Instant,
        gap: Duration,
        latency: Duration,
        count: u32,
        cpu: f64,
    ) -> Instant {
        for i in 0..count {
            h.completed(latency, t + gap * i, cpu);
        }
        t + gap * count
    }

    #[test]
    fn bound_follows_littles_law_and_closes_under_queueing() {
        let t0 = Instant::now();
        let h = HeuristicSmoothing::new(t0);
        assert_eq!(h.max_concurrency(), INITIAL_MAX_CONCURRENCY);
        // 1,000 calls/s of 10 ms each: 10 in flight on average. The bound admits 1.3 × that.
        let t = feed(&h, t0, MS, 10 * MS, 1500, 0.1);
        assert_eq!(h.max_concurrency(), 13);
        // Queueing doubles the latency at the same rate, CPU busy: the no-load latency stays
        // (it only goes down above 60 %), the bound falls to 1000 × (2.3 × 10 − 20) ms = 3.
        let _ = feed(&h, t, MS, 20 * MS, 1500, 0.9);
        assert_eq!(h.max_concurrency(), 3);
    }

    #[test]
    fn latencies_past_the_limit_close_it_to_one() {
        let t0 = Instant::now();
        let h = HeuristicSmoothing::new(t0);
        let t = feed(&h, t0, MS, 10 * MS, 1500, 0.1);
        let _ = feed(&h, t, MS, 50 * MS, 1500, 0.9);
        assert_eq!(h.max_concurrency(), 1);
        assert_eq!(to_bound(f64::NAN), 1);
        assert_eq!(to_bound(-3.0), 1);
        assert_eq!(to_bound(2.1), 3);
    }
}
