//! The consumer's per-provider measuring stage: statistics and call reports.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use dubbo_url::Url;

use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, Invoker, RpcResult};
use crate::report::{Attempt, CallReport, Outcome};
use crate::stats::{CallStats, ProviderStats, StatsStore};

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
    pub fn measure(&self, invocation: Invocation) -> Measure<'_> {
        let method = self.stats.method(invocation.method_name());
        let report = invocation.context().get_shared::<CallReport>();
        method.begin();
        let start = Instant::now();
        // The wrapped invoker takes the invocation now, so the returned future holds only the
        // call's box and the measurement, not another copy of the invocation: a strategy
        // keeps this future inside its own, which is moved into a box on every call.
        let call = self.inner.invoke(invocation);
        Measure {
            call,
            owner: self,
            method: Some(method),
            report,
            start,
        }
    }
}

/// One call through a [`MeasuredInvoker`], measured when it ends
/// ([`MeasuredInvoker::measure`]).
///
/// Dropped before it ends (a forking strategy's losing branch, a caller's own timeout), it
/// takes the call out of the provider's in-flight count, so that load balancers reading that
/// count (least active, P2C, adaptive) do not see a call that no longer runs.
#[must_use = "a call does nothing unless polled"]
pub struct Measure<'a> {
    call: BoxFuture<'a, RpcResult>,
    owner: &'a MeasuredInvoker,
    /// The method's counters while the call is in flight; `None` once it ended.
    method: Option<Arc<CallStats>>,
    report: Option<Arc<CallReport>>,
    start: Instant,
}

impl Future for Measure<'_> {
    type Output = RpcResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<RpcResult> {
        // Every field is `Unpin` (the call is boxed).
        let this = &mut *self;
        let result = match this.call.as_mut().poll(cx) {
            Poll::Ready(result) => result,
            Poll::Pending => return Poll::Pending,
        };
        // One clock read for both the elapsed time and the failure stamp.
        let end = Instant::now();
        let elapsed = end.saturating_duration_since(this.start);
        let outcome = Outcome::of(&result);
        // A business exception is the provider working as designed: it does not count
        // as a failure of the provider for load balancing, as in Java's RpcStatus.
        let ok = !matches!(outcome, Outcome::Failed(_));
        if let Some(method) = this.method.take() {
            let now = this.owner.store.since_epoch(end);
            method.end(elapsed, ok, now);
        }
        if let Some(report) = this.report.take() {
            report.record(Attempt {
                provider: this.owner.inner.url().clone(),
                elapsed,
                outcome,
            });
        }
        Poll::Ready(result)
    }
}

impl Drop for Measure<'_> {
    fn drop(&mut self) {
        if let Some(method) = self.method.take() {
            method.abandon();
        }
    }
}

impl std::fmt::Debug for Measure<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Measure")
            .field("provider", &self.owner.inner.url().to_string())
            .field("ended", &self.method.is_none())
            .finish_non_exhaustive()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invocation::RpcResponse;
    use crate::invoker::invoker_fn;
    use crate::{MethodSignature, ServiceKey};
    use dubbo_hessian2::Value;

    fn call() -> Invocation {
        Invocation::new(
            ServiceKey::new("S", None, None),
            Arc::new(MethodSignature::new::<&str>("m", &[], "V")),
            vec![],
        )
    }

    #[tokio::test]
    async fn a_call_dropped_in_flight_leaves_the_in_flight_count() {
        let never = invoker_fn(Url::parse("dubbo://10.0.0.1:20880/S").unwrap(), |_| {
            std::future::pending::<RpcResult>()
        });
        let measured = MeasuredInvoker::new(Arc::new(never), Arc::new(StatsStore::new()));
        let mut pending = Box::pin(measured.measure(call()));
        let polled = futures::poll!(pending.as_mut());
        assert!(polled.is_pending());
        assert_eq!(measured.stats().all().active(), 1);
        drop(pending);
        assert_eq!(measured.stats().all().active(), 0);
        assert_eq!(measured.stats().all().total(), 0, "abandoned, not ended");

        let answers = invoker_fn(Url::parse("dubbo://10.0.0.2:20880/S").unwrap(), |_| async {
            Ok(RpcResponse::new(Value::Null))
        });
        let measured = MeasuredInvoker::new(Arc::new(answers), Arc::new(StatsStore::new()));
        assert!(measured.measure(call()).await.is_ok());
        assert_eq!(measured.stats().all().active(), 0);
        assert_eq!(measured.stats().all().total(), 1);
    }
}
