//! A sliding time window of `bucket-num` slots across `time-window-seconds`, as Java Dubbo's
//! aggregation (`dubbo.metrics.aggregation.bucket-num`, `time-window-seconds`).
//!
//! Each slot covers `time-window-seconds / bucket-num` seconds and holds that period's counts
//! and response-time histogram. A slot is reused for a later period by the first call that
//! finds it stale: it claims the slot with a compare-and-swap of the period number, then
//! clears it. A call recorded into the slot by another task between the claim and the clear
//! is lost; that can only happen once per slot and period, which is the price of keeping the
//! recording path free of locks.

use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::failure::FailureKind;
use crate::histogram::{self, Histogram, BUCKETS};

/// Java's default number of slots.
pub const DEFAULT_BUCKET_NUM: usize = 10;
/// Java's default window length in seconds.
pub const DEFAULT_TIME_WINDOW_SECONDS: u64 = 120;

/// The window's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowConfig {
    /// Number of slots the window is divided into.
    pub bucket_num: usize,
    /// The window's length.
    pub time_window: Duration,
}

impl Default for WindowConfig {
    fn default() -> Self {
        Self {
            bucket_num: DEFAULT_BUCKET_NUM,
            time_window: Duration::from_secs(DEFAULT_TIME_WINDOW_SECONDS),
        }
    }
}

impl WindowConfig {
    /// One slot's period, at least one millisecond.
    fn period_ms(&self) -> u64 {
        let ms = self.time_window.as_millis() as u64 / self.bucket_num.max(1) as u64;
        ms.max(1)
    }
}

const KINDS: usize = FailureKind::ALL.len();

/// Bits of [`Slot::calls`] for the response-time sum; the bits above count successes.
const SUM_BITS: u32 = 40;
const SUM_MASK: u64 = (1 << SUM_BITS) - 1;
const ONE_SUCCESS: u64 = 1 << SUM_BITS;
/// The longest response time added to [`Slot::calls`] (about 18 minutes); a longer one goes
/// to the slot's spilled numbers directly, so one add can never carry into the count.
const MAX_PACKED_MICROS: u64 = (1 << 30) - 1;
/// A value of [`Slot::calls`] with either field past a quarter of its range: the call that
/// sees it moves the word into the spilled numbers. Each field then still has three quarters
/// of its range for the adds of calls racing that move (768 of the longest response times,
/// 12 million successes), so neither overflows.
const SPILL_MASK: u64 = (0b11 << 62) | (0b11 << (SUM_BITS - 2));

/// Successes and response-time sum packed in a [`Slot::calls`] word.
#[inline]
fn unpack(word: u64) -> (u64, u64) {
    (word >> SUM_BITS, word & SUM_MASK)
}

/// One period's numbers.
#[derive(Debug)]
struct Slot {
    /// The period number plus one; 0 for a slot never used.
    period: AtomicU64,
    failed: [AtomicU64; KINDS],
    /// Successful calls (the high bits) and the response-time sum of every call (the low
    /// [`SUM_BITS`]) in one word: a call pays one locked add for its time and, when it
    /// succeeded, its count, and the count of successes since start is the slots' counts and
    /// what left them, so the method needs no counter of its own for them either.
    calls: AtomicU64,
    /// What [`calls`](Self::calls) held when it neared the end of a field's range, and the
    /// calls too long for it.
    spilled_successes: AtomicU64,
    spilled_rt_sum: AtomicU64,
    rt_min: AtomicU64,
    rt_max: AtomicU64,
    rt: Histogram,
}

impl Default for Slot {
    fn default() -> Self {
        Self {
            period: AtomicU64::new(0),
            failed: Default::default(),
            calls: AtomicU64::new(0),
            spilled_successes: AtomicU64::new(0),
            spilled_rt_sum: AtomicU64::new(0),
            rt_min: AtomicU64::new(u64::MAX),
            rt_max: AtomicU64::new(0),
            rt: Histogram::default(),
        }
    }
}

