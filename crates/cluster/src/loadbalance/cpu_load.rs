//! The host load a provider reports to adaptive consumers, sampled on a timer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often the load is sampled.
pub const SAMPLE_PERIOD: Duration = Duration::from_secs(1);

/// The latest load sample: the one-minute load average × 100 / CPUs, the figure Java's
/// `ProfilerServerFilter` reports (`getSystemLoadAverage() * 100 / getAvailableProcessors()`),
/// so Java and Rust providers are compared on the same scale.
///
/// A background thread re-reads `/proc/loadavg` every [`SAMPLE_PERIOD`]; a call only loads
/// an atomic. The thread ends once the sampler is dropped. Where `/proc/loadavg` cannot be
/// read (not Linux) there is no sample.
#[derive(Debug)]
pub struct CpuLoad {
    /// The last sample as `f64` bits; NaN bits when none.
    sample: AtomicU64,
}

impl CpuLoad {
    /// A sampler with its timer thread running (the first sample is taken at once, on that
    /// thread).
    pub fn start() -> Arc<Self> {
        let load = Arc::new(Self {
            sample: AtomicU64::new(f64::NAN.to_bits()),
        });
        let weak: Weak<Self> = Arc::downgrade(&load);
        let spawned = std::thread::Builder::new()
            .name("dubbo-load-sampler".into())
            .spawn(move || {
                while let Some(load) = weak.upgrade() {
                    load.set(read_load());
                    drop(load);
                    std::thread::sleep(SAMPLE_PERIOD);
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start the load sampler: {e}");
        }
        load
    }

    /// A sampler holding `value`, with no thread (tests, or a figure from elsewhere).
    pub fn fixed(value: f64) -> Self {
        Self {
            sample: AtomicU64::new(value.to_bits()),
        }
    }

    /// The latest sample, `None` before the first or where it cannot be read.
    pub fn get(&self) -> Option<f64> {
        let v = f64::from_bits(self.sample.load(Ordering::Relaxed));
        v.is_finite().then_some(v)
    }

    fn set(&self, value: Option<f64>) {
        let v = value.unwrap_or(f64::NAN);
        self.sample.store(v.to_bits(), Ordering::Relaxed);
    }
}

/// Parses the first field of `/proc/loadavg` and scales it as Java does.
pub fn scale_loadavg(loadavg: &str, cpus: usize) -> Option<f64> {
    let one_minute: f64 = loadavg.split_whitespace().next()?.parse().ok()?;
    Some(one_minute * 100.0 / cpus.max(1) as f64)
}

fn read_load() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    scale_loadavg(&text, cpus)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn scales_load_average_per_cpu() {
        assert_eq!(scale_loadavg("1.50 0.80 0.40 2/300 1234\n", 2), Some(75.0));
        assert_eq!(scale_loadavg("", 2), None);
        assert_eq!(CpuLoad::fixed(12.5).get(), Some(12.5));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn sampler_reads_proc_on_its_thread() {
        let load = CpuLoad::start();
        for _ in 0..100 {
            if load.get().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("no sample within a second");
    }
}
