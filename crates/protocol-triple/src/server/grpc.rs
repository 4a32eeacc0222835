//! The gRPC side of the server: one HTTP/2 connection, many concurrent streams.

use std::future::poll_fn;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use bytes::{Bytes, BytesMut};
use dubbo_core::ConnectionAddrs;
use futures::{FutureExt, StreamExt};
use h2::server::SendResponse;
use h2::{RecvStream, SendStream};
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::watch;

use super::routing::{split_path, ServerCall, ServerReply};
use super::write_batch::{AcceptBurst, BatchedWrites, InFlight};
use super::ServerShared;
use crate::compression::{negotiate, Encoding, ACCEPT_ENCODING};
use crate::flow_control::{send_all, InboundMessages, SendWait};
use crate::frame::encode_frame;
use crate::headers::{
    name, parse_grpc_timeout, CONTENT_TYPE_GRPC, GRPC_ACCEPT_ENCODING, GRPC_ENCODING,
};
use crate::status::Status;

/// Serves one HTTP/2 connection until the peer closes it, a connection error occurs, or a
/// shutdown completes. On shutdown it starts h2's two-phase GOAWAY (GOAWAY with the maximum
/// stream id, a PING, then GOAWAY with the last processed id once the PING is acknowledged)
/// and keeps serving the streams already open until they finish.
pub(crate) async fn serve_h2<IO>(
    io: IO,
    shared: Arc<ServerShared>,
    remote: Option<SocketAddr>,
    local: Option<SocketAddr>,
    mut shutdown: watch::Receiver<bool>,
) where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let cfg = &shared.config;
    let mut builder = h2::server::Builder::new();
    builder
        .initial_window_size(cfg.initial_stream_window)
        .initial_connection_window_size(cfg.initial_connection_window)
        .max_frame_size(cfg.max_frame_size)
        .max_header_list_size(cfg.max_header_list_size)
        // Bounded queue of locally reset streams and of pending accepts, so a misbehaving
        // client cannot make the server buffer without bound.
        .max_concurrent_reset_streams(256)
        .max_send_buffer_size(cfg.max_frame_size as usize * 4);
    if let Some(n) = cfg.max_concurrent_streams {
        builder.max_concurrent_streams(n);
    }
    // Answers of streams that finish together leave in one write (write_batch.rs).
    let in_flight = InFlight::default();
    let io = BatchedWrites::new(io, in_flight.clone());
    let mut burst = AcceptBurst::default();
    let mut conn = match builder.handshake::<_, Bytes>(io).await {
        Ok(c) => c,
        Err(e) => {
            tracing::debug!(?remote, "HTTP/2 handshake failed: {e}");
            return;
        }
    };
    let addrs = Arc::new(ConnectionAddrs { remote, local });
    let mut shutting_down = *shutdown.borrow();
    if shutting_down {
        conn.graceful_shutdown();
    }
    loop {
        tokio::select! {
            accepted = conn.accept() => match accepted {
                Some(Ok((request, respond))) => {
                    let shared = shared.clone();
                    let addrs = addrs.clone();
                    let counted = in_flight.enter();
                    // Boxed: the stream's future is a few KiB (the gRPC and REST paths with
                    // their handlers' state), and the runtime moves a task's future several
                    // times while spawning and finishing it; a pointer moves cheaply (−7 % of a
                    // REST GET's instructions, docs/performance.md "The rest row").
                    let stream = Box::pin(handle_stream(request, respond, shared, addrs));
                    tokio::spawn(async move {
                        stream.await;
                        drop(counted);
                    });
                    if burst.accepted() {
                        // Let the streams accepted so far answer before reading the rest.
                        tokio::task::yield_now().await;
                    }
                }
                Some(Err(e)) => {
                    tracing::debug!(?remote, "HTTP/2 connection error: {e}");
                    break;
                }
                None => break,
            },
            changed = shutdown.changed(), if !shutting_down => {
                if changed.is_err() || *shutdown.borrow() {
                    shutting_down = true;
                    conn.graceful_shutdown();
                }
            }
        }
    }
}

