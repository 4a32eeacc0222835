//! `autoConcurrencyLimier`: a concurrency bound re-estimated once per sampling window, with a
//! share of spare room to explore and a periodic re-measurement of the no-load latency.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{to_bound, Algorithm, INITIAL_MAX_CONCURRENCY};

const MAX_EXPLORE: f64 = 0.3;
const MIN_EXPLORE: f64 = 0.06;
const EXPLORE_STEP: f64 = 0.02;
/// The weight of a new figure when the no-load latency falls or the peak rate decays.
const SMOOTHING: f64 = 0.1;
/// A window closes after this long, or after [`MAX_SAMPLES`] samples.
const WINDOW: Duration = Duration::from_secs(1);
/// A window with fewer samples than this when its time is up is thrown away.
const MIN_SAMPLES: u64 = 40;
const MAX_SAMPLES: u64 = 500;
/// Calls are sampled at most this often; the rest are only counted.
const SAMPLE_GAP: Duration = Duration::from_micros(100);
/// The no-load latency is measured afresh every 25 to 50 s (uniformly at random).
const REMEASURE_MIN: Duration = Duration::from_secs(25);
/// The bound while the no-load latency is measured again, as a share of the last estimate of
/// what the peak rate needs with no queueing.
const REMEASURE_SHARE: f64 = 0.9;

/// The bound is `no_load × peak_rate × (1 + explore)`: the concurrency the best rate seen needs
/// at the no-load latency, plus a share (6 %–30 %) of room that grows while more room brings
/// more rate or no more latency, and shrinks otherwise. Every 25–50 s the bound drops to 90 %
/// of the unqueued need for twice the mean latency, long enough for queued calls to drain, and
/// the no-load latency is measured again from calls that did not queue.
#[derive(Debug)]
pub(crate) struct AutoConcurrency {
    max: AtomicUsize,
    /// Completions since the window started, sampled or not.
    completions: AtomicU64,
    /// Nanoseconds after `origin` of the last sample, for the sampling gap without a lock.
    last_sample_ns: AtomicU64,
    origin: Instant,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    explore: f64,
    /// Seconds; `None` until measured.
    no_load: Option<f64>,
    /// Calls per second; `None` until measured.
    peak_rate: Option<f64>,
    window_start: Instant,
    samples: u64,
    sampled_latency: Duration,
    /// While queued calls drain before a re-measurement: until when.
    draining_until: Option<Instant>,
    remeasure_at: Instant,
}

impl AutoConcurrency {
    pub(crate) fn new(now: Instant) -> Self {
        Self {
            max: AtomicUsize::new(INITIAL_MAX_CONCURRENCY),
            completions: AtomicU64::new(0),
            last_sample_ns: AtomicU64::new(0),
            origin: now,
            state: Mutex::new(State {
                explore: MAX_EXPLORE,
                no_load: None,
                peak_rate: None,
                window_start: now,
                samples: 0,
                sampled_latency: Duration::ZERO,
                draining_until: None,
                remeasure_at: next_remeasure(now),
            }),
        }
    }

    fn sample(&self, latency: Duration, now: Instant) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(until) = st.draining_until {
            if now < until {
                return;
            }
            st.draining_until = None;
            st.no_load = None;
            st.remeasure_at = next_remeasure(now);
            self.restart(&mut st, now);
        }
        st.samples += 1;
        st.sampled_latency += latency;
        let lived = now.saturating_duration_since(st.window_start);
        if st.samples < MIN_SAMPLES {
            if lived >= WINDOW {
                self.restart(&mut st, now);
            }
            return;
        }
        if lived < WINDOW && st.samples < MAX_SAMPLES {
            return;
        }
        let rate = self.completions.load(Ordering::Relaxed) as f64 / lived.as_secs_f64().max(1e-6);
        let peak = match st.peak_rate {
            Some(p) if p > rate => rate * SMOOTHING + p * (1.0 - SMOOTHING),
            _ => rate,
        };
        st.peak_rate = Some(peak);
        let mean_latency = st.sampled_latency / st.samples as u32;
        let mean = mean_latency.as_secs_f64();
        let no_load = match st.no_load {
            Some(n) if mean < n => mean * SMOOTHING + n * (1.0 - SMOOTHING),
            Some(n) => n,
            None => mean,
        };
        st.no_load = Some(no_load);
        let next = if st.remeasure_at <= now {
            st.draining_until = Some(now + 2 * mean_latency);
            peak * no_load * REMEASURE_SHARE
        } else {
            let calm = mean <= no_load * (1.0 + MIN_EXPLORE) || rate >= peak * (1.0 + MIN_EXPLORE);
            st.explore = if calm {
                (st.explore + EXPLORE_STEP).min(MAX_EXPLORE)
            } else {
                (st.explore - EXPLORE_STEP).max(MIN_EXPLORE)
            };
            no_load * peak * (1.0 + st.explore)
        };
        self.max.store(to_bound(next), Ordering::Relaxed);
        self.restart(&mut st, now);
    }

    fn restart(&self, st: &mut State, now: Instant) {
        st.window_start = now;
        st.samples = 0;
        st.sampled_latency = Duration::ZERO;
        self.completions.store(0, Ordering::Relaxed);
    }
}

