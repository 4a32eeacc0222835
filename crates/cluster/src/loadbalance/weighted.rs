//! Weighted picks over a provider list: the cumulative weight table random selection walks,
//! and the weighted tie-break least-active and shortest-response use.

use std::cell::RefCell;
use std::sync::Arc;

use dubbo_core::Invoker;

use super::rng::SelectRng;
use super::weight::{warm_until, weight_at};

/// The effective weights of one provider list for one method.
#[derive(Debug, Clone)]
pub struct WeightTable {
    /// Each provider's weight, in list order.
    pub weights: Vec<u32>,
    /// Running sums of `weights`: `cumulative[i]` is the sum of the first `i + 1`.
    pub cumulative: Vec<u64>,
    /// The sum of all weights.
    pub total: u64,
    /// Whether every provider has the same weight.
    pub uniform: bool,
}

impl WeightTable {
    /// The weights of `invokers` for `method` at `now_ms`, and until when they hold (the end
    /// of the earliest warm-up under way, re-checked every second; `u64::MAX` when no
    /// provider warms up).
    pub fn build(invokers: &[Arc<dyn Invoker>], method: &str, now_ms: u64) -> (Self, u64) {
        let mut weights = Vec::with_capacity(invokers.len());
        let mut cumulative = Vec::with_capacity(invokers.len());
        let mut total = 0u64;
        let mut valid_until = u64::MAX;
        for inv in invokers {
            let w = weight_at(inv.url(), method, now_ms);
            if warm_until(inv.url(), now_ms).is_some() {
                valid_until = valid_until.min(now_ms.saturating_add(1000));
            }
            total += u64::from(w);
            weights.push(w);
            cumulative.push(total);
        }
        let uniform = weights.windows(2).all(|p| p[0] == p[1]);
        (
            Self {
                weights,
                cumulative,
                total,
                uniform,
            },
            valid_until,
        )
    }

    /// A position drawn with probability proportional to its weight; uniform when all
    /// weights are equal or all are 0.
    pub fn pick(&self, rng: &SelectRng) -> usize {
        let n = self.weights.len();
        if self.total == 0 || self.uniform {
            return rng.below(n);
        }
        let offset = rng.below_u64(self.total);
        // The first position whose running sum exceeds the offset.
        self.cumulative.partition_point(|&c| c <= offset).min(n - 1)
    }
}

/// Picks one of `candidates` (positions into `weights`), proportionally to weight when the
/// weights differ, else uniformly. `candidates` must not be empty.
pub fn pick_weighted_among(candidates: &[usize], weights: &[u32], rng: &SelectRng) -> usize {
    let first = weights[candidates[0]];
    let mut total = 0u64;
    let mut same = true;
    for &c in candidates {
        total += u64::from(weights[c]);
        same &= weights[c] == first;
    }
    if !same && total > 0 {
        let mut offset = rng.below_u64(total);
        for &c in candidates {
            let w = u64::from(weights[c]);
            if offset < w {
                return c;
            }
            offset -= w;
        }
    }
    candidates[rng.below(candidates.len())]
}

thread_local! {
    /// The positions tied for the least key, reused between calls so a scan allocates
    /// nothing.
    static TIES: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Java's least-active pick over positions `0..len`: the position with the least `key`
/// (each key read once), ties broken by [`pick_weighted_among`]'s rule (by weight when the
/// tied weights differ, else uniformly). `weights` has a weight per position; `len` must
/// not be 0.
pub fn pick_least<K: Ord + Copy>(
    len: usize,
    key: impl FnMut(usize) -> K,
    weights: &[u32],
    rng: &SelectRng,
) -> usize {
    TIES.with(|cell| match cell.try_borrow_mut() {
        Ok(mut ties) => least_into(&mut ties, len, key, weights, rng),
        // Only if a key read re-entered a balancer on this thread.
        Err(_) => least_into(&mut Vec::new(), len, key, weights, rng),
    })
}

fn least_into<K: Ord + Copy>(
    ties: &mut Vec<u32>,
    len: usize,
    mut key: impl FnMut(usize) -> K,
    weights: &[u32],
    rng: &SelectRng,
) -> usize {
    ties.clear();
    let mut least: Option<K> = None;
    let mut total = 0u64;
    let mut first_weight = 0u32;
    let mut same = true;
    for i in 0..len {
        let k = key(i);
        let w = weights.get(i).copied().unwrap_or(0);
        match least {
            Some(l) if k > l => {}
            Some(l) if k == l => {
                ties.push(i as u32);
                total += u64::from(w);
                same &= w == first_weight;
            }
            _ => {
                least = Some(k);
                ties.clear();
                ties.push(i as u32);
                total = u64::from(w);
                first_weight = w;
                same = true;
            }
        }
    }
    match ties.as_slice() {
        [] => 0,
        [only] => *only as usize,
        tied => {
            if !same && total > 0 {
                let mut offset = rng.below_u64(total);
                for &t in tied {
                    let w = u64::from(weights.get(t as usize).copied().unwrap_or(0));
                    if offset < w {
                        return t as usize;
                    }
                    offset -= w;
                }
            }
            tied[rng.below(tied.len())] as usize
        }
    }
}
