//! The `metrics` filter: records every call of a provider or consumer into a store.

use std::sync::Arc;
use std::time::Instant;

use dubbo_core::{BoxFuture, Filter, Invocation, Next, RpcResult, Side};

use crate::failure::FailureKind;
use crate::key::KeyRef;
use crate::method_metrics::MethodMetrics;
use crate::store::MetricsStore;

/// Java's name for the filter, as used in `filter=-metrics`.
pub const METRICS_FILTER_NAME: &str = "metrics";

/// Records each call's outcome and response time under its [`MetricKey`](crate::MetricKey).
///
/// The side comes from the URL's `side` parameter (`provider` unless it says `consumer`) and
/// the application from its `application` parameter, so one instance serves every chain of a
/// framework.
#[derive(Debug, Clone)]
pub struct MetricsFilter {
    store: Arc<MetricsStore>,
}

impl MetricsFilter {
    /// A filter recording into `store`.
    pub fn new(store: Arc<MetricsStore>) -> Self {
        Self { store }
    }
}

/// Ends the in-flight count when the call's future is dropped before it completes.
struct InFlight(Option<Arc<MethodMetrics>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(m) = self.0.take() {
            m.abandon();
        }
    }
}

impl Filter for MetricsFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let url = next.url();
        let side = match url.parameter("side") {
            Some("consumer") => Side::Consumer,
            _ => Side::Provider,
        };
        let service = invocation.service();
        let key = KeyRef {
            side,
            application: url.parameter("application").unwrap_or(""),
            interface: service.interface(),
            method: invocation.method_name(),
            group: service.group().unwrap_or(""),
            version: service.version().unwrap_or(""),
        };
        let Some(metrics) = self.store.get(&key) else {
            return next.run(invocation);
        };
        metrics.begin();
        let started = Instant::now();
        Box::pin(async move {
            let mut guard = InFlight(Some(metrics));
            let result = next.run(invocation).await;
            let ended = Instant::now();
            if let Some(m) = guard.0.take() {
                let micros = ended.saturating_duration_since(started).as_micros() as u64;
                let failure = result.as_ref().err().map(FailureKind::of);
                m.end(ended, micros, failure);
            }
            result
        })
    }
}
