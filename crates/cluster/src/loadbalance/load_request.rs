//! The consumer side of adaptive balancing: ask the provider for its load.

use std::sync::Arc;

use dubbo_core::{BoxFuture, Filter, FilterSpec, Invocation, Next, RpcResult, Stage};

use super::adaptive::{AdaptiveLoadBalance, ADAPTIVE_ATTACHMENT_KEY, ADAPTIVE_REQUEST_VALUE};

/// On references with `loadbalance=adaptive`, adds the [`ADAPTIVE_ATTACHMENT_KEY`] attachment
/// to each request, which asks the provider (Rust's [`LoadReportFilter`](super::LoadReportFilter)
/// or Java's `ProfilerServerFilter`) to send its load back. Java's `AdaptiveLoadBalance` sets
/// it while selecting; a Rust balancer sees the invocation read-only, so this filter does it.
#[derive(Debug, Default)]
pub struct AdaptiveRequestFilter;

impl AdaptiveRequestFilter {
    /// The name it is registered under (Java's consumer-side `adaptiveLoadBalance` filter).
    pub const NAME: &'static str = "adaptiveLoadBalance";

    /// The filter's spec: consumer side, once per attempt, Java's order (-200000), active
    /// on URLs with a `loadbalance` parameter.
    pub fn spec() -> FilterSpec {
        FilterSpec::new(Self::NAME, -200_000, &[Stage::Consumer], Arc::new(Self))
            .when_url_has(&["loadbalance"])
    }
}

impl Filter for AdaptiveRequestFilter {
    fn invoke<'a>(
        &'a self,
        mut invocation: Invocation,
        next: Next<'a>,
    ) -> BoxFuture<'a, RpcResult> {
        let adaptive = next
            .url()
            .method_parameter(invocation.method_name(), "loadbalance")
            == Some(AdaptiveLoadBalance::NAME);
        if adaptive
            && !invocation
                .attachments()
                .contains_key(ADAPTIVE_ATTACHMENT_KEY)
        {
            invocation
                .attachments_mut()
                .insert(ADAPTIVE_ATTACHMENT_KEY, ADAPTIVE_REQUEST_VALUE);
        }
        next.run(invocation)
    }
}
