//! The clock a store's calls are timed with: the CPU's time-stamp counter where it runs at a
//! constant rate, else [`Instant`].
//!
//! Why: on a virtual machine `Instant::now()` (vDSO `clock_gettime`) costs 30–50 ns, about
//! twice a plain `rdtsc`, and a recorded call reads the clock twice. The counter's rate is
//! measured against `Instant` when the store is made and measured again, over the longer span
//! since then, each time a window slot turns over, so the rate keeps converging on the
//! monotonic clock's. Everything lives in the store's `Clock`: there is no process-wide state.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Fixed-point shift of [`Clock::scale`]: nanoseconds per tick times `2^32`.
const SCALE_SHIFT: u32 = 32;
const ONE: u64 = 1 << SCALE_SHIFT;

/// How long the first calibration watches the counter against `Instant`. Each end of the span
/// is known to within a few tens of nanoseconds, so the first rate is good to about 0.05 %;
/// later measurements over seconds and hours make it far better.
const CALIBRATION: Duration = Duration::from_micros(200);

/// A later measurement whose rate differs more than this from the current one is taken for a
/// jump of the counter against the monotonic clock (a suspend, a migration), not for a better
/// rate: the rate is kept and only the window's offset follows `Instant`.
const MAX_RATE_CHANGE: f64 = 0.01;

/// A reading of a [`Clock`]: counter ticks, or nanoseconds since the origin where the counter
/// is not used. Only differences of two readings of one clock mean anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Tick(pub(crate) u64);

/// The time source of one store.
#[derive(Debug)]
pub(crate) struct Clock {
    origin: Instant,
    /// The counter at `origin`; 0 when the counter is not used.
    origin_tick: u64,
    tsc: bool,
    /// Nanoseconds per tick, times `2^32`.
    scale: AtomicU64,
    /// Nanoseconds to add to the counter's time since the origin to get `Instant`'s: keeps the
    /// window's periods on the monotonic clock even if the counter jumped.
    offset_ns: AtomicI64,
}

impl Clock {
    /// A clock whose origin is `origin` (the store's), using the counter when
    /// [`tsc_is_usable`] says so.
    pub(crate) fn new(origin: Instant) -> Self {
        if tsc_is_usable() {
            if let Some(clock) = Self::calibrated(origin) {
                return clock;
            }
        }
        Self::instant(origin)
    }

    /// A clock reading `Instant` only.
    pub(crate) fn instant(origin: Instant) -> Self {
        Self {
            origin,
            origin_tick: 0,
            tsc: false,
            scale: AtomicU64::new(ONE),
            offset_ns: AtomicI64::new(0),
        }
    }

    fn calibrated(origin: Instant) -> Option<Self> {
        let (first_at, first) = paired_read()?;
        let (mut last_at, mut last) = (first_at, first);
        while last_at.saturating_duration_since(first_at) < CALIBRATION {
            (last_at, last) = paired_read()?;
        }
        let scale = scale_of(last_at.saturating_duration_since(first_at), last - first)?;
        // The counter at the store's origin, worked back from the first pair.
        let before = first_at.saturating_duration_since(origin).as_nanos() as u64;
        let origin_tick = first.saturating_sub(ticks_of(before, scale));
        Some(Self {
            origin,
            origin_tick,
            tsc: true,
            scale: AtomicU64::new(scale),
            offset_ns: AtomicI64::new(0),
        })
    }

    /// Whether this clock reads the time-stamp counter.
    #[cfg(test)]
    pub(crate) fn uses_tsc(&self) -> bool {
        self.tsc
    }

    /// The time now.
    #[inline]
    pub(crate) fn now(&self) -> Tick {
        if self.tsc {
            Tick(rdtsc())
        } else {
            Tick(self.origin.elapsed().as_nanos() as u64)
        }
    }

    /// Nanoseconds from `start` to `end`; 0 when `end` reads earlier (two cores' counters may
    /// differ by a few ticks).
    #[inline]
    pub(crate) fn nanos_between(&self, start: Tick, end: Tick) -> u64 {
        to_nanos(
            end.0.saturating_sub(start.0),
            self.scale.load(Ordering::Relaxed),
        )
    }

    /// Milliseconds from the origin to `at`, on the monotonic clock.
    #[inline]
    pub(crate) fn millis_since_origin(&self, at: Tick) -> u64 {
        let ns = to_nanos(
            at.0.saturating_sub(self.origin_tick),
            self.scale.load(Ordering::Relaxed),
        );
        let ns = ns.saturating_add_signed(self.offset_ns.load(Ordering::Relaxed));
        ns / 1_000_000
    }

    /// Measures the counter's rate again over the whole span since the origin (called
    /// rarely: when a window slot turns over).
    pub(crate) fn recheck(&self) {
        if !self.tsc {
            return;
        }
        let Some((at, tick)) = paired_read() else {
            return;
        };
        let elapsed = at.saturating_duration_since(self.origin);
        let ticks = tick.saturating_sub(self.origin_tick);
        let current = self.scale.load(Ordering::Relaxed);
        let scale = match scale_of(elapsed, ticks) {
            Some(s) if (s as f64 / current as f64 - 1.0).abs() <= MAX_RATE_CHANGE => {
                self.scale.store(s, Ordering::Relaxed);
                s
            }
            _ => current,
        };
        let expected = elapsed.as_nanos() as i64;
        let counted = to_nanos(ticks, scale) as i64;
        self.offset_ns
            .store(expected.saturating_sub(counted), Ordering::Relaxed);
    }

    /// The clock's rate in nanoseconds per tick.
    #[cfg(test)]
    pub(crate) fn nanos_per_tick(&self) -> f64 {
        self.scale.load(Ordering::Relaxed) as f64 / ONE as f64
    }
}

