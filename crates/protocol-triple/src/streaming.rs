//! [`Streaming`]: the inbound messages of a call, decoded one by one as the application asks.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use bytes::Bytes;
use futures::Stream;
use http::HeaderMap;
use tokio::time::Sleep;

use crate::codec::DecodeFn;
use crate::flow_control::InboundMessages;
use crate::status::Status;

/// Aborts a task when dropped.
#[derive(Debug)]
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The stream of responses a streaming method of a `#[dubbo_rs::service]` trait returns (a
/// server or bidirectional stream): each item a value, or the status that ends the call.
/// Build one with `Box::pin(stream)`.
pub type ResponseStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// A stream of messages received on a call: requests on the server side, responses on the
/// client side.
///
/// Only what the application takes is acknowledged to the peer's flow control, so a consumer
/// that stops reading stops the sender once the window is full. On the client side, the end
/// of the stream carries the call's status: a non-OK `grpc-status` comes out as the last
/// item, an `Err`.
pub struct Streaming<T> {
    inner: InboundMessages,
    decode: DecodeFn<T>,
    expect_status: bool,
    done: bool,
    trailers: Option<HeaderMap>,
    deadline: Option<Pin<Box<Sleep>>>,
    _tasks: Vec<AbortOnDrop>,
}

impl<T> std::fmt::Debug for Streaming<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streaming")
            .field("inner", &self.inner)
            .field("done", &self.done)
            .finish()
    }
}

impl<T> Streaming<T> {
    /// Server side: the request messages of a call.
    pub(crate) fn new_request(inner: InboundMessages, decode: DecodeFn<T>) -> Self {
        Self {
            inner,
            decode,
            expect_status: false,
            done: false,
            trailers: None,
            deadline: None,
            _tasks: Vec::new(),
        }
    }

    /// Client side: the response messages, ending with the status from the trailers.
    pub(crate) fn new_response(
        inner: InboundMessages,
        decode: DecodeFn<T>,
        deadline: Option<Instant>,
        tasks: Vec<AbortOnDrop>,
    ) -> Self {
        Self {
            inner,
            decode,
            expect_status: true,
            done: false,
            trailers: None,
            deadline: deadline
                .map(|d| Box::pin(tokio::time::sleep_until(tokio::time::Instant::from_std(d)))),
            _tasks: tasks,
        }
    }

    /// The next message; `Ok(None)` at the end of a successful stream.
    pub async fn message(&mut self) -> Result<Option<T>, Status> {
        match futures::StreamExt::next(self).await {
            Some(Ok(m)) => Ok(Some(m)),
            Some(Err(e)) => Err(e),
            None => Ok(None),
        }
    }

    /// The trailers, once the stream has ended (client side).
    pub fn trailers(&self) -> Option<&HeaderMap> {
        self.trailers.as_ref()
    }

    /// Bytes received but not yet taken by the application.
    pub fn buffered_bytes(&self) -> usize {
        self.inner.buffered()
    }

    fn poll_end(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, Status>>> {
        if !self.expect_status {
            self.done = true;
            return Poll::Ready(None);
        }
        match self.inner.poll_trailers(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Err(e)) => {
                self.done = true;
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(Ok(trailers)) => {
                self.done = true;
                let status = trailers
                    .as_ref()
                    .and_then(Status::from_header_map)
                    .unwrap_or_else(|| Status::internal("response ended without grpc-status"));
                self.trailers = trailers;
                if status.is_ok() {
                    Poll::Ready(None)
                } else {
                    Poll::Ready(Some(Err(status)))
                }
            }
        }
    }
}

impl<T> Stream for Streaming<T> {
    type Item = Result<T, Status>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        if let Some(d) = this.deadline.as_mut() {
            if d.as_mut().poll(cx).is_ready() {
                this.done = true;
                return Poll::Ready(Some(Err(Status::deadline_exceeded(
                    "deadline exceeded while waiting for the response stream",
                ))));
            }
        }
        if this.inner.is_end() {
            return this.poll_end(cx);
        }
        match this.inner.poll_message(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(bytes))) => match (this.decode)(bytes) {
                Ok(m) => Poll::Ready(Some(Ok(m))),
                Err(e) => {
                    this.done = true;
                    Poll::Ready(Some(Err(e)))
                }
            },
            Poll::Ready(Some(Err(e))) => {
                this.done = true;
                Poll::Ready(Some(Err(e)))
            }
            Poll::Ready(None) => this.poll_end(cx),
        }
    }
}

impl Streaming<Bytes> {
    /// The same stream with each payload decoded as the protobuf message `M`; for a stream of
    /// payloads as received (the raw calls of [`TripleClient`](crate::TripleClient)), as a
    /// generated client calling through an invoker gets it.
    pub fn decode_as<M: prost::Message + Default>(self) -> Streaming<M> {
        Streaming {
            inner: self.inner,
            decode: crate::codec::decode_prost::<M>,
            expect_status: self.expect_status,
            done: self.done,
            trailers: self.trailers,
            deadline: self.deadline,
            _tasks: self._tasks,
        }
    }

    /// The same stream with each payload decoded by `decode` (the interface-mode messages of
    /// [`wrapper_stream`](crate::wrapper_stream), for one).
    pub fn decode_with<M>(self, decode: DecodeFn<M>) -> Streaming<M> {
        Streaming {
            inner: self.inner,
            decode,
            expect_status: self.expect_status,
            done: self.done,
            trailers: self.trailers,
            deadline: self.deadline,
            _tasks: self._tasks,
        }
    }
}

use std::future::Future as _;

/// Decodes raw payloads: the identity "codec" for lower-level users.
pub fn decode_raw(b: Bytes) -> Result<Bytes, Status> {
    Ok(b)
}
