//! The random numbers balancers draw: per-thread by default, or a seeded sequence for tests.

use std::sync::atomic::{AtomicU64, Ordering};

/// Where a balancer's random numbers come from.
///
/// The default draws from `fastrand`'s per-thread generator: no shared state, no contention.
/// [`SelectRng::seeded`] gives a reproducible sequence (an atomic splitmix64 counter seeding
/// `fastrand`), for tests and benchmarks.
#[derive(Debug, Default)]
pub struct SelectRng {
    seed: Option<AtomicU64>,
}

impl SelectRng {
    /// Per-thread randomness.
    pub fn thread_local() -> Self {
        Self { seed: None }
    }

    /// A reproducible sequence starting from `seed`.
    pub fn seeded(seed: u64) -> Self {
        Self {
            seed: Some(AtomicU64::new(seed)),
        }
    }

    /// A number in `0..n`; `n` must not be 0.
    pub fn below(&self, n: usize) -> usize {
        match &self.seed {
            None => fastrand::usize(..n),
            Some(s) => next(s).usize(..n),
        }
    }

    /// A number in `0..n`; `n` must not be 0.
    pub fn below_u64(&self, n: u64) -> u64 {
        match &self.seed {
            None => fastrand::u64(..n),
            Some(s) => next(s).u64(..n),
        }
    }

    /// Two different positions in `0..n`; `n` must be at least 2.
    pub fn two_distinct(&self, n: usize) -> (usize, usize) {
        let a = self.below(n);
        let mut b = self.below(n - 1);
        if b >= a {
            b += 1;
        }
        (a, b)
    }
}

/// The next generator of a seeded sequence: splitmix64 over an atomic counter, so
/// concurrent callers never share a draw and consecutive draws are independent.
fn next(state: &AtomicU64) -> fastrand::Rng {
    let mut z = state
        .fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed)
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    fastrand::Rng::with_seed(z ^ (z >> 31))
}
