//! Load balancers: which provider of the routed list takes one call.
//!
//! Each balancer is a [`LoadBalance`] registered in the framework's extension table under
//! Java Dubbo's name, so `loadbalance=roundrobin` picks the same algorithm in both:
//!
//! | name | balancer | idea |
//! |---|---|---|
//! | `random` (default) | [`RandomLoadBalance`] | weighted random |
//! | `roundrobin` | [`RoundRobinLoadBalance`] | smooth weighted round robin |
//! | `leastactive` | [`LeastActiveLoadBalance`] | fewest calls in flight |
//! | `shortestresponse` | [`ShortestResponseLoadBalance`] | shortest expected response |
//! | `consistenthash` | [`ConsistentHashLoadBalance`] | same arguments, same provider |
//! | `p2c` | [`P2cLoadBalance`] | better of two random picks by calls in flight |
//! | `adaptive` | [`AdaptiveLoadBalance`] | better of two random picks by reported load |
//!
//! Weights come from the providers' URLs with Java's warm-up ramp ([`weight`]). State lives
//! in the balancer instances the framework owns; per-provider call statistics come from
//! the framework's [`StatsStore`].

/// `LoadBalance::select` of a balancer with a `pick(Providers, &Invocation)` method: the
/// call's list goes in as the shared list it is, for the balancer's per-list cache.
macro_rules! select_through_pick {
    () => {
        fn select(
            &self,
            invokers: &dubbo_core::InvokerList,
            invocation: &dubbo_core::Invocation,
        ) -> Option<std::sync::Arc<dyn dubbo_core::Invoker>> {
            self.pick(Providers::shared(invokers), invocation)
        }
    };
}
pub(crate) use select_through_pick;

mod adaptive;
mod consistent_hash;
mod cpu_load;
mod lazy_now;
mod least_active;
mod load_report;
mod load_request;
mod p2c;
mod provider_load;
mod random;
mod rng;
mod round_robin;
mod shortest_response;
mod snapshot;
mod stats_table;
pub mod weight;
mod weighted;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use dubbo_core::{Extensions, FilterSpec, LoadBalance, StatsStore};

pub use adaptive::{
    parse_report, AdaptiveLoadBalance, ADAPTIVE_ATTACHMENT_KEY, ADAPTIVE_REQUEST_VALUE,
    DEFAULT_TIMEOUT_MS,
};
pub use consistent_hash::{
    ConsistentHashLoadBalance, DEFAULT_HASH_NODES, HASH_ARGUMENTS_KEY, HASH_NODES_KEY,
};
pub use cpu_load::{scale_loadavg, CpuLoad, SAMPLE_PERIOD};
pub use least_active::LeastActiveLoadBalance;
pub use load_report::LoadReportFilter;
pub use load_request::AdaptiveRequestFilter;
pub use p2c::P2cLoadBalance;
pub use provider_load::ProviderLoad;
pub use random::RandomLoadBalance;
pub use rng::SelectRng;
pub use round_robin::RoundRobinLoadBalance;
pub use shortest_response::{ShortestResponseLoadBalance, DEFAULT_SLIDE_PERIOD};

/// The balancer used when a reference names none.
pub const DEFAULT_LOAD_BALANCE: &str = RandomLoadBalance::NAME;

/// Registers every built-in balancer in `extensions` under its Java name, as
/// `Arc<dyn LoadBalance>`; balancers that read call statistics share `stats`. A user's own
/// balancer is registered the same way under a name of its own
/// (`extensions.register::<dyn LoadBalance>("mine", Arc::new(Mine))`).
///
/// Also registers the two filters adaptive balancing needs: [`AdaptiveRequestFilter`]
/// (consumer: asks providers for their load on `loadbalance=adaptive` references) and
/// [`LoadReportFilter`] (provider: answers).
pub fn register_load_balancers(extensions: &Extensions, stats: Arc<StatsStore>) {
    let balancers: [(&str, Arc<dyn LoadBalance>); 7] = [
        (RandomLoadBalance::NAME, Arc::new(RandomLoadBalance::new())),
        (
            RoundRobinLoadBalance::NAME,
            Arc::new(RoundRobinLoadBalance::new()),
        ),
        (
            LeastActiveLoadBalance::NAME,
            Arc::new(LeastActiveLoadBalance::new(stats.clone())),
        ),
        (
            ShortestResponseLoadBalance::NAME,
            Arc::new(ShortestResponseLoadBalance::new(stats.clone())),
        ),
        (
            ConsistentHashLoadBalance::NAME,
            Arc::new(ConsistentHashLoadBalance::new()),
        ),
        (P2cLoadBalance::NAME, Arc::new(P2cLoadBalance::new(stats))),
        (
            AdaptiveLoadBalance::NAME,
            Arc::new(AdaptiveLoadBalance::new()),
        ),
    ];
    for (name, lb) in balancers {
        extensions.register::<dyn LoadBalance>(name, lb);
    }
    for spec in [AdaptiveRequestFilter::spec(), LoadReportFilter::spec()] {
        extensions.register::<FilterSpec>(spec.name, Arc::new(spec));
    }
}
