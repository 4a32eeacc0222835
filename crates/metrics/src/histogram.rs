//! A fixed-size, lock-free log-linear histogram of response times in microseconds.
//!
//! Why not a sketch crate: a t-digest needs a lock (or a per-thread buffer and merge) on the
//! recording path, and `hdrhistogram`'s `Histogram` takes `&mut self` to record, so sharing it
//! between tasks would need a mutex too. Recording here is one `fetch_add` on a bucket chosen
//! with a few shifts, which keeps a call under the 100 ns budget and adds no dependency.
//!
//! Buckets: values below 16 µs each have their own bucket (exact); above, every power of two
//! is split into 16 equal sub-buckets. A bucket `[low, low + width)` has `width <= low / 16`,
//! and a quantile is reported as the bucket's midpoint, so the reported value is within
//! `1/32` (3.125 %) of the recorded value of the same rank, plus at most 0.5 µs.
//! Values above `2^37` µs (about 38 hours) are counted in the last bucket.

use std::sync::atomic::{AtomicU64, Ordering};

/// Sub-buckets per power of two, as a power of two (16).
const SUB_BITS: u32 = 4;
const SUB: u64 = 1 << SUB_BITS;
/// The highest power of two with its own buckets.
const MAX_EXP: u32 = 36;
/// Number of buckets: the exact ones, then 16 per power of two from `2^4` to `2^MAX_EXP`.
pub(crate) const BUCKETS: usize = (SUB + (MAX_EXP as u64 - SUB_BITS as u64 + 1) * SUB) as usize;

/// The relative error bound of a reported quantile (see the module documentation).
pub const RELATIVE_ERROR: f64 = 1.0 / 32.0;

/// Counts of recorded values by bucket.
#[derive(Debug)]
pub(crate) struct Histogram {
    counts: Box<[AtomicU64]>,
}

impl Default for Histogram {
    fn default() -> Self {
        Self {
            counts: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

/// The bucket of `v`.
pub(crate) fn bucket_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let exp = (63 - v.leading_zeros()).min(MAX_EXP);
    if exp == MAX_EXP && v >= (1u64 << (MAX_EXP + 1)) {
        return BUCKETS - 1;
    }
    let shift = exp - SUB_BITS;
    let sub = (v >> shift) - SUB;
    (SUB + u64::from(shift) * SUB + sub) as usize
}

/// The value a bucket stands for: its midpoint (the value itself for the exact buckets).
pub(crate) fn bucket_value(i: usize) -> f64 {
    let i = i as u64;
    if i < SUB {
        return i as f64;
    }
    let shift = (i - SUB) / SUB;
    let sub = (i - SUB) % SUB;
    let low = (SUB + sub) << shift;
    let width = 1u64 << shift;
    low as f64 + (width as f64 - 1.0) / 2.0
}

impl Histogram {
    /// Counts one value.
    pub(crate) fn record(&self, micros: u64) {
        if let Some(c) = self.counts.get(bucket_of(micros)) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Clears every bucket.
    pub(crate) fn reset(&self) {
        for c in self.counts.iter() {
            c.store(0, Ordering::Relaxed);
        }
    }

    /// Adds this histogram's counts into `into`; returns how many values it holds.
    pub(crate) fn add_to(&self, into: &mut [u64]) -> u64 {
        let mut n = 0;
        for (acc, c) in into.iter_mut().zip(self.counts.iter()) {
            let v = c.load(Ordering::Relaxed);
            *acc += v;
            n += v;
        }
        n
    }
}

/// The nearest-rank `q` quantile (`0 < q <= 1`) of bucket counts, in microseconds; `None`
/// when nothing is counted.
pub(crate) fn quantile(counts: &[u64], q: f64) -> Option<f64> {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return None;
    }
    // Nearest rank: the smallest value with at least q·n values at or below it.
    let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0u64;
    for (i, c) in counts.iter().enumerate() {
        seen += c;
        if seen >= rank {
            return Some(bucket_value(i));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_lands_in_a_bucket_that_contains_it_within_the_bound() {
        let mut v = 0u64;
        while v < (1u64 << 40) {
            let b = bucket_of(v);
            assert!(b < BUCKETS);
            let mid = bucket_value(b);
            if v < (1u64 << (MAX_EXP + 1)) {
                let err = (mid - v as f64).abs();
                assert!(
                    err <= v as f64 * RELATIVE_ERROR + 0.5,
                    "v={v} bucket={b} mid={mid}"
                );
            }
            v = v + 1 + v / 7;
        }
        assert_eq!(bucket_of(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn buckets_are_monotonic() {
        let mut last = 0;
        for v in 0..100_000u64 {
            let b = bucket_of(v);
            assert!(b >= last);
            last = b;
        }
    }
}