impl Slot {
    fn reset(&self) {
        for f in &self.failed {
            f.store(0, Ordering::Relaxed);
        }
        // No clearing of the successes and sums: `Window::retire` has moved them out.
        self.rt_min.store(u64::MAX, Ordering::Relaxed);
        self.rt_max.store(0, Ordering::Relaxed);
        self.rt.reset();
    }
}

/// The calls of the last `time-window-seconds`, slot by slot.
#[derive(Debug)]
pub(crate) struct Window {
    config: WindowConfig,
    period_ms: u64,
    origin: Instant,
    slots: Box<[Slot]>,
    /// The period most recently recorded into and its slot, packed as
    /// `(period + 1) << SLOT_BITS | slot` (0 before the first call): a call in that period
    /// finds its slot without the two divisions, which cost more than the rest of the lookup.
    last: AtomicU64,
    /// The successes and response-time sum of calls no longer in any slot: moved out when
    /// their slot turned over, or recorded for a period already gone. With the slots' numbers
    /// they are the numbers since start, so a call pays one locked add for both the window
    /// and since start.
    retired_successes: AtomicU64,
    retired_rt_sum: AtomicU64,
    /// Moves of a slot's numbers (into the retired ones, or of its packed word into its
    /// spilled ones) begun and done. A read that saw no move begin after (or run across) its
    /// start, `begun` after equal to `done` before, counted every call exactly once.
    moves_begun: AtomicU64,
    moves_done: AtomicU64,
}

/// Bits of [`Window::last`] for the slot's index; windows with more slots skip the shortcut.
const SLOT_BITS: u32 = 16;
/// The largest period [`Window::last`] can hold.
const MAX_PACKED_PERIOD: u64 = (1 << (64 - SLOT_BITS)) - 2;

/// The window's numbers at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowSnapshot {
    /// Calls completed in the window.
    pub total: u64,
    /// Calls that succeeded in the window.
    pub succeeded: u64,
    /// Failed calls in the window by kind, indexed by [`FailureKind::index`].
    pub failed: [u64; KINDS],
    /// Calls per second over the part of the window that has elapsed.
    pub qps: f64,
    /// Smallest response time in the window, in milliseconds.
    pub rt_min_ms: Option<f64>,
    /// Largest response time in the window, in milliseconds.
    pub rt_max_ms: Option<f64>,
    /// Mean response time in the window, in milliseconds.
    pub rt_avg_ms: Option<f64>,
    /// Response-time quantiles p50, p90, p95, p99 in milliseconds.
    pub quantiles_ms: Option<[f64; 4]>,
}

impl WindowSnapshot {
    /// Failed calls of every kind.
    pub fn failed_total(&self) -> u64 {
        self.failed.iter().sum()
    }
}

/// The quantiles reported, in the order of [`WindowSnapshot::quantiles_ms`].
pub const QUANTILES: [f64; 4] = [0.5, 0.9, 0.95, 0.99];

impl Window {
    pub(crate) fn new(config: WindowConfig, origin: Instant) -> Self {
        let n = config.bucket_num.max(1);
        Self {
            config,
            period_ms: config.period_ms(),
            origin,
            slots: (0..n).map(|_| Slot::default()).collect(),
            last: AtomicU64::new(0),
            retired_successes: AtomicU64::new(0),
            retired_rt_sum: AtomicU64::new(0),
            moves_begun: AtomicU64::new(0),
            moves_done: AtomicU64::new(0),
        }
    }

