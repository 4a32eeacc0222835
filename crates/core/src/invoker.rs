//! The one trait every stage of a call implements.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use dubbo_url::Url;

use crate::error::RpcError;
use crate::invocation::{Invocation, RpcResponse};

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
///
/// It has what every stage of a call needs and nothing a single stage could use to go
/// faster: a wrapper forwards these four and is done. An optimisation belongs to the
/// concrete type that profits from it.
pub trait Invoker: Send + Sync + 'static {
    /// Carries out the call.
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult>;

    /// The URL that describes this invoker (provider address and parameters).
    fn url(&self) -> &Url;

    /// Whether the invoker can take calls now (connected, not read-only, not destroyed).
    fn is_available(&self) -> bool {
        true
    }

    /// Releases resources; later calls fail.
    fn destroy(&self) {}
}

/// A shared, type-erased invoker.
pub type BoxInvoker = Arc<dyn Invoker>;

impl<T: Invoker + ?Sized> Invoker for Arc<T> {
    fn invoke(&self, invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        (**self).invoke(invocation)
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
