//! Streaming calls: client streaming, server streaming and bidirectional.
//!
//! Request messages are pulled from the caller's stream only when the previous one has been
//! handed to HTTP/2 within the peer's window: a fast producer is held back by the server's
//! flow control instead of piling messages up in memory.

use bytes::Bytes;
use futures::{Stream, StreamExt};
use h2::SendStream;

use super::unary::{read_trailers, status_from_trailers, TripleClient};
use crate::codec::{decode_prost, encode_prost};
use crate::flow_control::{end_stream, send_all, SendWait};
use crate::message::{Request, Response};
use crate::status::Status;
use crate::streaming::{AbortOnDrop, Streaming};

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
        let deadline = Self::deadline_of(timeout);
        let start = async {
            let req = self.build_request(path, request.metadata(), timeout)?;
            let (response, mut send) = self.channel.start(req).await?;
            let framed = self.frame(&encode_prost(request.get_ref()))?;
            let wait = SendWait::Bounded(self.channel.config().unary_send_window_timeout);
            send_all(&mut send, framed, true, wait).await?;
            self.await_headers(response).await
        };
        let (headers, inbound) = with_timeout(timeout, path, start).await?;
        let stream = Streaming::new_response(inbound, decode_prost::<Resp>, deadline, Vec::new());
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
        let call = async {
            let req = self.build_request(path, request.metadata(), timeout)?;
            let (response, send) = self.channel.start(req).await?;
            let sender = AbortOnDrop(tokio::spawn(pump_requests(
                self.clone(),
                send,
                request.into_inner(),
            )));
            let (mut headers, mut inbound) = self.await_headers(response).await?;
            let message = match inbound.message().await {
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
            for (k, v) in trailers.iter() {
                headers.append(k.clone(), v.clone());
            }
            Ok(Response::from_parts(
                headers,
                decode_prost::<Resp>(message)?,
            ))
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
        let deadline = Self::deadline_of(timeout);
        let start = async {
            let req = self.build_request(path, request.metadata(), timeout)?;
            let (response, send) = self.channel.start(req).await?;
            let sender = AbortOnDrop(tokio::spawn(pump_requests(
                self.clone(),
                send,
                request.into_inner(),
            )));
            let (headers, inbound) = self.await_headers(response).await?;
            Ok((headers, inbound, sender))
        };
        let (headers, inbound, sender) = with_timeout(timeout, path, start).await?;
        let stream = Streaming::new_response(inbound, decode_prost::<Resp>, deadline, vec![sender]);
        Ok(Response::from_parts(headers, stream))
    }
}

async fn with_timeout<T>(
    timeout: Option<std::time::Duration>,
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

/// Sends each message of `messages` as the peer's window allows, then ends the stream.
async fn pump_requests<S, Req>(client: TripleClient, mut send: SendStream<Bytes>, messages: S)
where
    S: Stream<Item = Req> + Send + 'static,
    Req: prost::Message,
{
    let mut messages = std::pin::pin!(messages);
    while let Some(m) = messages.next().await {
        let framed = match client.frame(&encode_prost(&m)) {
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
