//! The time of one selection, read from the system clock at most once, and only when needed.
//!
//! Most cached per-list state never expires (a list whose providers set no warm-up); reading
//! the clock for those on every call cost about a tenth of a random pick among three
//! providers (valgrind's instruction counts of the cluster row, three providers against one).

use std::cell::OnceCell;

use super::weight::now_ms;

/// Milliseconds since the Unix epoch, taken on first use and the same for the rest of one
/// selection.
#[derive(Debug, Default)]
pub struct LazyNow(OnceCell<u64>);

impl LazyNow {
    /// A time not read yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A time fixed at `ms` (tests, and state that does not depend on time).
    pub fn at(ms: u64) -> Self {
        Self(OnceCell::from(ms))
    }

    /// The time, read from the clock the first time it is asked for.
    pub fn ms(&self) -> u64 {
        *self.0.get_or_init(now_ms)
    }

    /// Whether something valid until `until_ms` still holds now; a value that holds for good
    /// (`u64::MAX`) does without the clock.
    pub fn before(&self, until_ms: u64) -> bool {
        until_ms == u64::MAX || self.ms() < until_ms
    }
}
