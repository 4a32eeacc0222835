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

/// What [`create_all`] made of one job: its position and the factory's answer.
pub(super) type Built = (usize, Result<Arc<dyn Invoker>, RpcError>);

/// Builds the invoker of every `(position, url)` job with `factory`, starting them all before
/// waiting for any.
///
/// Most factories answer without waiting (a protocol that connects lazily): each future is
/// polled once on the spot, and only those still pending are awaited together. A push of
/// 100,000 new providers then costs no task, waker or queue entry per provider. A future
/// polled once this way and then awaited is polled again with a real waker, which every
/// future must allow. Results come in the order of `jobs` for those that were ready, then of
/// those that were not.
pub(super) async fn create_all(
    factory: &dyn InvokerFactory,
    jobs: Vec<(usize, Url)>,
) -> Vec<Built> {
    let mut done: Vec<Built> = Vec::with_capacity(jobs.len());
    let mut pending = Vec::new();
    {
        // Not held across the await below: a `Context` is neither `Send` nor `Sync`.
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        for (position, url) in jobs {
            let mut future = factory.create(url);
            match future.as_mut().poll(&mut cx) {
                std::task::Poll::Ready(result) => done.push((position, result)),
                std::task::Poll::Pending => pending.push(async move { (position, future.await) }),
            }
        }
    }
    if !pending.is_empty() {
        done.extend(futures::future::join_all(pending).await);
    }
    done
}
