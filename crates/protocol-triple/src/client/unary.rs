//! [`TripleClient`] and unary calls.

use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use h2::client::ResponseFuture;
use http::{HeaderMap, HeaderValue, Method};

use super::channel::TripleChannel;
use crate::codec::{decode_prost, encode_prost};
use crate::compression::{Encoding, ACCEPT_ENCODING};
use crate::flow_control::{send_all, InboundMessages, SendWait};
use crate::frame::encode_frame;
use crate::headers::{
    format_grpc_timeout, CONTENT_TYPE_GRPC_PROTO, GRPC_ACCEPT_ENCODING, GRPC_ENCODING,
    GRPC_TIMEOUT, TE, TRI_CONSUMER_APPNAME, TRI_SERVICE_GROUP, TRI_SERVICE_VERSION,
};
use crate::message::{Request, Response};
use crate::status::{Code, Status};

/// Issues calls of any kind over a [`TripleChannel`]; generated stubs and the interface-mode
/// invoker are built on it. Cloning is cheap.
#[derive(Debug, Clone)]
pub struct TripleClient {
    pub(crate) channel: TripleChannel,
    pub(crate) default_headers: HeaderMap,
    pub(crate) default_timeout: Option<Duration>,
    pub(crate) send_encoding: Encoding,
}

/// A unary response at the byte level: headers, the one payload, and the trailers.
#[derive(Debug)]
pub struct RawResponse {
    /// Response headers.
    pub headers: HeaderMap,
    /// The response payload (decompressed).
    pub payload: Bytes,
    /// Trailers.
    pub trailers: HeaderMap,
}

impl TripleClient {
    /// A client on `channel`.
    pub fn new(channel: TripleChannel) -> Self {
        let send_encoding = channel.config().send_encoding;
        Self {
            channel,
            default_headers: HeaderMap::new(),
            default_timeout: None,
            send_encoding,
        }
    }

    /// The channel.
    pub fn channel(&self) -> &TripleChannel {
        &self.channel
    }

    /// Sends `tri-service-version` on every call.
    pub fn with_version(mut self, version: &str) -> Self {
        self.set_header(TRI_SERVICE_VERSION, version);
        self
    }

    /// Sends `tri-service-group` on every call.
    pub fn with_group(mut self, group: &str) -> Self {
        self.set_header(TRI_SERVICE_GROUP, group);
        self
    }

    /// Sends `tri-consumer-appname` on every call.
    pub fn with_application(mut self, app: &str) -> Self {
        self.set_header(TRI_CONSUMER_APPNAME, app);
        self
    }

