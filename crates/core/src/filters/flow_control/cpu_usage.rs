//! How busy the machine's CPUs are, the gate of the adaptive limits.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often the usage is sampled.
pub const CPU_SAMPLE_PERIOD: Duration = Duration::from_secs(1);

/// The weight of a new sample in the smoothed usage (the rest is the previous value's).
const SMOOTHING: f64 = 0.5;

/// The machine's CPU usage, 0.0 (idle) to 1.0 (every CPU busy), smoothed over samples.
///
/// The adaptive limits refuse calls over their computed concurrency only while the machine is
/// busy: a provider with idle CPUs has no reason to turn work away, whatever its latency says.
/// A background thread reads `/proc/stat` every [`CPU_SAMPLE_PERIOD`] and mixes the busy share
/// of the time since the previous reading into the value, half and half; a call only loads an
/// atomic. The thread ends once the sampler is dropped. Where `/proc/stat` cannot be read (not
/// Linux) the usage stays 0.0, so the adaptive limits never refuse.
#[derive(Debug)]
pub struct CpuUsage {
    /// The smoothed usage as `f64` bits.
    value: AtomicU64,
}

impl CpuUsage {
    /// A sampler with its thread running. The usage is 0.0 until the second reading, one
    /// period after the start.
    pub fn start() -> Arc<Self> {
        let usage = Arc::new(Self::fixed(0.0));
        let weak: Weak<Self> = Arc::downgrade(&usage);
        let spawned = std::thread::Builder::new()
            .name("dubbo-cpu-usage".into())
            .spawn(move || {
                let mut last = read_ticks();
                let mut first = true;
                loop {
                    std::thread::sleep(CPU_SAMPLE_PERIOD);
                    let Some(usage) = weak.upgrade() else { break };
                    let now = read_ticks();
                    if let (Some(before), Some(after)) = (last, now) {
                        if let Some(share) = busy_share(before, after) {
                            usage.mix(share, first);
                            first = false;
                        }
                    }
                    last = now;
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the CPU usage sampler: {e}; adaptive limits stay open");
        }
        usage
    }

    /// A usage that stays at `value` (clamped to 0.0–1.0), with no thread: for tests, or a
    /// figure measured elsewhere.
    pub fn fixed(value: f64) -> Self {
        Self {
            value: AtomicU64::new(clamp(value).to_bits()),
        }
    }

    /// The smoothed usage now.
    pub fn get(&self) -> f64 {
        f64::from_bits(self.value.load(Ordering::Relaxed))
    }

    fn mix(&self, sample: f64, first: bool) {
        let v = if first {
            sample
        } else {
            SMOOTHING * sample + (1.0 - SMOOTHING) * self.get()
        };
        self.value.store(clamp(v).to_bits(), Ordering::Relaxed);
    }
}

fn clamp(v: f64) -> f64 {
    if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Busy and total ticks of all CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ticks {
    busy: u64,
    total: u64,
}

/// The `cpu ` line of `/proc/stat`: `user nice system idle iowait irq softirq steal ...`.
/// Idle and iowait are idle time; the rest is busy. Guest time is already inside user time.
pub(crate) fn parse_proc_stat(stat: &str) -> Option<Ticks> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if fields.len() < 4 {
        return None;
    }
    let total: u64 = fields.iter().sum();
    let idle = fields[3] + fields.get(4).copied().unwrap_or(0);
    Some(Ticks {
        busy: total.saturating_sub(idle),
        total,
    })
}

/// The busy share of the time between two readings; `None` when no time passed.
pub(crate) fn busy_share(before: Ticks, after: Ticks) -> Option<f64> {
    let total = after.total.checked_sub(before.total)?;
    if total == 0 {
        return None;
    }
    let busy = after.busy.saturating_sub(before.busy);
    Some(busy as f64 / total as f64)
}

fn read_ticks() -> Option<Ticks> {
    parse_proc_stat(&std::fs::read_to_string("/proc/stat").ok()?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn busy_share_of_two_readings() {
        let a = parse_proc_stat("cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 1 2 3 4\n").unwrap();
        assert_eq!(
            a,
            Ticks {
                busy: 150,
                total: 1000
            }
        );
        let b = parse_proc_stat("cpu  400 0 150 1100 50 0 0 0 0 0\n").unwrap();
        // 400 more busy ticks of 700 more in all.
        assert!((busy_share(a, b).unwrap() - 400.0 / 700.0).abs() < 1e-9);
        assert_eq!(busy_share(a, a), None);
        assert_eq!(parse_proc_stat("intr 1 2 3\n"), None);
        assert_eq!(parse_proc_stat("cpu  x y z w\n"), None);
    }

    #[test]
    fn smoothing_mixes_half_and_half() {
        let u = CpuUsage::fixed(0.0);
        u.mix(0.8, true);
        assert!((u.get() - 0.8).abs() < 1e-9);
        u.mix(0.2, false);
        assert!((u.get() - 0.5).abs() < 1e-9);
        assert_eq!(CpuUsage::fixed(7.0).get(), 1.0);
        assert_eq!(CpuUsage::fixed(f64::NAN).get(), 0.0);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_has_a_reading() {
        let t = read_ticks().expect("/proc/stat");
        assert!(t.total >= t.busy && t.total > 0);
    }
}
