//! The one trait every stage of a call implements.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use dubbo_url::Url;

use crate::call::Call;
use crate::error::RpcError;
use crate::invocation::{Invocation, RpcResponse};
use crate::measured::MeasuredInvoker;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What a call ends in.
pub type RpcResult = Result<RpcResponse, RpcError>;

/// Something that can carry out an [`Invocation`]: a remote provider, a cluster of them, a
/// filter chain, or a local service implementation.
///
/// The shape follows motore/Volo rather than tower: `&self` and no `poll_ready`, with the
/// per-call context inside the invocation. It is object-safe, so directories hold
/// `Arc<dyn Invoker>` and the cluster layer can stack strategies at run time.
pub trait Invoker: Send + Sync + 'static {
    /// Carries out the call.
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult>;

    /// Carries out the call as [`invoke`](Self::invoke) does, returned as a [`Call`] for a
    /// caller that awaits it inside a future of its own. A [`FilterChain`](crate::FilterChain)
    /// whose first filter is an [`Observer`](crate::Observer) (metrics) then keeps the
    /// observation in the `Call`, which the caller holds inline, instead of in a box of its
    /// own: one allocation fewer per call. An invoker that wraps another should forward this
    /// too; the default wraps `invoke`.
    fn invoke_inline(&self, invocation: Invocation) -> Call<'_> {
        Call::new(self.invoke(invocation))
    }

    /// The URL that describes this invoker (provider address and parameters).
    fn url(&self) -> &Url;

    /// Whether the invoker can take calls now (connected, not read-only, not destroyed).
    fn is_available(&self) -> bool {
        true
    }

    /// Releases resources; later calls fail.
    fn destroy(&self) {}

    /// This invoker as the consumer's measuring stage, when it is one, so that a caller
    /// already inside a future of its own (a cluster strategy's attempt) can await
    /// [`MeasuredInvoker::measure`] directly instead of through another boxed future.
    fn as_measured(&self) -> Option<&MeasuredInvoker> {
        None
    }
}

/// A shared, type-erased invoker.
pub type BoxInvoker = Arc<dyn Invoker>;

impl<T: Invoker + ?Sized> Invoker for Arc<T> {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        (**self).invoke(invocation)
    }
    fn invoke_inline(&self, invocation: Invocation) -> Call<'_> {
        (**self).invoke_inline(invocation)
    }
    fn url(&self) -> &Url {
        (**self).url()
    }
    fn is_available(&self) -> bool {
        (**self).is_available()
    }
    fn destroy(&self) {
        (**self).destroy()
    }
    fn as_measured(&self) -> Option<&MeasuredInvoker> {
        (**self).as_measured()
    }
}

/// An invoker made from an async closure, for tests and small local services.
pub struct FnInvoker<F> {
    url: Url,
    f: F,
}

/// Wraps `f` as an [`Invoker`] described by `url`.
pub fn invoker_fn<F, Fut>(url: Url, f: F) -> FnInvoker<F>
where
    F: Fn(Invocation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = RpcResult> + Send + 'static,
{
    FnInvoker { url, f }
}

impl<F, Fut> Invoker for FnInvoker<F>
where
    F: Fn(Invocation) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = RpcResult> + Send + 'static,
{
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin((self.f)(invocation))
    }

    fn url(&self) -> &Url {
        &self.url
    }
}