fn to_nanos(ticks: u64, scale: u64) -> u64 {
    let ns = (u128::from(ticks) * u128::from(scale)) >> SCALE_SHIFT;
    u64::try_from(ns).unwrap_or(u64::MAX)
}

fn ticks_of(nanos: u64, scale: u64) -> u64 {
    if scale == 0 {
        return 0;
    }
    let t = (u128::from(nanos) << SCALE_SHIFT) / u128::from(scale);
    u64::try_from(t).unwrap_or(u64::MAX)
}

/// Nanoseconds per tick times `2^32` for `ticks` counted over `span`; `None` when the counter
/// did not move or the rate is absurd (below 1 MHz or above 100 GHz).
fn scale_of(span: Duration, ticks: u64) -> Option<u64> {
    if ticks == 0 {
        return None;
    }
    let scale = (span.as_nanos() << SCALE_SHIFT) / u128::from(ticks);
    let scale = u64::try_from(scale).ok()?;
    (ONE / 100..=ONE * 1000).contains(&scale).then_some(scale)
}

/// An `Instant` and the counter read as close together as this thread can: the counter is
/// read before and after, and the middle taken when the two are close (no preemption).
fn paired_read() -> Option<(Instant, u64)> {
    let mut best: Option<(u64, Instant, u64)> = None;
    for _ in 0..5 {
        let a = rdtsc();
        let at = Instant::now();
        let b = rdtsc();
        let width = b.checked_sub(a)?;
        if best.is_none_or(|(w, _, _)| width < w) {
            best = Some((width, at, a + width / 2));
        }
    }
    best.map(|(_, at, tick)| (at, tick))
}

#[cfg(target_arch = "x86_64")]
#[inline]
fn rdtsc() -> u64 {
    // SAFETY: `rdtsc` has no preconditions on x86_64; it only reads the counter.
    #[allow(unused_unsafe)]
    unsafe {
        core::arch::x86_64::_rdtsc()
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn rdtsc() -> u64 {
    0
}

/// Whether the counter can time calls: x86_64, a counter that runs at a constant rate and
/// through idle states (`constant_tsc`, `nonstop_tsc`), and the kernel itself timing with it
/// (it moves off `tsc` when it finds the cores' counters out of step).
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn tsc_is_usable() -> bool {
    let Ok(source) =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
    else {
        return false;
    };
    if source.trim() != "tsc" {
        return false;
    }
    let Ok(cpuinfo) = std::fs::read_to_string("/proc/cpuinfo") else {
        return false;
    };
    let Some(flags) = cpuinfo.lines().find(|l| l.starts_with("flags")) else {
        return false;
    };
    let has = |flag: &str| flags.split_whitespace().any(|f| f == flag);
    has("constant_tsc") && has("nonstop_tsc")
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn tsc_is_usable() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(d: Duration) {
        let t = Instant::now();
        while t.elapsed() < d {
            std::hint::spin_loop();
        }
    }

    /// Durations by the clock agree with `Instant`'s to well under 1 %.
    fn agrees_with_instant(clock: &Clock) {
        for ms in [2u64, 20] {
            let (a, ta) = (clock.now(), Instant::now());
            spin(Duration::from_millis(ms));
            let (tb, b) = (Instant::now(), clock.now());
            let by_instant = tb.duration_since(ta).as_nanos() as f64;
            let by_clock = clock.nanos_between(a, b) as f64;
            let err = (by_clock / by_instant - 1.0).abs();
            // The two reads of each end are a few hundred nanoseconds apart at worst when
            // not preempted; a preemption between them makes the test lenient, not wrong.
            assert!(
                err < 0.005 || (by_clock - by_instant).abs() < 200_000.0,
                "{ms} ms: clock {by_clock} ns, instant {by_instant} ns (tsc: {})",
                clock.uses_tsc()
            );
        }
    }

    #[test]
    fn the_store_clock_agrees_with_instant() {
        let clock = Clock::new(Instant::now());
        agrees_with_instant(&clock);
        clock.recheck();
        agrees_with_instant(&clock);
    }

    #[test]
    fn the_instant_clock_agrees_with_instant() {
        agrees_with_instant(&Clock::instant(Instant::now()));
    }

    #[test]
    fn a_reading_before_the_start_saturates_at_zero() {
        let clock = Clock::new(Instant::now());
        let a = clock.now();
        spin(Duration::from_micros(50));
        let b = clock.now();
        assert_eq!(clock.nanos_between(b, a), 0);
        assert!(clock.nanos_between(a, b) > 0);
        assert_eq!(clock.millis_since_origin(Tick(0)), 0);
    }

    #[test]
    fn millis_since_origin_follow_the_monotonic_clock() {
        let origin = Instant::now();
        let clock = Clock::new(origin);
        spin(Duration::from_millis(30));
        clock.recheck();
        let by_clock = clock.millis_since_origin(clock.now());
        let by_instant = origin.elapsed().as_millis() as u64;
        assert!(
            by_clock.abs_diff(by_instant) <= 1,
            "clock {by_clock} ms, instant {by_instant} ms"
        );
    }

    #[test]
    fn the_rate_is_sane_and_fixed_point_conversions_invert() {
        let clock = Clock::new(Instant::now());
        let r = clock.nanos_per_tick();
        assert!(r > 0.01 && r < 1000.0, "{r} ns per tick");
        let scale = clock.scale.load(Ordering::Relaxed);
        let ticks = ticks_of(1_000_000_000, scale);
        let back = to_nanos(ticks, scale);
        assert!(back.abs_diff(1_000_000_000) < 1_000, "{back}");
        assert_eq!(to_nanos(u64::MAX, ONE * 1000), u64::MAX);
        assert_eq!(scale_of(Duration::from_millis(1), 0), None);
    }
}
