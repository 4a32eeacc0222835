//! [`InvokerFactory`]: how a dynamic directory turns a provider URL into an invoker.

use std::future::Future;
use std::sync::Arc;

use dubbo_core::{BoxFuture, Invoker, RpcError};
use dubbo_url::Url;

/// Builds the invoker of one provider URL, usually by referring it through its protocol (and
/// wrapping the result in the consumer's filter chain).
///
/// A [`DynamicDirectory`](super::DynamicDirectory) calls it for every provider a notification
/// adds or changes. Protocols share a connection per address, so an invoker built for a
/// provider whose parameters changed reuses the connection of the invoker it replaces, which
/// is destroyed only afterwards.
///
/// Any `Fn(Url) -> impl Future<Output = Result<Arc<dyn Invoker>, RpcError>>` is a factory.
pub trait InvokerFactory: Send + Sync + 'static {
    /// The invoker for the provider `url`.
    fn create(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>>;
}

impl<F, Fut> InvokerFactory for F
where
    F: Fn(Url) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Arc<dyn Invoker>, RpcError>> + Send + 'static,
{
    fn create(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>> {
        Box::pin(self(url))
    }
}
