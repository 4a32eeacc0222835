//! Interface-mode streams through an invoker: what the client `#[dubbo_rs::service]` generates
//! for a trait's streaming methods calls, so that a stream goes through the reference's
//! filters and cluster like a unary call does.
//!
//! Each call is one [`Invocation`] marked with an [`IdlCall`] whose payloads are the Hessian 2
//! wrappers Java Dubbo 3.3 sends for a `StreamObserver` method (see
//! [`wrapper_stream`](crate::wrapper_stream)); a [`TripleInvoker`](crate::TripleInvoker) at the
//! end of the chain sends it. Dropping the returned response stream cancels the call.

use std::sync::Arc;

use dubbo_core::{ErrorCode, Invocation, Invoker, Payload, RpcError, RpcResponse, SentOnce, Value};
use serde::de::DeserializeOwned;
use serde::Serialize;

use dubbo_hessian2::java::JavaType;
/// The request streams of client and bidirectional streams are `futures` streams.
pub use futures::Stream;

use super::idl_call::{IdlCall, IdlStreams};
use super::interface_stream::request_payloads;
use crate::server::MethodKind;
use crate::streaming::Streaming;
use crate::wrapper_stream::{decode_response, encode_request, STREAM_OBSERVER};

/// Java `void method(Req, StreamObserver<Resp>)` called through `invoker` with `inv` (the
/// client's invocation of the method, with no arguments yet): the responses as they come.
pub async fn server_stream<Req, Resp>(
    invoker: &dyn Invoker,
    mut inv: Invocation,
    request: &Req,
) -> Result<Streaming<Resp>, RpcError>
where
    Req: Serialize + JavaType,
    Resp: DeserializeOwned + 'static,
{
    let payload = encode_request(request, &[&Req::java_type_name(), STREAM_OBSERVER])?;
    let streams = Arc::new(IdlStreams::default());
    inv.context_mut().insert(IdlCall::streaming(
        MethodKind::ServerStreaming,
        streams.clone(),
    ));
    inv.args_mut()
        .push(Payload::Value(Value::Binary(Vec::from(payload))));
    // A stream is sent once, as Java's consumer sends it (its errors reach the observer, never
    // the cluster's retries).
    inv.context_mut().insert(SentOnce);
    let method = inv.method_name().to_owned();
    send(invoker, inv).await?;
    response_stream(&streams, &method)
}

/// Java `StreamObserver<Req> method(StreamObserver<Resp>)` answered with a stream, called
/// through `invoker` with the values of `requests`: the responses as they come.
pub async fn bidi_stream<S, Req, Resp>(
    invoker: &dyn Invoker,
    inv: Invocation,
    requests: S,
) -> Result<Streaming<Resp>, RpcError>
where
    S: Stream<Item = Req> + Send + 'static,
    Req: Serialize + JavaType + Send + 'static,
    Resp: DeserializeOwned + 'static,
{
    let method = inv.method_name().to_owned();
    let (inv, streams) = with_requests(inv, requests, MethodKind::BidiStreaming);
    send(invoker, inv).await?;
    response_stream(&streams, &method)
}

/// Java `StreamObserver<Req> method(StreamObserver<Resp>)` answered once, called through
/// `invoker` with the values of `requests`: the one response.
pub async fn client_stream<S, Req, Resp>(
    invoker: &dyn Invoker,
    inv: Invocation,
    requests: S,
) -> Result<Resp, RpcError>
where
    S: Stream<Item = Req> + Send + 'static,
    Req: Serialize + JavaType + Send + 'static,
    Resp: DeserializeOwned + 'static,
{
    let method = inv.method_name().to_owned();
    let (inv, _streams) = with_requests(inv, requests, MethodKind::ClientStreaming);
    let response = send(invoker, inv).await?;
    match response.value {
        Payload::Value(Value::Binary(b)) => Ok(decode_response::<Resp>(b.into())?),
        other => Err(RpcError::framework(
            ErrorCode::Codec,
            format!(
                "client stream {method} answered with a {} payload instead of a response wrapper",
                other.form()
            ),
        )),
    }
}

/// Sends `inv` through `invoker`, unless the invoker is a dubbo:// reference, which cannot
/// stream (nor can Java's).
async fn send(invoker: &dyn Invoker, inv: Invocation) -> Result<RpcResponse, RpcError> {
    if invoker.url().protocol() == Some("dubbo") {
        return Err(RpcError::framework(
            ErrorCode::BadRequest,
            format!(
                "{}.{} streams, and streams go over tri:// only; this reference is dubbo://",
                inv.service().interface(),
                inv.method_name()
            ),
        ));
    }
    invoker.invoke(inv).await
}

/// `inv` marked as a `kind` call whose request payloads are the wrappers of `requests`.
fn with_requests<S, Req>(
    mut inv: Invocation,
    requests: S,
    kind: MethodKind,
) -> (Invocation, Arc<IdlStreams>)
where
    S: Stream<Item = Req> + Send + 'static,
    Req: Serialize + JavaType + Send + 'static,
{
    let payloads = request_payloads(requests);
    let streams = Arc::new(IdlStreams::with_requests(Box::pin(payloads)));
    inv.context_mut()
        .insert(IdlCall::streaming(kind, streams.clone()));
    // The first attempt takes the request stream: there is nothing to send again (nor does
    // Java's consumer send a stream twice).
    inv.context_mut().insert(SentOnce);
    (inv, streams)
}

/// The response stream the invoker left in `streams`.
fn response_stream<Resp>(streams: &IdlStreams, method: &str) -> Result<Streaming<Resp>, RpcError>
where
    Resp: DeserializeOwned + 'static,
{
    let response = streams.take_responses().ok_or_else(|| {
        RpcError::framework(
            ErrorCode::BadRequest,
            format!(
                "stream {method} returned without a response stream (it is sent over tri:// only, \
                 or a filter answered it)"
            ),
        )
    })?;
    Ok(response.into_inner().decode_with(decode_response::<Resp>))
}
