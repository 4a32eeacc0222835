//! Requests and responses of IDL-mode calls: a message (or a stream of them) with its metadata.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use futures::Stream;
use http::HeaderMap;

/// A request: the message (or stream of messages) and its metadata (headers).
#[derive(Debug)]
pub struct Request<T> {
    message: T,
    metadata: HeaderMap,
    timeout: Option<Duration>,
    deadline: Option<Instant>,
    remote_addr: Option<SocketAddr>,
}

impl<T> Request<T> {
    /// A request with no metadata.
    pub fn new(message: T) -> Self {
        Self {
            message,
            metadata: HeaderMap::new(),
            timeout: None,
            deadline: None,
            remote_addr: None,
        }
    }

    /// The message.
    pub fn get_ref(&self) -> &T {
        &self.message
    }

    /// The message, mutable.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.message
    }

    /// Takes the message.
    pub fn into_inner(self) -> T {
        self.message
    }

    /// The metadata: request headers on the server side, headers to send on the client side.
    /// Attachments are among them (lower-case keys, binary ones under `key-bin`).
    pub fn metadata(&self) -> &HeaderMap {
        &self.metadata
    }

    /// The metadata, mutable.
    pub fn metadata_mut(&mut self) -> &mut HeaderMap {
        &mut self.metadata
    }

    /// Client side: sets the call's timeout, sent as `grpc-timeout` and enforced locally too.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = Some(timeout);
    }

    /// The timeout set with [`set_timeout`](Self::set_timeout).
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Server side: when the caller stops waiting (from `grpc-timeout`).
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// Server side: the caller's address.
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.remote_addr
    }

    pub(crate) fn from_parts(
        message: T,
        metadata: HeaderMap,
        deadline: Option<Instant>,
        remote_addr: Option<SocketAddr>,
    ) -> Self {
        Self {
            message,
            metadata,
            timeout: None,
            deadline,
            remote_addr,
        }
    }

    /// Replaces the message, keeping the metadata.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Request<U> {
        Request {
            message: f(self.message),
            metadata: self.metadata,
            timeout: self.timeout,
            deadline: self.deadline,
            remote_addr: self.remote_addr,
        }
    }
}

/// A response: the message (or stream of messages) and metadata for the response headers.
#[derive(Debug)]
pub struct Response<T> {
    message: T,
    metadata: HeaderMap,
}

impl<T> Response<T> {
    /// A response with no metadata.
    pub fn new(message: T) -> Self {
        Self {
            message,
            metadata: HeaderMap::new(),
        }
    }

    /// A response with metadata.
    pub fn from_parts(metadata: HeaderMap, message: T) -> Self {
        Self { message, metadata }
    }

    /// The message.
    pub fn get_ref(&self) -> &T {
        &self.message
    }

    /// The message, mutable.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.message
    }

    /// Takes the message.
    pub fn into_inner(self) -> T {
        self.message
    }

    /// Splits into metadata and message.
    pub fn into_parts(self) -> (HeaderMap, T) {
        (self.metadata, self.message)
    }

    /// Response metadata: sent as response headers by a server; on the client, the response
    /// headers and trailers received.
    pub fn metadata(&self) -> &HeaderMap {
        &self.metadata
    }

    /// Response metadata, mutable.
    pub fn metadata_mut(&mut self) -> &mut HeaderMap {
        &mut self.metadata
    }
}

/// Anything a generated client method accepts as a unary request: a message or a
/// [`Request`] around one.
pub trait IntoRequest<T> {
    /// Wraps into a request.
    fn into_request(self) -> Request<T>;
}

impl<T> IntoRequest<T> for T {
    fn into_request(self) -> Request<T> {
        Request::new(self)
    }
}

impl<T> IntoRequest<T> for Request<T> {
    fn into_request(self) -> Request<T> {
        self
    }
}

/// Anything a generated client method accepts as a streaming request: a stream of messages or
/// a [`Request`] around one.
pub trait IntoStreamingRequest {
    /// The stream.
    type Stream: Stream<Item = Self::Message> + Send + 'static;
    /// The message type.
    type Message;
    /// Wraps into a request.
    fn into_streaming_request(self) -> Request<Self::Stream>;
}

impl<S> IntoStreamingRequest for S
where
    S: Stream + Send + 'static,
{
    type Stream = S;
    type Message = S::Item;
    fn into_streaming_request(self) -> Request<S> {
        Request::new(self)
    }
}

impl<S> IntoStreamingRequest for Request<S>
where
    S: Stream + Send + 'static,
{
    type Stream = S;
    type Message = S::Item;
    fn into_streaming_request(self) -> Request<S> {
        self
    }
}
