//! Streaming calls: client streaming, server streaming and bidirectional.
//!
//! Request messages are pulled from the caller's stream only when the previous one has been
//! handed to HTTP/2 within the peer's window: a fast producer is held back by the server's
//! flow control instead of piling messages up in memory.
//!
//! Each kind exists at the byte level (`*_raw`: payloads in, payloads out), which the IDL mode
//! of the invoker uses, and typed over protobuf messages, which encodes and decodes around it.

use std::time::Duration;

use bytes::Bytes;
use futures::{Stream, StreamExt};
use h2::SendStream;
use http::HeaderMap;

use super::unary::{read_trailers, status_from_trailers, RawResponse, TripleClient};
use crate::codec::{decode_prost, encode_prost};
use crate::flow_control::{end_stream, send_all, SendWait};
use crate::message::{Request, Response};
use crate::status::Status;
use crate::streaming::{decode_raw, AbortOnDrop, Streaming};

impl TripleClient {
    /// A server-streaming call: one request, a stream of responses.
    pub async fn server_streaming<Req, Resp>(
        &self,
        path: &str,
        request: Request<Req>,
    ) -> Result<Response<Streaming<Resp>>, Status>
    where
        Req: prost::Message,
        Resp: prost::Message + Default + 'static,
    {
        let timeout = self.effective_timeout(request.timeout());
        let payload = encode_prost(request.get_ref());
        let (headers, stream) = self
            .server_streaming_raw(path, request.metadata(), payload, timeout)
            .await?
            .into_parts();
        Ok(Response::from_parts(headers, stream.decode_as::<Resp>()))
    }

    /// A server-streaming call at the byte level: one payload, a stream of payloads. The
    /// deadline (`timeout`) covers the whole stream.
    pub async fn server_streaming_raw(
        &self,
        path: &str,
        metadata: &HeaderMap,
        payload: Bytes,
        timeout: Option<Duration>,
    ) -> Result<Response<Streaming<Bytes>>, Status> {
        let deadline = Self::deadline_of(timeout);
        let start = async {
            let req = self.build_request(path, metadata, timeout)?;
            let (response, mut send) = self.channel.start(req).await?;
            let framed = self.frame(&payload)?;
            let wait = SendWait::Bounded(self.channel.config().unary_send_window_timeout);
            send_all(&mut send, framed, true, wait).await?;
            self.await_headers(response).await
        };
        let (headers, inbound) = with_timeout(timeout, path, start).await?;
        let stream = Streaming::new_response(inbound, decode_raw, deadline, Vec::new());
        Ok(Response::from_parts(headers, stream))
    }

    /// A client-streaming call: a stream of requests, one response.
    pub async fn client_streaming<S, Req, Resp>(
        &self,
        path: &str,
        request: Request<S>,
    ) -> Result<Response<Resp>, Status>
    where
        S: Stream<Item = Req> + Send + 'static,
        Req: prost::Message + 'static,
        Resp: prost::Message + Default + 'static,
    {
        let timeout = self.effective_timeout(request.timeout());
        let metadata = request.metadata().clone();
        let payloads = request.into_inner().map(|m| encode_prost(&m));
        let raw = self
            .client_streaming_raw(path, &metadata, payloads, timeout)
            .await?;
        let mut headers = raw.headers;
        for (k, v) in raw.trailers.iter() {
            headers.append(k.clone(), v.clone());
        }
        Ok(Response::from_parts(
            headers,
            decode_prost::<Resp>(raw.payload)?,
        ))
    }