impl Algorithm for AutoConcurrency {
    fn max_concurrency(&self) -> usize {
        self.max.load(Ordering::Relaxed)
    }

    fn completed(&self, latency: Duration, now: Instant, _cpu: f64) {
        self.completions.fetch_add(1, Ordering::Relaxed);
        let at = u64::try_from(now.saturating_duration_since(self.origin).as_nanos())
            .unwrap_or(u64::MAX);
        let last = self.last_sample_ns.load(Ordering::Relaxed);
        let due = last == 0 || at.saturating_sub(last) >= SAMPLE_GAP.as_nanos() as u64;
        // One caller per gap takes the sample; the others only count.
        if due
            && self
                .last_sample_ns
                .compare_exchange(last, at.max(1), Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        {
            self.sample(latency, now);
        }
    }
}

/// 25 to 50 s after `now`.
fn next_remeasure(now: Instant) -> Instant {
    let mut b = [0u8; 8];
    let r = match getrandom::fill(&mut b) {
        Ok(()) => u64::from_le_bytes(b),
        Err(_) => 0,
    };
    let jitter_ms = r % (REMEASURE_MIN.as_millis() as u64);
    now + REMEASURE_MIN + Duration::from_millis(jitter_ms)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn bound_is_the_peak_rates_need_plus_room_to_explore() {
        let t0 = Instant::now();
        let a = AutoConcurrency::new(t0);
        assert_eq!(a.max_concurrency(), INITIAL_MAX_CONCURRENCY);
        // 2,000 calls/s of 5 ms: 10 in flight. Every call is sampled (they are 0.5 ms apart),
        // so the window closes at its 500th sample, after 250 ms, before its second is up.
        for i in 0..499u32 {
            a.completed(5 * MS, t0 + Duration::from_micros(500) * (i + 1), 0.9);
        }
        assert_eq!(a.max_concurrency(), INITIAL_MAX_CONCURRENCY);
        a.completed(5 * MS, t0 + 250 * MS, 0.9);
        // 2,000/s × 5 ms × 1.3: the room starts at its largest and a calm window keeps it.
        assert_eq!(a.max_concurrency(), 13);
    }

    #[test]
    fn room_shrinks_when_latency_rises_without_rate() {
        let t0 = Instant::now();
        let a = AutoConcurrency::new(t0);
        let step = Duration::from_micros(500);
        let mut t = t0;
        for _ in 0..500 {
            t += step;
            a.completed(5 * MS, t, 0.9);
        }
        let first = a.max_concurrency();
        // The same rate at twice the latency: no more rate, more latency: room shrinks by a
        // step per window, towards 6 %.
        for _ in 0..(500 * 20) {
            t += step;
            a.completed(10 * MS, t, 0.9);
        }
        let later = a.max_concurrency();
        assert!(later < first, "{first} -> {later}");
        // 2,000/s × 5 ms × 1.06, rounded up.
        assert_eq!(later, 11);
    }

    #[test]
    fn remeasures_after_draining() {
        let t0 = Instant::now();
        let a = AutoConcurrency::new(t0);
        {
            let mut st = a.state.lock().unwrap();
            st.remeasure_at = t0 + 100 * MS;
        }
        let step = Duration::from_micros(500);
        let mut t = t0;
        for _ in 0..500 {
            t += step;
            a.completed(5 * MS, t, 0.9);
        }
        // The window that closed past the re-measurement time set 90 % of the need: 9.
        assert_eq!(a.max_concurrency(), 9);
        let st = a.state.lock().unwrap();
        let until = st.draining_until.expect("draining");
        assert_eq!(until, t + 10 * MS);
        assert!(st.remeasure_at <= t);
    }
}
