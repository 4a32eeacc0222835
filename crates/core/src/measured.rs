//! The consumer's per-provider measuring stage: statistics and call reports.

use std::sync::Arc;
use std::time::Instant;

use dubbo_url::Url;

use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, Invoker, RpcResult};
use crate::report::{Attempt, CallReport, Outcome};
use crate::stats::{ProviderStats, StatsStore};

/// Wraps the invoker of one provider (its consumer filter chain and protocol invoker) and
/// measures every call through it: in-flight count, totals, failures and latency go into the
/// framework's [`StatsStore`], and the attempt is added to the call's [`CallReport`] when the
/// caller attached one.
///
/// The provider's statistics are looked up once, when the invoker is built, so a call costs a
/// few atomic updates and a clock read on each side.
pub struct MeasuredInvoker {
    inner: Arc<dyn Invoker>,
    stats: Arc<ProviderStats>,
    store: Arc<StatsStore>,
}

impl MeasuredInvoker {
    /// Measures calls to `inner` into `store`.
    pub fn new(inner: Arc<dyn Invoker>, store: Arc<StatsStore>) -> Self {
        let stats = store.provider(inner.url());
        Self {
            inner,
            stats,
            store,
        }
    }

    /// The provider's statistics.
    pub fn stats(&self) -> &Arc<ProviderStats> {
        &self.stats
    }

    /// The wrapped invoker.
    pub fn inner(&self) -> &Arc<dyn Invoker> {
        &self.inner
    }

    /// Carries out one call through the wrapped invoker and measures it.
    ///
    /// [`invoke`](Invoker::invoke) boxes this future; a caller that already runs inside a
    /// future of its own (a cluster strategy's attempt, found through
    /// [`Invoker::as_measured`]) awaits it directly, which saves an allocation and a layer
    /// of dynamic dispatch on every call.
    pub async fn measure(&self, invocation: Invocation) -> RpcResult {
        let method = self.stats.method(invocation.method_name());
        let report = invocation.context().get_shared::<CallReport>();
        method.begin();
        let start = Instant::now();
        let result = self.inner.invoke(invocation).await;
        // One clock read for both the elapsed time and the failure stamp.
        let end = Instant::now();
        let elapsed = end.saturating_duration_since(start);
        let outcome = Outcome::of(&result);
        // A business exception is the provider working as designed: it does not count
        // as a failure of the provider for load balancing, as in Java's RpcStatus.
        let ok = !matches!(outcome, Outcome::Failed(_));
        let now = self.store.since_epoch(end);
        method.end(elapsed, ok, now);
        if let Some(report) = report {
            report.record(Attempt {
                provider: self.inner.url().clone(),
                elapsed,
                outcome,
            });
        }
        result
    }
}

impl Invoker for MeasuredInvoker {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(self.measure(invocation))
    }

    fn url(&self) -> &Url {
        self.inner.url()
    }

    fn is_available(&self) -> bool {
        self.inner.is_available()
    }

    fn destroy(&self) {
        self.inner.destroy()
    }

    fn as_measured(&self) -> Option<&MeasuredInvoker> {
        Some(self)
    }
}
