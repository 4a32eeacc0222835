//! The consumer's per-provider measuring stage: statistics and call reports.

use std::sync::Arc;
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
///
/// A call dropped before it ends (a forking strategy's losing branch, a caller's own timeout)
/// leaves the provider's in-flight count, so that load balancers reading that count (least
/// active, P2C, adaptive) do not see a call that no longer runs.
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
}

/// A method's counters while one call is in flight: dropped before the call ended, it takes
/// the call out of the in-flight count without counting an outcome.
struct InFlight(Option<Arc<CallStats>>);

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(method) = self.0.take() {
            method.abandon();
        }
    }
}

impl Invoker for MeasuredInvoker {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        let method = self.stats.method(invocation.method_name());
        let report = invocation.context().get_shared::<CallReport>();
        method.begin();
        let mut in_flight = InFlight(Some(method));
        let start = Instant::now();
        // The wrapped invoker takes the invocation now, so the future below holds the
        // call, not another copy of the invocation.
        let call = self.inner.invoke(invocation);
        Box::pin(async move {
            let result = call.await;
            // One clock read for both the elapsed time and the failure stamp.
            let end = Instant::now();
            let elapsed = end.saturating_duration_since(start);
            let outcome = Outcome::of(&result);
            // A business exception is the provider working as designed: it does not count
            // as a failure of the provider for load balancing, as in Java's RpcStatus.
            let ok = !matches!(outcome, Outcome::Failed(_));
            if let Some(method) = in_flight.0.take() {
                method.end(elapsed, ok, self.store.since_epoch(end));
            }
            if let Some(report) = report {
                report.record(Attempt {
                    provider: self.inner.url().clone(),
                    elapsed,
                    outcome,
                });
            }
            result
        })
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
        let mut pending = measured.invoke(call());
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
        assert!(measured.invoke(call()).await.is_ok());
        assert_eq!(measured.stats().all().active(), 0);
        assert_eq!(measured.stats().all().total(), 1);
    }
}
