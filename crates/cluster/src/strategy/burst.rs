//! [`Burst`]: calls made close together share one load-balancer pick while the picked
//! provider's socket write is still open.
//!
//! Calls tend to come in bursts: a batch of responses read in one go wakes as many callers,
//! and each sends its next request at once. Spread over three providers by independent draws,
//! such a burst leaves as three socket writes from the caller (and wakes three provider
//! connections, which answer with three writes) where one provider would have taken one. So
//! the call after a draw joins the drawn provider while that provider's write has not gone
//! out yet ([`Invoker::has_open_write`]), up to [`MAX_JOINS`] calls, and only then draws
//! again.
//!
//! Each burst is one draw of the balancer, and how long a burst lasts does not depend on
//! the provider it went to (every provider's writer flushes the same way), so over many
//! bursts each provider's share of the calls is its share of the draws: the weights. Only
//! balancers whose picks are independent draws take part ([`LoadBalance::shares_picks`]).
//!
//! [`LoadBalance::shares_picks`]: dubbo_core::LoadBalance::shares_picks

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use dubbo_core::{Invoker, InvokerList};

/// Most calls that join one pick after the call that drew it. Bounded so that a provider
/// whose writes stay open (a slow peer that reads slowly) does not take every call until
/// its queue drains, and so that bursts stay short next to the number of calls over which
/// the shares are measured. It fits the word's low byte.
pub const MAX_JOINS: usize = 15;

/// The low byte of [`Burst::word`]: joins left.
const JOINS: usize = 0xff;

/// The last pick of one reference's calls and how many calls may still join it.
///
/// Two words, written without a lock: a reader may see a new list with the old position, or
/// lose a race for the last join. Either way it joins a provider of the list it holds whose
/// write is open, or draws: the state is a hint that never sends a call where the balancer
/// could not have.
#[derive(Debug, Default)]
pub(crate) struct Burst {
    /// Address of the routed list the pick was made in.
    list: AtomicUsize,
    /// `position << 8 | joins left`.
    word: AtomicUsize,
}

impl Burst {
    /// The provider of `list` a call joins instead of drawing: the last pick, when it was made
    /// in this very list, may still be joined, and its write is still open.
    pub(crate) fn join<'a>(&self, list: &'a InvokerList) -> Option<&'a Arc<dyn Invoker>> {
        if self.list.load(Ordering::Relaxed) != list_addr(list) {
            return None;
        }
        let word = self.word.load(Ordering::Relaxed);
        if word & JOINS == 0 {
            return None;
        }
        let provider = list.get(word >> 8)?;
        if !provider.has_open_write() {
            return None;
        }
        // A lost race means another call took the join (or drew anew): draw.
        self.word
            .compare_exchange(word, word - 1, Ordering::Relaxed, Ordering::Relaxed)
            .ok()?;
        Some(provider)
    }

    /// Remembers that a call drew position `at` of `list`.
    pub(crate) fn picked(&self, list: &InvokerList, at: usize) {
        self.list.store(list_addr(list), Ordering::Relaxed);
        self.word.store(at << 8 | MAX_JOINS, Ordering::Relaxed);
    }
}

/// A list's identity while the caller holds it.
fn list_addr(list: &InvokerList) -> usize {
    Arc::as_ptr(list) as *const () as usize
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::sync::atomic::AtomicBool;

    use dubbo_core::{BoxFuture, Invocation, RpcResult};
    use dubbo_url::Url;

    use super::*;

    struct Provider {
        url: Url,
        open: AtomicBool,
    }

    impl Invoker for Provider {
        fn invoke(&self, _invocation: Invocation) -> BoxFuture<'_, RpcResult> {
            unreachable!("not called")
        }
        fn url(&self) -> &Url {
            &self.url
        }
        fn has_open_write(&self) -> bool {
            self.open.load(Ordering::Relaxed)
        }
    }

    fn providers(n: u16) -> (Vec<Arc<Provider>>, InvokerList) {
        let ps: Vec<Arc<Provider>> = (0..n)
            .map(|i| {
                Arc::new(Provider {
                    url: Url::parse(&format!("dubbo://127.0.0.1:{}/a.B", 20000 + i)).unwrap(),
                    open: AtomicBool::new(true),
                })
            })
            .collect();
        let list: Vec<Arc<dyn Invoker>> = ps.iter().map(|p| p.clone() as _).collect();
        (ps, list.into())
    }

    fn at(list: &InvokerList, p: &Arc<dyn Invoker>) -> usize {
        list.iter()
            .position(|i| std::ptr::addr_eq(Arc::as_ptr(i), Arc::as_ptr(p)))
            .unwrap()
    }

    #[test]
    fn nothing_to_join_before_a_pick() {
        let (_ps, list) = providers(3);
        assert!(Burst::default().join(&list).is_none());
    }

    #[test]
    fn a_pick_is_joined_at_most_max_joins_times() {
        let (_ps, list) = providers(3);
        let b = Burst::default();
        b.picked(&list, 2);
        for _ in 0..MAX_JOINS {
            assert_eq!(at(&list, b.join(&list).unwrap()), 2);
        }
        assert!(b.join(&list).is_none(), "spent");
        b.picked(&list, 1);
        assert_eq!(at(&list, b.join(&list).unwrap()), 1);
    }

    #[test]
    fn a_closed_write_or_another_list_is_not_joined() {
        let (ps, list) = providers(3);
        let b = Burst::default();
        b.picked(&list, 0);
        ps[0].open.store(false, Ordering::Relaxed);
        assert!(b.join(&list).is_none());
        ps[0].open.store(true, Ordering::Relaxed);
        // The same providers in another list (a new snapshot): draw there.
        let renewed: InvokerList = list.to_vec().into();
        assert!(b.join(&renewed).is_none());
        assert!(b.join(&list).is_some());
    }

    #[test]
    fn a_position_past_the_list_is_not_joined() {
        let (_ps, list) = providers(2);
        let b = Burst::default();
        b.picked(&list, 7);
        assert!(b.join(&list).is_none());
    }
}
