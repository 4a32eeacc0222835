//! [`IdlCall`]: the mark a generated IDL client puts in an invocation's context, so that the
//! Triple invoker sends the call as protobuf on `/{service}/{method}` instead of in wrapper mode.

use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use futures::Stream;

use crate::message::Response;
use crate::server::MethodKind;
use crate::streaming::Streaming;

/// The request payloads (encoded protobuf messages) of a client- or bidi-streaming call.
pub type RequestPayloads = Pin<Box<dyn Stream<Item = Bytes> + Send + 'static>>;

/// Stored in an [`Invocation`](dubbo_core::Invocation)'s
/// [`CallContext`](dubbo_core::CallContext) by a client generated with `dubbo-build` when it
/// calls through an invoker. It tells [`TripleInvoker`](crate::TripleInvoker) that the single
/// argument (when there is one) is the encoded request message and that the result is to be the
/// encoded response message, `Value::Binary`.
///
/// Streams cannot travel as arguments or results, so a streaming call carries them in
/// [`IdlStreams`], shared between the client (which keeps a handle) and the invoker (which
/// takes the request payloads and leaves the response stream): the call still passes the
/// invoker chain once.
#[derive(Debug, Clone)]
pub struct IdlCall {
    kind: MethodKind,
    streams: Option<Arc<IdlStreams>>,
}

impl IdlCall {
    /// A unary call.
    pub fn unary() -> Self {
        Self {
            kind: MethodKind::Unary,
            streams: None,
        }
    }

    /// A call of `kind` whose streams travel in `streams`.
    pub fn streaming(kind: MethodKind, streams: Arc<IdlStreams>) -> Self {
        Self {
            kind,
            streams: Some(streams),
        }
    }

    /// The kind of call.
    pub fn kind(&self) -> MethodKind {
        self.kind
    }

    /// The streams of a streaming call.
    pub fn streams(&self) -> Option<&Arc<IdlStreams>> {
        self.streams.as_ref()
    }
}

/// The streams of one streaming IDL call: the request payloads going to the invoker, and the
/// response stream coming back from it.
#[derive(Default)]
pub struct IdlStreams {
    requests: Mutex<Option<RequestPayloads>>,
    responses: Mutex<Option<Response<Streaming<Bytes>>>>,
}

impl std::fmt::Debug for IdlStreams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdlStreams")
            .field("requests", &lock(&self.requests).is_some())
            .field("responses", &lock(&self.responses).is_some())
            .finish()
    }
}

impl IdlStreams {
    /// Streams for a call that sends `requests` (client or bidi streaming).
    pub fn with_requests(requests: RequestPayloads) -> Self {
        Self {
            requests: Mutex::new(Some(requests)),
            responses: Mutex::new(None),
        }
    }

    /// Takes the request payloads; `None` when there are none or they were taken already.
    pub fn take_requests(&self) -> Option<RequestPayloads> {
        lock(&self.requests).take()
    }

    /// Leaves the response stream (with the response headers) for the client.
    pub fn put_responses(&self, responses: Response<Streaming<Bytes>>) {
        *lock(&self.responses) = Some(responses);
    }

    /// Takes the response stream; `None` when the invoker left none.
    pub fn take_responses(&self) -> Option<Response<Streaming<Bytes>>> {
        lock(&self.responses).take()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Only an `Option` is guarded and every writer leaves it whole.
    m.lock().unwrap_or_else(|p| p.into_inner())
}