    /// Applies `timeout` to every call that sets none.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = Some(timeout);
        self
    }

    /// Compresses request messages with `encoding`.
    pub fn with_send_encoding(mut self, encoding: Encoding) -> Self {
        self.send_encoding = encoding;
        self
    }

    fn set_header(&mut self, name: &'static str, value: &str) {
        if value.is_empty() {
            return;
        }
        if let Ok(v) = HeaderValue::from_str(value) {
            self.default_headers.insert(name, v);
        }
    }

    /// Builds the request headers of a call to `path` (`/service/method`).
    pub(crate) fn build_request(
        &self,
        path: &str,
        metadata: &HeaderMap,
        timeout: Option<Duration>,
    ) -> Result<http::Request<()>, Status> {
        let uri = http::Uri::builder()
            .scheme(if self.channel.config().client_tls.is_some() {
                "https"
            } else {
                "http"
            })
            .authority(self.channel.addr())
            .path_and_query(path)
            .build()
            .map_err(|e| Status::internal(format!("bad request path {path:?}: {e}")))?;
        let mut req = http::Request::new(());
        *req.method_mut() = Method::POST;
        *req.uri_mut() = uri;
        let h = req.headers_mut();
        h.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static(CONTENT_TYPE_GRPC_PROTO),
        );
        h.insert(TE, HeaderValue::from_static("trailers"));
        h.insert(
            http::header::USER_AGENT,
            HeaderValue::from_static(concat!("dubbo-rs/", env!("CARGO_PKG_VERSION"))),
        );
        h.insert(
            GRPC_ACCEPT_ENCODING,
            HeaderValue::from_static(ACCEPT_ENCODING),
        );
        if self.send_encoding.is_compressed() {
            h.insert(
                GRPC_ENCODING,
                HeaderValue::from_static(self.send_encoding.name()),
            );
        }
        if let Some(t) = timeout {
            if let Ok(v) = HeaderValue::from_str(&format_grpc_timeout(t)) {
                h.insert(GRPC_TIMEOUT, v);
            }
        }
        for (k, v) in self.default_headers.iter() {
            h.insert(k.clone(), v.clone());
        }
        for (k, v) in metadata.iter() {
            h.append(k.clone(), v.clone());
        }
        Ok(req)
    }

    /// Frames (and maybe compresses) one payload.
    pub(crate) fn frame(&self, payload: &[u8]) -> Result<Bytes, Status> {
        let mut out = BytesMut::new();
        if self.send_encoding.is_compressed() {
            let z = self.send_encoding.compress(payload)?;
            encode_frame(true, &z, &mut out);
        } else {
            encode_frame(false, payload, &mut out);
        }
        Ok(out.freeze())
    }

    pub(crate) fn effective_timeout(&self, t: Option<Duration>) -> Option<Duration> {
        t.or(self.default_timeout)
    }

    /// A unary call of `path` with a protobuf message.
    pub async fn unary<Req, Resp>(
        &self,
        path: &str,
        request: Request<Req>,
    ) -> Result<Response<Resp>, Status>
    where
        Req: prost::Message,
        Resp: prost::Message + Default,
    {
        let timeout = self.effective_timeout(request.timeout());
        let payload = encode_prost(request.get_ref());
        let raw = self
            .unary_raw(path, request.metadata(), payload, timeout)
            .await?;
        let message = decode_prost::<Resp>(raw.payload)?;
        let mut md = raw.headers;
        for (k, v) in raw.trailers.iter() {
            md.append(k.clone(), v.clone());
        }
        Ok(Response::from_parts(md, message))
    }

    /// A unary call at the byte level: sends one payload, returns the one payload of the
    /// response. The caller's deadline (`timeout`) covers the whole call and is sent as
    /// `grpc-timeout`; a peer window that stays closed fails the send with
    /// `RESOURCE_EXHAUSTED` after the configured bounded wait.
    pub async fn unary_raw(
        &self,
        path: &str,
        metadata: &HeaderMap,
        payload: Bytes,
        timeout: Option<Duration>,
    ) -> Result<RawResponse, Status> {
        let call = self.unary_raw_inner(path, metadata, payload, timeout);
        match timeout {
            Some(t) => tokio::time::timeout(t, call).await.unwrap_or_else(|_| {
                Err(Status::deadline_exceeded(format!(
                    "call to {path} timed out after {t:?}"
                )))
            }),
            None => call.await,
        }
    }

    async fn unary_raw_inner(
        &self,
        path: &str,
        metadata: &HeaderMap,
        payload: Bytes,
        timeout: Option<Duration>,
    ) -> Result<RawResponse, Status> {
        let req = self.build_request(path, metadata, timeout)?;
        let (response, mut send) = self.channel.start(req).await?;
        let framed = self.frame(&payload)?;
        let wait = SendWait::Bounded(self.channel.config().unary_send_window_timeout);
        if let Err(e) = send_all(&mut send, framed, true, wait).await {
            if e.code() == Code::ResourceExhausted {
                send.send_reset(h2::Reason::CANCEL);
            }
            return Err(e);
        }
        let (headers, mut inbound) = self.await_headers(response).await?;
        let first = match inbound.message().await {
            Some(r) => r?,
            None => {
                let trailers = read_trailers(&mut inbound).await?;
                let status = status_from_trailers(&trailers);
                if !status.is_ok() {
                    return Err(status);
                }
                return Err(Status::internal("response had no message"));
            }
        };
        if let Some(extra) = inbound.message().await {
            extra?;
            return Err(Status::internal("unary response had more than one message"));
        }
        let trailers = read_trailers(&mut inbound).await?;
        let status = status_from_trailers(&trailers);
        if !status.is_ok() {
            return Err(status);
        }
        Ok(RawResponse {
            headers,
            payload: first,
            trailers,
        })
    }

    /// Waits for the response headers; a trailers-only response or a non-gRPC answer becomes
    /// the matching error.
    pub(crate) async fn await_headers(
        &self,
        response: ResponseFuture,
    ) -> Result<(HeaderMap, InboundMessages), Status> {
        let resp = response.await.map_err(|e| Status::from_h2_error(&e))?;
        let (parts, body) = resp.into_parts();
        let trailers_only = body.is_end_stream();
        if let Some(status) = Status::from_header_map(&parts.headers) {
            if trailers_only || !status.is_ok() {
                if status.is_ok() {
                    return Err(Status::internal("response had no message"));
                }
                return Err(status);
            }
        }
        if parts.status != http::StatusCode::OK {
            return Err(Status::new(
                Code::from_http_status(parts.status.as_u16()),
                format!("HTTP status {} from server", parts.status),
            ));
        }
        let ct = parts
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !ct.starts_with("application/grpc") {
            return Err(Status::unknown(format!(
                "unexpected response content-type {ct:?}"
            )));
        }
        let encoding = match parts.headers.get(GRPC_ENCODING) {
            None => Encoding::Identity,
            Some(v) => v
                .to_str()
                .ok()
                .and_then(Encoding::from_name)
                .ok_or_else(|| Status::internal("response uses an unsupported grpc-encoding"))?,
        };
        let inbound = InboundMessages::new(body, encoding, self.channel.config().max_message_size);
        Ok((parts.headers, inbound))
    }

    pub(crate) fn deadline_of(timeout: Option<Duration>) -> Option<Instant> {
        timeout.map(|t| Instant::now() + t)
    }
}

pub(crate) async fn read_trailers(inbound: &mut InboundMessages) -> Result<HeaderMap, Status> {
    let t = std::future::poll_fn(|cx| inbound.poll_trailers(cx)).await?;
    Ok(t.unwrap_or_default())
}

pub(crate) fn status_from_trailers(trailers: &HeaderMap) -> Status {
    Status::from_header_map(trailers)
        .unwrap_or_else(|| Status::internal("response ended without grpc-status"))
}