    /// Milliseconds from the origin to `at`.
    pub(crate) fn millis(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.origin).as_millis() as u64
    }

    /// Records one call that ended at `at`.
    #[cfg(test)]
    pub(crate) fn record(&self, at: Instant, micros: u64, failure: Option<FailureKind>) {
        self.record_at(self.millis(at), micros, failure);
    }

    /// Records one call that ended `at_ms` milliseconds after the origin.
    pub(crate) fn record_at(&self, at_ms: u64, micros: u64, failure: Option<FailureKind>) {
        let (period, index) = self.period_of(at_ms);
        let Some(slot) = self.slots.get(index) else {
            return;
        };
        let want = period + 1;
        let seen = slot.period.load(Ordering::Acquire);
        let succeeded = u64::from(failure.is_none());
        if seen != want {
            if seen > want {
                // A newer period already owns the slot: this call ended just before the turn
                // and belongs to a period that has gone. It still counts since start.
                self.retired_successes
                    .fetch_add(succeeded, Ordering::Relaxed);
                self.retired_rt_sum.fetch_add(micros, Ordering::Relaxed);
                return;
            }
            if slot
                .period
                .compare_exchange(seen, want, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.retire(slot);
                slot.reset();
            }
        }
        if let Some(f) = failure.and_then(|kind| slot.failed.get(kind.index())) {
            f.fetch_add(1, Ordering::Relaxed);
        }
        if micros <= MAX_PACKED_MICROS {
            let before = slot
                .calls
                .fetch_add((succeeded * ONE_SUCCESS) | micros, Ordering::Relaxed);
            if before & SPILL_MASK != 0 {
                self.spill(slot);
            }
        } else {
            slot.spilled_successes
                .fetch_add(succeeded, Ordering::Relaxed);
            slot.spilled_rt_sum.fetch_add(micros, Ordering::Relaxed);
        }
        if micros < slot.rt_min.load(Ordering::Relaxed) {
            slot.rt_min.fetch_min(micros, Ordering::Relaxed);
        }
        if micros > slot.rt_max.load(Ordering::Relaxed) {
            slot.rt_max.fetch_max(micros, Ordering::Relaxed);
        }
        slot.rt.record(micros);
    }

    /// Moves a slot's numbers into the retired ones, as the write side of a sequence lock: a
    /// reader overlapping the move sees `moves_begun` changed and reads again. A call adding
    /// to the slot meanwhile lands before the swap (moved) or after (kept): never lost.
    fn retire(&self, slot: &Slot) {
        self.moves_begun.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::Release);
        let (successes, sum) = unpack(slot.calls.swap(0, Ordering::Relaxed));
        let successes = successes + slot.spilled_successes.swap(0, Ordering::Relaxed);
        let sum = sum + slot.spilled_rt_sum.swap(0, Ordering::Relaxed);
        self.retired_successes
            .fetch_add(successes, Ordering::Relaxed);
        self.retired_rt_sum.fetch_add(sum, Ordering::Relaxed);
        self.moves_done.fetch_add(1, Ordering::Release);
    }

    /// Moves a slot's packed word into its spilled numbers before a field of it overflows
    /// (rare: after millions of calls in one period), under the same sequence lock.
    #[cold]
    fn spill(&self, slot: &Slot) {
        self.moves_begun.fetch_add(1, Ordering::Relaxed);
        fence(Ordering::Release);
        let (successes, sum) = unpack(slot.calls.swap(0, Ordering::Relaxed));
        slot.spilled_successes
            .fetch_add(successes, Ordering::Relaxed);
        slot.spilled_rt_sum.fetch_add(sum, Ordering::Relaxed);
        self.moves_done.fetch_add(1, Ordering::Release);
    }

    /// Reads with `read` (which must only load) until no move of a slot's numbers overlapped
    /// the read, so that it saw every call exactly once.
    fn consistent<T>(&self, mut read: impl FnMut() -> T) -> T {
        let mut tries = 0u32;
        loop {
            let done = self.moves_done.load(Ordering::Acquire);
            let value = read();
            fence(Ordering::Acquire);
            if self.moves_begun.load(Ordering::Relaxed) == done {
                return value;
            }
            // A move is a few atomic operations; only a preempted mover keeps a reader waiting.
            tries += 1;
            if tries % 64 == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }

    /// Successes and response-time sum of one slot (no sequence lock: see `consistent`).
    fn slot_numbers(slot: &Slot) -> (u64, u64) {
        let (successes, sum) = unpack(slot.calls.load(Ordering::Relaxed));
        (
            successes.wrapping_add(slot.spilled_successes.load(Ordering::Relaxed)),
            sum.wrapping_add(slot.spilled_rt_sum.load(Ordering::Relaxed)),
        )
    }

    /// The successful calls and the sum of every recorded response time (in microseconds)
    /// since start. Neither is ever less than an earlier reading: a read that overlapped a
    /// move is done again.
    pub(crate) fn since_start(&self) -> (u64, u64) {
        self.consistent(|| {
            let mut successes = self.retired_successes.load(Ordering::Relaxed);
            let mut sum = self.retired_rt_sum.load(Ordering::Relaxed);
            for slot in self.slots.iter() {
                let (s, t) = Self::slot_numbers(slot);
                successes = successes.wrapping_add(s);
                sum = sum.wrapping_add(t);
            }
            (successes, sum)
        })
    }

    /// The period `at_ms` falls in and the index of its slot.
    #[inline]
    fn period_of(&self, at_ms: u64) -> (u64, usize) {
        let last = self.last.load(Ordering::Relaxed);
        if last != 0 {
            let period = (last >> SLOT_BITS) - 1;
            if let Some(start) = period.checked_mul(self.period_ms) {
                if at_ms.wrapping_sub(start) < self.period_ms {
                    return (period, (last & ((1 << SLOT_BITS) - 1)) as usize);
                }
            }
        }
        let period = at_ms / self.period_ms;
        let n = self.slots.len() as u64;
        let index = period % n;
        if n <= 1 << SLOT_BITS && period <= MAX_PACKED_PERIOD {
            // Racing calls of different periods may leave either here; both are right for
            // their own period, and a call of another period only misses the shortcut.
            self.last
                .store((period + 1) << SLOT_BITS | index, Ordering::Relaxed);
        }
        (period, index as usize)
    }

    /// The window's numbers as of `now`.
    pub(crate) fn snapshot(&self, now: Instant) -> WindowSnapshot {
        let now_ms = self.millis(now);
        let period = now_ms / self.period_ms;
        let n = self.slots.len() as u64;
        let oldest = (period + 1).saturating_sub(n);
        let mut snap = WindowSnapshot {
            total: 0,
            succeeded: 0,
            failed: [0; KINDS],
            qps: 0.0,
            rt_min_ms: None,
            rt_max_ms: None,
            rt_avg_ms: None,
            quantiles_ms: None,
        };
        let mut counts = vec![0u64; BUCKETS];
        let numbers: Vec<(u64, u64)> =
            self.consistent(|| self.slots.iter().map(Self::slot_numbers).collect());
        let (mut sum, mut min, mut max) = (0u64, u64::MAX, 0u64);
        for (slot, (successes, slot_sum)) in self.slots.iter().zip(numbers) {
            let p = slot.period.load(Ordering::Acquire);
            if p == 0 || p - 1 < oldest || p - 1 > period {
                continue;
            }
            for (acc, f) in snap.failed.iter_mut().zip(slot.failed.iter()) {
                *acc += f.load(Ordering::Relaxed);
            }
            slot.rt.add_to(&mut counts);
            snap.succeeded += successes;
            sum += slot_sum;
            min = min.min(slot.rt_min.load(Ordering::Relaxed));
            max = max.max(slot.rt_max.load(Ordering::Relaxed));
        }
        snap.total = snap.succeeded + snap.failed.iter().sum::<u64>();
        // The part of the window that has elapsed: the whole window once it has run that
        // long, less just after start.
        let covered_ms = now_ms.saturating_sub(oldest * self.period_ms).max(1);
        snap.qps = snap.total as f64 * 1000.0 / covered_ms as f64;
        if snap.total > 0 {
            snap.rt_min_ms = Some(min as f64 / 1000.0);
            snap.rt_max_ms = Some(max as f64 / 1000.0);
            snap.rt_avg_ms = Some(sum as f64 / snap.total as f64 / 1000.0);
            let mut q = [0.0; 4];
            for (out, p) in q.iter_mut().zip(QUANTILES) {
                *out = histogram::quantile(&counts, p).unwrap_or(0.0) / 1000.0;
            }
            snap.quantiles_ms = Some(q);
        }
        snap
    }

    /// The window's shape.
    pub(crate) fn config(&self) -> WindowConfig {
        self.config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact nearest-rank quantile of `values` (sorted), as the reference.
    fn exact(sorted: &[u64], q: f64) -> f64 {
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1] as f64
    }

    #[test]
    fn quantiles_match_exact_ones_within_the_stated_bound() {
        let origin = Instant::now();
        let w = Window::new(WindowConfig::default(), origin);
        // A skewed, deterministic mix: mostly fast calls and a long tail.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut values = Vec::new();
        for i in 0..20_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = if i % 50 == 0 {
                50_000 + x % 2_000_000
            } else {
                100 + x % 5_000
            };
            values.push(v);
            w.record(origin + Duration::from_millis(i % 100_000 / 10), v, None);
        }
        values.sort_unstable();
        let snap = w.snapshot(origin + Duration::from_secs(60));
        assert_eq!(snap.total, 20_000);
        let got = snap.quantiles_ms.unwrap_or([0.0; 4]);
        for (g, q) in got.iter().zip(QUANTILES) {
            let want = exact(&values, q);
            let g_us = g * 1000.0;
            assert!(
                (g_us - want).abs() <= want * histogram::RELATIVE_ERROR + 0.5,
                "p{q}: got {g_us} µs, exact {want} µs"
            );
        }
        assert_eq!(snap.rt_min_ms, Some(values[0] as f64 / 1000.0));
        assert_eq!(
            snap.rt_max_ms,
            Some(values[values.len() - 1] as f64 / 1000.0)
        );
    }

    #[test]
    fn the_remembered_period_finds_the_same_slot_as_the_division() {
        for (bucket_num, secs) in [(10, 120), (1, 1), (7, 5), (70_000, 100)] {
            let config = WindowConfig {
                bucket_num,
                time_window: Duration::from_secs(secs),
            };
            let w = Window::new(config, Instant::now());
            let n = w.slots.len() as u64;
            // Forwards, backwards and jumping about, including period edges.
            let mut x: u64 = 0x2545_f491_4f6c_dd1d;
            let mut times: Vec<u64> = (0..2_000).map(|i| i * 997).collect();
            for _ in 0..2_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                times.push(x % 10_000_000);
                times.push((x % 1_000) * w.period_ms);
                times.push(((x % 1_000) * w.period_ms).saturating_sub(1));
            }
            for at in times {
                let want = at / w.period_ms;
                assert_eq!(w.period_of(at), (want, (want % n) as usize), "at {at} ms");
            }
        }
    }

    #[test]
    fn the_sum_since_start_keeps_every_call_across_turnovers_and_late_calls() {
        let origin = Instant::now();
        let config = WindowConfig {
            bucket_num: 3,
            time_window: Duration::from_secs(3),
        };
        let w = Window::new(config, origin);
        let (mut want_ok, mut want_sum) = (0u64, 0u64);
        for i in 0..10_000u64 {
            // Forwards through many turnovers, with every tenth call ending a period late,
            // every seventh failing and every hundredth too long for the packed word.
            let at = if i % 10 == 0 {
                (i / 2).saturating_sub(2_500)
            } else {
                i / 2
            };
            let micros = if i % 100 == 3 {
                MAX_PACKED_MICROS + i
            } else {
                1 + i % 777
            };
            let failure = (i % 7 == 0).then_some(FailureKind::Timeout);
            w.record_at(at, micros, failure);
            want_ok += u64::from(failure.is_none());
            want_sum += micros;
            assert_eq!(w.since_start(), (want_ok, want_sum), "after call {i}");
        }
    }

    #[test]
    fn a_slot_near_the_end_of_its_packed_range_spills_without_losing_a_call() {
        let origin = Instant::now();
        let w = Window::new(WindowConfig::default(), origin);
        // 2^38 µs in the sum field after 256 of the longest packed times: spills every so
        // often, all in one period.
        let calls = 2_000u64;
        for i in 0..calls {
            w.record_at(5, MAX_PACKED_MICROS - i, None);
        }
        let want_sum: u64 = (0..calls).map(|i| MAX_PACKED_MICROS - i).sum();
        assert!(want_sum > 4 << (SUM_BITS - 2), "the test reaches the spill");
        assert!(w.slots[0].spilled_successes.load(Ordering::Relaxed) > 0);
        assert_eq!(w.since_start(), (calls, want_sum));
        let snap = w.snapshot(origin + Duration::from_millis(10));
        assert_eq!((snap.total, snap.succeeded), (calls, calls));
        let avg = snap.rt_avg_ms.unwrap_or(0.0) * 1000.0;
        assert!((avg - want_sum as f64 / calls as f64).abs() < 1.0, "{avg}");
        // The count field's threshold: a word that claims 2^22 successes spills too.
        w.slots[0]
            .calls
            .fetch_add(ONE_SUCCESS << 22, Ordering::Relaxed);
        w.record_at(5, 1, None);
        assert_eq!(w.slots[0].calls.load(Ordering::Relaxed), 0);
        assert_eq!(w.since_start(), (calls + (1 << 22) + 1, want_sum + 1));
    }

    /// Reads the counts since start while `writers` run, failing if either ever goes back.
    fn read_until_done(w: &Window, writers: Vec<std::thread::JoinHandle<()>>) {
        let mut last = (0, 0);
        while writers.iter().any(|h| !h.is_finished()) {
            let now = w.since_start();
            assert!(
                now.0 >= last.0 && now.1 >= last.1,
                "went back from {last:?} to {now:?}"
            );
            last = now;
        }
        for h in writers {
            h.join().unwrap();
        }
    }

    #[test]
    fn concurrent_readers_never_see_the_sum_since_start_go_back() {
        let config = WindowConfig {
            bucket_num: 2,
            time_window: Duration::from_millis(2),
        };
        let w = std::sync::Arc::new(Window::new(config, Instant::now()));
        let writers: Vec<_> = (0..2u64)
            .map(|t| {
                let w = w.clone();
                std::thread::spawn(move || {
                    // 1 ms periods: slots turn over all the time.
                    for i in 0..200_000u64 {
                        w.record_at(i / 50 + t, 3, None);
                    }
                })
            })
            .collect();
        read_until_done(&w, writers);
        assert_eq!(w.since_start(), (2 * 200_000, 2 * 200_000 * 3));
    }

    #[test]
    fn concurrent_readers_never_see_the_numbers_go_back_across_spills() {
        let w = std::sync::Arc::new(Window::new(WindowConfig::default(), Instant::now()));
        let writers: Vec<_> = (0..2u64)
            .map(|_| {
                let w = w.clone();
                // The longest packed times: the word spills every 256 calls or so.
                std::thread::spawn(move || {
                    for _ in 0..100_000u64 {
                        w.record_at(5, MAX_PACKED_MICROS, None);
                    }
                })
            })
            .collect();
        read_until_done(&w, writers);
        assert_eq!(
            w.since_start(),
            (2 * 100_000, 2 * 100_000 * MAX_PACKED_MICROS)
        );
    }

    #[test]
    fn old_periods_slide_out_and_qps_covers_the_window() {
        let origin = Instant::now();
        let w = Window::new(WindowConfig::default(), origin);
        // 10 calls in the first period (0..12 s), 20 calls at 100 s.
        for _ in 0..10 {
            w.record(origin + Duration::from_secs(1), 1_000, None);
        }
        for _ in 0..20 {
            w.record(
                origin + Duration::from_secs(100),
                5_000,
                Some(FailureKind::Timeout),
            );
        }
        let s = w.snapshot(origin + Duration::from_secs(110));
        assert_eq!(s.total, 30);
        assert_eq!(s.failed[FailureKind::Timeout.index()], 20);
        // 120 s later the first period has left the window.
        let s = w.snapshot(origin + Duration::from_secs(125));
        assert_eq!(s.total, 20);
        assert_eq!(s.succeeded, 0);
        // The window now spans periods 1..=10: from 12 s to 125 s.
        assert!((s.qps - 20.0 / 113.0).abs() < 1e-9, "qps {}", s.qps);
        // A later call reuses the first slot and clears it.
        w.record(origin + Duration::from_secs(241), 2_000, None);
        let s = w.snapshot(origin + Duration::from_secs(241));
        assert_eq!(s.total, 1);
        let p50 = s.quantiles_ms.map(|q| q[0]).unwrap_or(0.0);
        assert!(
            (p50 - 2.0).abs() <= 2.0 * histogram::RELATIVE_ERROR,
            "p50 {p50}"
        );
        assert_eq!(s.rt_min_ms, Some(2.0));
    }
}
