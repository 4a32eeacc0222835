//! What the adaptive balancer knows of one provider: the load it last reported, a decaying
//! latency average, and the calls sent, answered and failed.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// The smoothing factor of the latency average (Dubbo's `beta`): each sample counts half.
const BETA: f64 = 0.5;

/// One provider's adaptive-balancing state. Every field is an atomic: calls read and update
/// it concurrently without a lock, and a lost update only skews one sample, as in Java.
#[derive(Debug)]
pub struct ProviderLoad {
    /// The provider's clock (ms) at its last report.
    provider_time: AtomicU64,
    /// When the latency was last decayed or reported (ms, starts as the provider's clock).
    current_time: AtomicU64,
    /// The provider's last reported CPU load, as `f64` bits.
    cpu_load: AtomicU64,
    /// The last latency sample (ms), or the penalty and decayed values derived from it.
    last_latency: AtomicI64,
    /// When this provider was last picked (ms).
    pick_time: AtomicU64,
    /// The smoothed latency, as `f64` bits.
    ewma: AtomicU64,
    requests: AtomicU64,
    successes: AtomicU64,
    errors: AtomicU64,
}

impl ProviderLoad {
    /// A provider never reported on, first seen at `now_ms`.
    pub fn new(now_ms: u64) -> Self {
        Self {
            provider_time: AtomicU64::new(0),
            current_time: AtomicU64::new(0),
            cpu_load: AtomicU64::new(0f64.to_bits()),
            last_latency: AtomicI64::new(0),
            pick_time: AtomicU64::new(now_ms),
            ewma: AtomicU64::new(0f64.to_bits()),
            requests: AtomicU64::new(0),
            successes: AtomicU64::new(0),
            errors: AtomicU64::new(0),
        }
    }

    /// The provider's load for a call with `timeout_ms`, given its `weight`, at `now_ms`.
    /// Lower is better.
    ///
    /// - A provider not picked for more than twice the timeout scores 0, so it is tried
    ///   again and its numbers refreshed.
    /// - The latency decays: with no report in the last `k` timeouts the last latency is
    ///   halved `k + 1` times; right after a report that has not been followed by another
    ///   call it is replaced by a penalty of twice the timeout. Each step feeds the moving
    ///   average.
    /// - The load is `cpu × (√ewma + 1) × (in-flight + 1) / (success ratio × weight + 1)`.
    pub fn load(&self, weight: u32, timeout_ms: u64, now_ms: u64) -> f64 {
        let timeout = timeout_ms.max(1) as i64;
        let now = now_ms as i64;
        if now - self.pick_time.load(Ordering::Relaxed) as i64 > timeout * 2 {
            return 0.0;
        }
        let current = self.current_time.load(Ordering::Relaxed);
        if current > 0 {
            let multiple = (now - current as i64) / timeout + 1;
            // One caller applies a given decay step; the others see the stepped values.
            if multiple > 0
                && self
                    .current_time
                    .compare_exchange(current, now_ms, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            {
                let latency = if self.provider_time.load(Ordering::Relaxed) == current {
                    timeout * 2
                } else {
                    // Java shifts a long, which takes the count modulo 64.
                    self.last_latency
                        .load(Ordering::Relaxed)
                        .wrapping_shr(multiple as u32)
                };
                self.last_latency.store(latency, Ordering::Relaxed);
                self.smooth(latency);
            }
        }
        let requests = self.requests.load(Ordering::Relaxed) as f64;
        let successes = self.successes.load(Ordering::Relaxed) as f64;
        let inflight = requests - successes - self.errors.load(Ordering::Relaxed) as f64;
        let cpu = f64::from_bits(self.cpu_load.load(Ordering::Relaxed));
        let ewma = f64::from_bits(self.ewma.load(Ordering::Relaxed));
        cpu * (ewma.sqrt() + 1.0) * (inflight + 1.0)
            / ((successes / (requests + 1.0)) * f64::from(weight) + 1.0)
    }

    /// Records that the provider was picked for a call at `now_ms`.
    pub fn picked(&self, now_ms: u64) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        self.pick_time.store(now_ms, Ordering::Relaxed);
    }

    /// Records an answered call.
    pub fn succeeded(&self) {
        self.successes.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a failed call.
    pub fn failed(&self) {
        self.errors.fetch_add(1, Ordering::Relaxed);
    }

    /// Takes a report sent back by the provider: its clock and CPU load, and the call's
    /// latency as the consumer measured it. A report older than the last one is ignored.
    pub fn report(&self, provider_time_ms: u64, cpu_load: f64, latency_ms: i64) {
        if self.provider_time.load(Ordering::Relaxed) > provider_time_ms {
            return;
        }
        self.provider_time
            .store(provider_time_ms, Ordering::Relaxed);
        self.current_time.store(provider_time_ms, Ordering::Relaxed);
        self.cpu_load.store(cpu_load.to_bits(), Ordering::Relaxed);
        self.last_latency.store(latency_ms, Ordering::Relaxed);
        self.smooth(latency_ms);
    }

    fn smooth(&self, sample: i64) {
        let old = f64::from_bits(self.ewma.load(Ordering::Relaxed));
        let new = BETA * old + (1.0 - BETA) * sample as f64;
        self.ewma.store(new.to_bits(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_follows_cpu_latency_and_inflight() {
        let now = 1_000_000u64;
        let idle = ProviderLoad::new(now);
        let busy = ProviderLoad::new(now);
        assert_eq!(
            idle.load(100, 1000, now),
            0.0,
            "no report yet: no load known"
        );
        idle.report(now, 10.0, 4);
        busy.report(now, 80.0, 4);
        assert!(idle.load(100, 1000, now) < busy.load(100, 1000, now));
        // After the report, the next look applies the penalty (2 × timeout) once.
        let t = now + 10;
        let l = ProviderLoad::new(now);
        l.report(now, 50.0, 10);
        let ewma_after_report = 5.0; // 0.5 × 0 + 0.5 × 10
        let with_penalty = 0.5 * ewma_after_report + 0.5 * 2000.0;
        let expected = 50.0 * (f64::sqrt(with_penalty) + 1.0) * 1.0 / 1.0;
        assert!((l.load(100, 1000, t) - expected).abs() < 1e-9);
        // In-flight calls raise the load; answered ones lower it through the success ratio.
        l.picked(t);
        l.picked(t);
        let two_inflight = l.load(100, 1000, t);
        assert!(two_inflight > expected);
        l.succeeded();
        l.succeeded();
        assert!(l.load(100, 1000, t) < two_inflight);
    }

    #[test]
    fn unpicked_provider_scores_zero_after_two_timeouts_and_old_reports_are_ignored() {
        let now = 1_000_000u64;
        let l = ProviderLoad::new(now);
        l.report(now, 90.0, 100);
        assert!(l.load(100, 1000, now + 1) > 0.0);
        assert_eq!(l.load(100, 1000, now + 2001), 0.0);
        l.report(now - 5, 1.0, 1);
        assert_eq!(f64::from_bits(l.cpu_load.load(Ordering::Relaxed)), 90.0);
    }
}
