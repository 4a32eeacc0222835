//! A call in progress as a future of a known type, for callers that hold it inline.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::invoker::{BoxFuture, RpcResult};
use crate::observer::{Observation, Observer};

/// What [`Invoker::invoke_inline`](crate::Invoker::invoke_inline) returns: the call's future,
/// and the observation of the observer that watches it from outside, if any, kept in this
/// value rather than in a box of its own.
///
/// A caller that awaits it inside a future of its own (a protocol's request task, a typed
/// client's method) holds it inline, so an observing first filter (metrics) costs no
/// allocation. Dropping it before it completes tells the observer the call was abandoned.
#[must_use = "a call does nothing unless polled, and dropping it abandons it"]
pub struct Call<'a> {
    inner: BoxFuture<'a, RpcResult>,
    /// The observer to tell of the end, `None` once told (or for an unobserved call).
    watch: Option<(&'a dyn Observer, Observation)>,
}

impl<'a> Call<'a> {
    /// A call nobody watches from outside `inner`.
    pub fn new(inner: BoxFuture<'a, RpcResult>) -> Self {
        Self { inner, watch: None }
    }

    /// A call whose end or abandonment `observer` is told of with `observation`.
    pub fn observed(
        inner: BoxFuture<'a, RpcResult>,
        observer: &'a dyn Observer,
        observation: Observation,
    ) -> Self {
        Self {
            inner,
            watch: Some((observer, observation)),
        }
    }
}

impl Future for Call<'_> {
    type Output = RpcResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<RpcResult> {
        // Every field is `Unpin` (the inner future is boxed), so the struct may be moved out of.
        let this = &mut *self;
        let result = match this.inner.as_mut().poll(cx) {
            Poll::Ready(result) => result,
            Poll::Pending => return Poll::Pending,
        };
        if let Some((observer, observation)) = this.watch.take() {
            observer.end(observation, &result);
        }
        Poll::Ready(result)
    }
}

impl Drop for Call<'_> {
    fn drop(&mut self) {
        if let Some((observer, observation)) = self.watch.take() {
            observer.abandon(observation);
        }
    }
}

impl std::fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call")
            .field("observation", &self.watch.as_ref().map(|(_, o)| o))
            .finish_non_exhaustive()
    }
}
