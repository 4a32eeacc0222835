//! Calls of interface-mode streaming methods (Java methods that take or return a
//! `StreamObserver`): each message a Hessian 2 wrapper, as Java Dubbo 3.3 sends them (see
//! [`wrapper_stream`](crate::wrapper_stream) for what rides in the wrappers).
//!
//! A stream's deadline is the request's timeout when it sets one, else the client's default;
//! a stream lasts as long as the application reads it otherwise. Dropping the response stream
//! cancels the call (`RST_STREAM CANCEL`), which Java's provider sees as a cancelled call.

use bytes::Bytes;
use futures::{Stream, StreamExt};
use serde::de::DeserializeOwned;
use serde::Serialize;

use dubbo_hessian2::java::JavaType;

use super::unary::TripleClient;
use crate::message::{Request, Response};
use crate::status::Status;
use crate::streaming::Streaming;
use crate::wrapper_stream::{boxed_java_type, decode_response, encode_request, STREAM_OBSERVER};

impl TripleClient {
    /// Calls Java `void method(Req, StreamObserver<Resp>)` at `path`
    /// (`/{interface}/{method}`): one request value, the responses as they come.
    pub async fn interface_server_streaming<Req, Resp>(
        &self,
        path: &str,
        request: Request<Req>,
    ) -> Result<Response<Streaming<Resp>>, Status>
    where
        Req: Serialize + JavaType,
        Resp: DeserializeOwned + 'static,
    {
        let timeout = self.effective_timeout(request.timeout());
        let req_type = Req::java_type_name();
        let payload = encode_request(request.get_ref(), &[&req_type, STREAM_OBSERVER])?;
        let (headers, stream) = self
            .server_streaming_raw(path, request.metadata(), payload, timeout)
            .await?
            .into_parts();
        Ok(Response::from_parts(
            headers,
            stream.decode_with(decode_response::<Resp>),
        ))
    }

    /// Calls Java `StreamObserver<Req> method(StreamObserver<Resp>)` at `path` with the
    /// request values of `request`'s stream: the responses as they come.
    pub async fn interface_bidi_streaming<S, Req, Resp>(
        &self,
        path: &str,
        request: Request<S>,
    ) -> Result<Response<Streaming<Resp>>, Status>
    where
        S: Stream<Item = Req> + Send + 'static,
        Req: Serialize + JavaType + Send + 'static,
        Resp: DeserializeOwned + 'static,
    {
        let timeout = self.effective_timeout(request.timeout());
        let metadata = request.metadata().clone();
        let payloads = request_payloads(request.into_inner());
        let (headers, stream) = self
            .bidi_streaming_raw(path, &metadata, payloads, timeout)
            .await?
            .into_parts();
        Ok(Response::from_parts(
            headers,
            stream.decode_with(decode_response::<Resp>),
        ))
    }

    /// Calls a Java client stream (declared as `StreamObserver<Req> method(StreamObserver<Resp>)`,
    /// answered once) at `path`: the one response.
    pub async fn interface_client_streaming<S, Req, Resp>(
        &self,
        path: &str,
        request: Request<S>,
    ) -> Result<Response<Resp>, Status>
    where
        S: Stream<Item = Req> + Send + 'static,
        Req: Serialize + JavaType + Send + 'static,
        Resp: DeserializeOwned + 'static,
    {
        let timeout = self.effective_timeout(request.timeout());
        let metadata = request.metadata().clone();
        let payloads = request_payloads(request.into_inner());
        let raw = self
            .client_streaming_raw(path, &metadata, payloads, timeout)
            .await?;
        let mut headers = raw.headers;
        for (k, v) in raw.trailers.iter() {
            headers.append(k.clone(), v.clone());
        }
        Ok(Response::from_parts(
            headers,
            decode_response::<Resp>(raw.payload)?,
        ))
    }
}

/// Each request value as its wrapper; a value that cannot be encoded ends the request stream
/// (the provider then sees it end early) and is logged.
pub(crate) fn request_payloads<S, Req>(requests: S) -> impl Stream<Item = Bytes> + Send + 'static
where
    S: Stream<Item = Req> + Send + 'static,
    Req: Serialize + JavaType + Send + 'static,
{
    let req_type = boxed_java_type(&Req::java_type_name()).to_owned();
    requests
        .map(move |r| encode_request(&r, &[&req_type]))
        .take_while(|r| {
            if let Err(e) = r {
                tracing::warn!("request message not sent: {e}");
            }
            futures::future::ready(r.is_ok())
        })
        .filter_map(|r| futures::future::ready(r.ok()))
}
