use std::time::{Duration, Instant};

use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

use super::call_counts::CallCounts;
use super::execute_limit::limit_of;

/// The URL parameter (also `<method>.actives`) that limits a consumer's concurrent calls.
pub const ACTIVES_KEY: &str = "actives";

/// How long a call waits for a place when the URL sets no `timeout`: Dubbo's default timeout.
const DEFAULT_WAIT: Duration = Duration::from_millis(1000);

/// The consumer-side limit of concurrent calls, Java's `ActiveLimitFilter`.
///
/// Active when the reference URL's `actives` (or `<method>.actives`) is above zero: at most that
/// many calls of one method to one provider are in progress at once. A call over the limit waits
/// for one of them to end, up to the URL's `timeout` for the method (1000 ms when none is set);
/// when none ends in time it fails with [`ErrorCode::LimitExceeded`] and Java's message. The
/// counts live in this instance.
#[derive(Debug, Default)]
pub struct ActiveLimitFilter {
    counts: CallCounts,
}

impl ActiveLimitFilter {
    /// A filter with no calls counted yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Filter for ActiveLimitFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let url = next.url();
        let Some(max) = limit_of(url.method_parameter(invocation.method_name(), ACTIVES_KEY))
        else {
            return next.run(invocation);
        };
        let key = format!(
            "{}#{}.{}",
            url.to_identity_string(),
            invocation.service(),
            invocation.method_name()
        );
        let slot = self.counts.slot(key);
        if let Some(guard) = slot.try_begin(max) {
            return Box::pin(async move {
                let result = next.run(invocation).await;
                drop(guard);
                result
            });
        }
        let timeout = url
            .method_parameter_duration_ms(invocation.method_name(), "timeout")
            .ok()
            .flatten()
            .filter(|t| !t.is_zero())
            .unwrap_or(DEFAULT_WAIT);
        Box::pin(async move {
            let start = Instant::now();
            let deadline = start + timeout;
            let guard = loop {
                let released = slot.released();
                tokio::pin!(released);
                released.as_mut().enable();
                if let Some(guard) = slot.try_begin(max) {
                    break guard;
                }
                if tokio::time::timeout_at(deadline.into(), released)
                    .await
                    .is_err()
                {
                    return Err(RpcError::framework(
                        ErrorCode::LimitExceeded,
                        format!(
                            "Waiting concurrent invoke timeout in client-side for service:  {}, method: {}, elapsed: {}, timeout: {}. concurrent invokes: {}. max concurrent invoke limit: {max}",
                            invocation.service().interface(),
                            invocation.method_name(),
                            start.elapsed().as_millis(),
                            timeout.as_millis(),
                            slot.active(),
                        ),
                    ));
                }
            };
            let result = next.run(invocation).await;
            drop(guard);
            result
        })
    }
}
