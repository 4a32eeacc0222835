//! The IDL mode of [`TripleInvoker`](crate::TripleInvoker): an invocation marked with
//! [`IdlCall`] sent as a plain gRPC call of protobuf payloads.

use std::time::Duration;

use bytes::Bytes;
use dubbo_core::{
    Attachments, ErrorCode, Invocation, Payload, RpcError, RpcResponse, RpcResult, Value,
};
use http::HeaderMap;

use super::idl_call::{IdlCall, IdlStreams, RequestPayloads};
use super::unary::TripleClient;
use crate::headers::core_attachments;
use crate::server::MethodKind;

/// Sends `inv` as the IDL call `call` describes, with `headers` as request metadata.
pub(crate) async fn send_idl(
    client: &TripleClient,
    mut inv: Invocation,
    call: IdlCall,
    headers: HeaderMap,
    timeout: Option<Duration>,
) -> RpcResult {
    let path = format!("/{}/{}", inv.service().interface(), inv.method_name());
    match call.kind() {
        MethodKind::Unary => {
            let raw = client
                .unary_raw(&path, &headers, request_payload(&mut inv)?, timeout)
                .await?;
            Ok(response(
                Value::Binary(Vec::from(raw.payload)),
                &raw.headers,
                &raw.trailers,
            ))
        }
        MethodKind::ServerStreaming => {
            let streams = streams_of(&call)?;
            let resp = client
                .server_streaming_raw(&path, &headers, request_payload(&mut inv)?, timeout)
                .await?;
            let out = response(Value::Null, resp.metadata(), &HeaderMap::new());
            streams.put_responses(resp);
            Ok(out)
        }
        MethodKind::ClientStreaming => {
            let requests = request_payloads(streams_of(&call)?)?;
            let raw = client
                .client_streaming_raw(&path, &headers, requests, timeout)
                .await?;
            Ok(response(
                Value::Binary(Vec::from(raw.payload)),
                &raw.headers,
                &raw.trailers,
            ))
        }
        MethodKind::BidiStreaming => {
            let streams = streams_of(&call)?;
            let requests = request_payloads(streams)?;
            let resp = client
                .bidi_streaming_raw(&path, &headers, requests, timeout)
                .await?;
            let out = response(Value::Null, resp.metadata(), &HeaderMap::new());
            streams.put_responses(resp);
            Ok(out)
        }
    }
}

/// The encoded request message: the invocation's one `Value::Binary` argument.
fn request_payload(inv: &mut Invocation) -> Result<Bytes, RpcError> {
    // Taken rather than copied: the invocation is not used after it is sent.
    if let [Payload::Value(Value::Binary(b))] = inv.args_mut().as_mut_slice() {
        return Ok(Bytes::from(std::mem::take(b)));
    }
    Err(RpcError::framework(
        ErrorCode::BadRequest,
        format!(
            "IDL call {}.{} needs one binary argument (the encoded request), got {} arguments",
            inv.service(),
            inv.method_name(),
            inv.args().len()
        ),
    ))
}

fn streams_of(call: &IdlCall) -> Result<&IdlStreams, RpcError> {
    call.streams().map(|s| &**s).ok_or_else(|| {
        RpcError::framework(
            ErrorCode::BadRequest,
            "streaming IDL call without its streams",
        )
    })
}

fn request_payloads(streams: &IdlStreams) -> Result<RequestPayloads, RpcError> {
    streams.take_requests().ok_or_else(|| {
        RpcError::framework(
            ErrorCode::BadRequest,
            "the request stream of this IDL call was already taken (sent twice?)",
        )
    })
}

fn response(value: Value, headers: &HeaderMap, trailers: &HeaderMap) -> RpcResponse {
    let mut attachments = Attachments::new();
    core_attachments(headers, &mut attachments);
    core_attachments(trailers, &mut attachments);
    RpcResponse {
        value: Payload::Value(value),
        attachments,
    }
}