fn grpc_response_headers(extra: HeaderMap, encoding: Encoding) -> http::Response<()> {
    let mut resp = http::Response::new(());
    *resp.status_mut() = StatusCode::OK;
    let h = resp.headers_mut();
    h.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(CONTENT_TYPE_GRPC),
    );
    h.insert(
        GRPC_ACCEPT_ENCODING,
        HeaderValue::from_static(ACCEPT_ENCODING),
    );
    if encoding.is_compressed() {
        h.insert(GRPC_ENCODING, HeaderValue::from_static(encoding.name()));
    }
    for (k, v) in extra.iter() {
        h.append(k.clone(), v.clone());
    }
    resp
}

/// Sends a trailers-only response: one HEADERS frame with the status, ending the stream.
fn respond_status(respond: &mut SendResponse<Bytes>, http_status: StatusCode, status: &Status) {
    let mut resp = http::Response::new(());
    *resp.status_mut() = http_status;
    let h = resp.headers_mut();
    h.insert(
        http::header::CONTENT_TYPE,
        HeaderValue::from_static(CONTENT_TYPE_GRPC),
    );
    h.insert(
        GRPC_ACCEPT_ENCODING,
        HeaderValue::from_static(ACCEPT_ENCODING),
    );
    status.add_to_headers(h);
    for (k, v) in status.metadata().iter() {
        h.append(k.clone(), v.clone());
    }
    if let Err(e) = respond.send_response(resp, true) {
        tracing::debug!("could not send status: {e}");
    }
}

async fn handle_stream(
    request: http::Request<RecvStream>,
    mut respond: SendResponse<Bytes>,
    shared: Arc<ServerShared>,
    addrs: Arc<ConnectionAddrs>,
) {
    let is_grpc = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/grpc"));
    if !is_grpc {
        // Not gRPC: a REST request (or the JSON form) on the same port, as on HTTP/1.1.
        super::rest::h2::serve(request, respond, shared, addrs).await;
        return;
    }
    let (parts, body) = request.into_parts();
    if parts.method != Method::POST {
        respond_status(
            &mut respond,
            StatusCode::METHOD_NOT_ALLOWED,
            &Status::unimplemented(format!(
                "method {} not allowed; gRPC needs POST",
                parts.method
            )),
        );
        return;
    }
    let content_type = parts
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !content_type.starts_with("application/grpc") {
        respond_status(
            &mut respond,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &Status::internal(format!("unsupported content-type {content_type:?}")),
        );
        return;
    }
    let path = parts.uri.path();
    let Some((service, method)) = split_path(path) else {
        respond_status(
            &mut respond,
            StatusCode::OK,
            &Status::unimplemented(format!("bad path {path:?}")),
        );
        return;
    };
    let (service, method) = (service.to_owned(), method.to_owned());
    let encoding = match parts.headers.get(name::GRPC_ENCODING) {
        None => Encoding::Identity,
        Some(v) => match v.to_str().ok().and_then(Encoding::from_name) {
            Some(e) => e,
            None => {
                respond_status(
                    &mut respond,
                    StatusCode::OK,
                    &Status::unimplemented(format!(
                        "grpc-encoding {:?} is not supported (accepted: {ACCEPT_ENCODING})",
                        String::from_utf8_lossy(v.as_bytes())
                    )),
                );
                return;
            }
        },
    };
    let deadline = parts
        .headers
        .get(name::GRPC_TIMEOUT)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_grpc_timeout)
        .map(|t| Instant::now() + t);
    let response_encoding = negotiate(
        shared.config.send_encoding,
        parts
            .headers
            .get(name::GRPC_ACCEPT_ENCODING)
            .and_then(|v| v.to_str().ok()),
    );
    let messages = InboundMessages::new(body, encoding, shared.config.max_message_size);
    let call = ServerCall {
        metadata: parts.headers,
        messages,
        remote_addr: addrs.remote,
        local_addr: addrs.local,
        connection: addrs,
        deadline,
        service,
        method,
        context: None,
    };

    let handler = shared.dispatch(call);
    let reply = {
        let reset = poll_fn(|cx| respond.poll_reset(cx));
        let run = async {
            match deadline {
                Some(d) => tokio::time::timeout_at(d.into(), handler)
                    .await
                    .unwrap_or_else(|_| {
                        Err(Status::deadline_exceeded(
                            "deadline exceeded (grpc-timeout)",
                        ))
                    }),
                None => handler.await,
            }
        };
        tokio::select! {
            r = run => Some(r),
            _ = reset => None,
        }
    };
    let reply = match reply {
        None => return, // the client cancelled; dropping the handler cancels it
        Some(Err(status)) => {
            respond_status(&mut respond, StatusCode::OK, &status);
            return;
        }
        Some(Ok(reply)) => reply,
    };
    let ServerReply {
        headers,
        messages,
        trailers,
    } = reply;
    let mut send =
        match respond.send_response(grpc_response_headers(headers, response_encoding), false) {
            Ok(s) => s,
            Err(e) => {
                tracing::debug!("could not send response headers: {e}");
                return;
            }
        };
    let pumped = {
        let pump = pump_messages(&mut send, messages, response_encoding);
        match deadline {
            Some(d) => tokio::time::timeout_at(d.into(), pump)
                .await
                .unwrap_or_else(|_| {
                    Err(PumpError::Handler(Status::deadline_exceeded(
                        "deadline exceeded (grpc-timeout)",
                    )))
                }),
            None => pump.await,
        }
    };
    let status = match pumped {
        Ok(()) => Status::ok(),
        Err(PumpError::Handler(s)) => s,
        Err(PumpError::Transport(s)) => {
            tracing::debug!("response stream failed: {s}");
            return;
        }
    };
    let mut t = trailers;
    status.add_to_headers(&mut t);
    if let Err(e) = send.send_trailers(t) {
        tracing::debug!("could not send trailers: {e}");
    }
}

