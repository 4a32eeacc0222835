//! The provider side of adaptive balancing: answer a consumer's load question.

use std::sync::{Arc, OnceLock};

use dubbo_core::{BoxFuture, Filter, FilterSpec, Invocation, Next, RpcResult, Stage};

use super::adaptive::ADAPTIVE_ATTACHMENT_KEY;
use super::cpu_load::CpuLoad;
use super::weight::now_ms;

/// Adds the provider's clock and load to the response of every request that carries the
/// [`ADAPTIVE_ATTACHMENT_KEY`] attachment, as `curTime:<ms since epoch>,load:<load>` (the
/// part of Java's `ProfilerServerFilter` that serves adaptive consumers, Java or Rust).
///
/// The load comes from a [`CpuLoad`] sampler, started on the first request that asks, so a
/// provider nobody asks never runs it.
#[derive(Debug, Default)]
pub struct LoadReportFilter {
    load: OnceLock<Arc<CpuLoad>>,
}

impl LoadReportFilter {
    /// The name it is registered under.
    pub const NAME: &'static str = "adaptive-load-report";

    /// A filter whose sampler starts on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// A filter reporting from `load` (tests, or a sampler shared with other users).
    pub fn with_load(load: Arc<CpuLoad>) -> Self {
        Self {
            load: OnceLock::from(load),
        }
    }

    /// The filter's spec: provider side, outermost (Java's order `Integer.MIN_VALUE`),
    /// active by default.
    pub fn spec() -> FilterSpec {
        FilterSpec::new(
            Self::NAME,
            i32::MIN,
            &[Stage::Provider],
            Arc::new(Self::new()),
        )
    }

    /// The report for now: `curTime:<ms>` and, when a sample exists, `,load:<load>`.
    pub fn report(&self) -> String {
        let load = self.load.get_or_init(CpuLoad::start);
        match load.get() {
            Some(l) => format!("curTime:{},load:{l}", now_ms()),
            None => format!("curTime:{}", now_ms()),
        }
    }
}

impl Filter for LoadReportFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let asked = invocation
            .attachments()
            .get_str(ADAPTIVE_ATTACHMENT_KEY)
            .is_some_and(|v| !v.is_empty());
        let call = next.run(invocation);
        if !asked {
            return call;
        }
        Box::pin(async move {
            let mut result = call.await;
            if let Ok(response) = &mut result {
                response
                    .attachments
                    .insert(ADAPTIVE_ATTACHMENT_KEY, self.report());
            }
            result
        })
    }
}
