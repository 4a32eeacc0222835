//! One attempt of a call on one provider, as a future of a known type.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use dubbo_core::{BoxFuture, Measure, RpcResult};

/// What [`ClusterCall::invoke_on`](super::ClusterCall::invoke_on) returns: the attempt's
/// future, already started (the provider took the invocation when it was made).
///
/// It is a plain value rather than an `async fn`'s future so that a strategy awaiting it holds
/// only the provider's measuring stage, not further copies of the invocation: a strategy's own
/// future is moved into a box on every call, and every byte of it is copied.
#[must_use = "an attempt does nothing unless polled, and dropping it abandons it"]
pub struct ProviderCall<'a> {
    inner: Stage<'a>,
}

enum Stage<'a> {
    /// The consumer's measuring stage, awaited in place (the usual provider).
    Measured(Measure<'a>),
    /// Any other provider, or a balancer that watches results around the attempt.
    Boxed(BoxFuture<'a, RpcResult>),
}

impl<'a> ProviderCall<'a> {
    pub(crate) fn measured(measure: Measure<'a>) -> Self {
        Self {
            inner: Stage::Measured(measure),
        }
    }

    pub(crate) fn boxed(call: BoxFuture<'a, RpcResult>) -> Self {
        Self {
            inner: Stage::Boxed(call),
        }
    }
}

impl Future for ProviderCall<'_> {
    type Output = RpcResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<RpcResult> {
        // Both stages are `Unpin` (the measuring stage holds its call boxed).
        match &mut self.inner {
            Stage::Measured(measure) => Pin::new(measure).poll(cx),
            Stage::Boxed(call) => call.as_mut().poll(cx),
        }
    }
}

impl std::fmt::Debug for ProviderCall<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Stage::Measured(measure) => f.debug_tuple("ProviderCall").field(measure).finish(),
            Stage::Boxed(_) => f.debug_tuple("ProviderCall").finish_non_exhaustive(),
        }
    }
}