    /// A client-streaming call at the byte level: a stream of payloads, one payload back. The
    /// deadline (`timeout`) covers the whole call.
    pub async fn client_streaming_raw<S>(
        &self,
        path: &str,
        metadata: &HeaderMap,
        payloads: S,
        timeout: Option<Duration>,
    ) -> Result<RawResponse, Status>
    where
        S: Stream<Item = Bytes> + Send + 'static,
    {
        let call = async {
            let req = self.build_request(path, metadata, timeout)?;
            let (response, send) = self.channel.start(req).await?;
            let sender = AbortOnDrop(tokio::spawn(pump_requests(self.clone(), send, payloads)));
            let (headers, mut inbound) = self.await_headers(response).await?;
            let payload = match inbound.message().await {
                Some(m) => m?,
                None => {
                    let t = read_trailers(&mut inbound).await?;
                    let s = status_from_trailers(&t);
                    return Err(if s.is_ok() {
                        Status::internal("response had no message")
                    } else {
                        s
                    });
                }
            };
            let trailers = read_trailers(&mut inbound).await?;
            let status = status_from_trailers(&trailers);
            drop(sender);
            if !status.is_ok() {
                return Err(status);
            }
            Ok(RawResponse {
                headers,
                payload,
                trailers,
            })
        };
        with_timeout(timeout, path, call).await
    }

    /// A bidirectional-streaming call.
    pub async fn bidi_streaming<S, Req, Resp>(
        &self,
        path: &str,
        request: Request<S>,
    ) -> Result<Response<Streaming<Resp>>, Status>
    where
        S: Stream<Item = Req> + Send + 'static,
        Req: prost::Message + 'static,
        Resp: prost::Message + Default + 'static,
    {
        let timeout = self.effective_timeout(request.timeout());
        let metadata = request.metadata().clone();
        let payloads = request.into_inner().map(|m| encode_prost(&m));
        let (headers, stream) = self
            .bidi_streaming_raw(path, &metadata, payloads, timeout)
            .await?
            .into_parts();
        Ok(Response::from_parts(headers, stream.decode_as::<Resp>()))
    }

    /// A bidirectional-streaming call at the byte level. The deadline (`timeout`) covers the
    /// whole call.
    pub async fn bidi_streaming_raw<S>(
        &self,
        path: &str,
        metadata: &HeaderMap,
        payloads: S,
        timeout: Option<Duration>,
    ) -> Result<Response<Streaming<Bytes>>, Status>
    where
        S: Stream<Item = Bytes> + Send + 'static,
    {
        let deadline = Self::deadline_of(timeout);
        let start = async {
            let req = self.build_request(path, metadata, timeout)?;
            let (response, send) = self.channel.start(req).await?;
            let sender = AbortOnDrop(tokio::spawn(pump_requests(self.clone(), send, payloads)));
            let (headers, inbound) = self.await_headers(response).await?;
            Ok((headers, inbound, sender))
        };
        let (headers, inbound, sender) = with_timeout(timeout, path, start).await?;
        let stream = Streaming::new_response(inbound, decode_raw, deadline, vec![sender]);
        Ok(Response::from_parts(headers, stream))
    }
}

async fn with_timeout<T>(
    timeout: Option<Duration>,
    path: &str,
    f: impl std::future::Future<Output = Result<T, Status>>,
) -> Result<T, Status> {
    match timeout {
        Some(t) => tokio::time::timeout(t, f).await.unwrap_or_else(|_| {
            Err(Status::deadline_exceeded(format!(
                "call to {path} timed out after {t:?}"
            )))
        }),
        None => f.await,
    }
}

/// Sends each payload of `payloads` as the peer's window allows, then ends the stream.
async fn pump_requests<S>(client: TripleClient, mut send: SendStream<Bytes>, payloads: S)
where
    S: Stream<Item = Bytes> + Send + 'static,
{
    let mut payloads = std::pin::pin!(payloads);
    while let Some(p) = payloads.next().await {
        let framed = match client.frame(&p) {
            Ok(f) => f,
            Err(e) => {
                tracing::debug!("request message not sent: {e}");
                send.send_reset(h2::Reason::INTERNAL_ERROR);
                return;
            }
        };
        if let Err(e) = send_all(&mut send, framed, false, SendWait::Unbounded).await {
            tracing::debug!("request stream ended early: {e}");
            return;
        }
    }
    if let Err(e) = end_stream(&mut send) {
        tracing::debug!("could not end request stream: {e}");
    }
}