enum PumpError {
    Handler(Status),
    Transport(Status),
}

impl From<Status> for PumpError {
    fn from(s: Status) -> Self {
        PumpError::Handler(s)
    }
}

async fn pump_messages(
    send: &mut SendStream<Bytes>,
    mut messages: futures::stream::BoxStream<'static, Result<Bytes, Status>>,
    encoding: Encoding,
) -> Result<(), PumpError> {
    loop {
        // Race the next message against a reset by the peer, so a cancelled call stops the
        // handler's stream promptly.
        let next = {
            let reset = poll_fn(|cx| send.poll_reset(cx));
            tokio::select! {
                m = messages.next() => m,
                _ = reset => return Err(PumpError::Transport(Status::cancelled("stream reset by the client"))),
            }
        };
        let payload = match next {
            None => return Ok(()),
            Some(Err(status)) => return Err(PumpError::Handler(status)),
            Some(Ok(p)) => p,
        };
        let mut framed = BytesMut::with_capacity(payload.len() + 5);
        frame_message(&payload, encoding, &mut framed)?;
        // Messages the handler has already produced go out together: one DATA frame and one
        // wake-up of the connection task per batch instead of per message.
        let mut end = None;
        while framed.len() < STREAM_BATCH_BYTES {
            match messages.next().now_or_never() {
                Some(Some(Ok(p))) => frame_message(&p, encoding, &mut framed)?,
                Some(Some(Err(status))) => {
                    end = Some(Err(PumpError::Handler(status)));
                    break;
                }
                Some(None) => {
                    end = Some(Ok(()));
                    break;
                }
                None => break,
            }
        }
        send_all(send, framed.freeze(), false, SendWait::Unbounded)
            .await
            .map_err(PumpError::Transport)?;
        if let Some(end) = end {
            return end;
        }
    }
}

/// A response stream's batch grows to about this many bytes before it is sent.
const STREAM_BATCH_BYTES: usize = 32 * 1024;

/// Appends one gRPC-framed message (compressed if the call negotiated it).
fn frame_message(payload: &[u8], encoding: Encoding, out: &mut BytesMut) -> Result<(), Status> {
    if encoding.is_compressed() {
        let z = encoding.compress(payload)?;
        encode_frame(true, &z, out);
    } else {
        encode_frame(false, payload, out);
    }
    Ok(())
}
