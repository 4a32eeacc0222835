//! The span a task is working in, so that a call made while serving a call continues its trace.

use std::future::Future;

use crate::trace_context::SpanContext;

tokio::task_local! {
    // Task-scoped, not process state: each provider call sets it for the future that serves
    // the call, and it is gone when that future completes.
    static CURRENT: SpanContext;
}

/// The span of the provider call the current task is serving, if any.
pub fn current_span() -> Option<SpanContext> {
    CURRENT.try_with(SpanContext::clone).ok()
}

/// Runs `future` as part of span `ctx`: consumer calls it makes continue that span's trace.
pub async fn in_span<F: Future>(ctx: SpanContext, future: F) -> F::Output {
    CURRENT.scope(ctx, future).await
}
