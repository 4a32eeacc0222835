use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

use super::call_counts::CallCounts;

/// The URL parameter (also `<method>.executes`) that limits concurrent executions.
pub const EXECUTES_KEY: &str = "executes";

/// The provider-side limit of concurrent executions, Java's `ExecuteLimitFilter`.
///
/// Active when the provider URL's `executes` (or `<method>.executes`) is above zero: at most that
/// many calls of one method of the service run at once, and a call over the limit is refused at
/// once with [`ErrorCode::LimitExceeded`] and Java's message. The counts live in this instance.
#[derive(Debug, Default)]
pub struct ExecuteLimitFilter {
    counts: CallCounts,
}

impl ExecuteLimitFilter {
    /// A filter with no calls counted yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Filter for ExecuteLimitFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let url = next.url();
        let method = invocation.method_name();
        let max = limit_of(url.method_parameter(method, EXECUTES_KEY));
        let Some(max) = max else {
            return next.run(invocation);
        };
        let key = format!(
            "{}#{}.{method}",
            url.to_identity_string(),
            invocation.service()
        );
        match self.counts.slot(key).try_begin(max) {
            Some(guard) => Box::pin(async move {
                let result = next.run(invocation).await;
                drop(guard);
                result
            }),
            None => {
                let message = format!(
                    "Failed to invoke method {method} in provider {url}, cause: The service using threads greater than <dubbo:service executes=\"{max}\" /> limited."
                );
                Box::pin(async move { Err(RpcError::framework(ErrorCode::LimitExceeded, message)) })
            }
        }
    }
}

/// A limit parameter's value when it sets one: a number above zero (Java reads it as an `int`,
/// and zero, negatives and garbage mean no limit).
pub(crate) fn limit_of(value: Option<&str>) -> Option<usize> {
    value
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|n| *n > 0)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}
