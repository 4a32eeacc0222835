//! What the consumer learns about a call once it has ended, whatever its outcome.

use std::sync::Mutex;
use std::time::Duration;

use dubbo_url::Url;

use crate::error::{ErrorCode, RpcError};
use crate::invoker::RpcResult;

/// How one attempt of a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The provider returned a value.
    Success,
    /// The provider's implementation threw.
    Business,
    /// The framework failed the call with this code.
    Failed(ErrorCode),
}

impl Outcome {
    /// The outcome of `result`.
    pub fn of(result: &RpcResult) -> Self {
        match result {
            Ok(_) => Outcome::Success,
            Err(RpcError::Business(_)) => Outcome::Business,
            Err(e) => Outcome::Failed(e.code().unwrap_or(ErrorCode::Unknown)),
        }
    }

    /// Whether the call succeeded.
    pub fn is_success(self) -> bool {
        self == Outcome::Success
    }
}

/// One attempt of a call on one provider.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// The provider that handled the attempt.
    pub provider: Url,
    /// How long the attempt took, as the consumer saw it.
    pub elapsed: Duration,
    /// How it ended.
    pub outcome: Outcome,
}

/// A record of a call's attempts, filled in by the consumer's per-provider stage.
///
/// A filter or a caller that wants to know, after the call, which provider answered, how long
/// it took and how it ended puts a report into the invocation's context before passing it on,
/// and reads it when the result comes back; success and failure alike. A failover strategy's
/// retries share the report (contexts share their attributes), so it lists every attempt in
/// order, the last one being the one whose result came back.
///
/// ```
/// use std::sync::Arc;
/// use dubbo_core::{CallReport, Invocation, MethodSignature, ServiceKey};
///
/// let mut call = Invocation::new(
///     ServiceKey::interface_only("org.example.Greeter"),
///     Arc::new(MethodSignature::new("sayHello", &["java.lang.String"], "java.lang.String")),
///     vec!["world".into()],
/// );
/// let report = CallReport::attach(&mut call);
/// // ... invoker.invoke(call).await ...
/// assert!(report.last().is_none(), "nothing was called yet");
/// ```
#[derive(Debug, Default)]
pub struct CallReport {
    attempts: Mutex<Vec<Attempt>>,
}

/// Most attempts one report keeps (broadcast to a large cluster could make many).
const MAX_ATTEMPTS: usize = 64;

impl CallReport {
    /// Puts a fresh report into `invocation`'s context and returns it; an existing one is
    /// reused so that outer and inner layers share one record.
    pub fn attach(invocation: &mut crate::Invocation) -> std::sync::Arc<CallReport> {
        if let Some(existing) = invocation.context().get_shared::<CallReport>() {
            return existing;
        }
        invocation.context_mut().insert(CallReport::default());
        invocation
            .context()
            .get_shared::<CallReport>()
            .unwrap_or_default()
    }

    /// Records one attempt.
    pub fn record(&self, attempt: Attempt) {
        if let Ok(mut a) = self.attempts.lock() {
            if a.len() < MAX_ATTEMPTS {
                a.push(attempt);
            }
        }
    }

    /// Every attempt so far, in order.
    pub fn attempts(&self) -> Vec<Attempt> {
        self.attempts.lock().map(|a| a.clone()).unwrap_or_default()
    }

    /// The last attempt: the provider whose result the caller got.
    pub fn last(&self) -> Option<Attempt> {
        self.attempts.lock().ok()?.last().cloned()
    }
}
