//! HTTP/2 flow control tied to the application, in both directions.
//!
//! **Inbound.** [`InboundMessages`] hands the peer's window back (`release_capacity`) only for
//! the bytes of a message the application has taken, not for what has merely arrived. A slow
//! consumer therefore stops the peer once the stream window (default 8 MiB) is full, and the
//! bytes held here never exceed that window. Bytes of a message the application is already
//! waiting for are released as they arrive, so one message larger than the window still gets
//! through (bounded by the maximum message size).
//!
//! **Outbound.** [`send_all`] reserves capacity and hands h2 only as many bytes as the peer's
//! window allows, waiting for WINDOW_UPDATEs in between: h2 never queues data beyond the window.
//! Callers choose the wait: streaming senders wait as long as the call lasts (their message
//! source is not polled meanwhile, so backpressure reaches the producer), unary senders give up
//! after a bounded wait with `RESOURCE_EXHAUSTED`, the Rust form of Java Triple's flow-control
//! exception. [`send_capacity`] exposes the current window, so a caller can see a zero window.

use std::future::poll_fn;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use h2::{RecvStream, SendStream};
use http::HeaderMap;

use crate::compression::Encoding;
use crate::frame::FrameDecoder;
use crate::status::{Code, Status};

/// The messages arriving on one HTTP/2 stream, decoded from gRPC frames and decompressed, with
/// capacity released as the application takes them.
pub struct InboundMessages {
    body: RecvStream,
    buf: BytesMut,
    released_in_buf: usize,
    decoder: FrameDecoder,
    encoding: Encoding,
    eos: bool,
    failed: bool,
    trailers: Option<HeaderMap>,
    trailers_read: bool,
}

impl std::fmt::Debug for InboundMessages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InboundMessages")
            .field("buffered", &self.buf.len())
            .field("eos", &self.eos)
            .finish()
    }
}

impl InboundMessages {
    /// Wraps a stream body whose messages use `encoding` and may be at most `max_message_size`
    /// bytes.
    pub fn new(body: RecvStream, encoding: Encoding, max_message_size: usize) -> Self {
        Self {
            body,
            buf: BytesMut::new(),
            released_in_buf: 0,
            decoder: FrameDecoder::new(max_message_size),
            encoding,
            eos: false,
            failed: false,
            trailers: None,
            trailers_read: false,
        }
    }

    /// Bytes received and held here, not yet taken by the application.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    fn release(&mut self, n: usize) {
        if n > 0 {
            if let Err(e) = self.body.flow_control().release_capacity(n) {
                tracing::debug!("release_capacity({n}) failed: {e}");
            }
        }
    }

    /// The next message, `None` at the end of the stream.
    pub fn poll_message(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Status>>> {
        if self.failed {
            return Poll::Ready(None);
        }
        loop {
            match self.decoder.decode(&mut self.buf) {
                Ok(Some(frame)) => {
                    let total = crate::frame::HEADER_LEN + frame.payload.len();
                    let to_release = total.saturating_sub(self.released_in_buf);
                    self.released_in_buf = self.released_in_buf.saturating_sub(total);
                    self.release(to_release);
                    let payload = if frame.compressed {
                        if !self.encoding.is_compressed() {
                            self.failed = true;
                            return Poll::Ready(Some(Err(Status::internal(
                                "compressed gRPC frame on a stream without grpc-encoding",
                            ))));
                        }
                        match self
                            .encoding
                            .decompress(frame.payload, self.decoder.max_message_size())
                        {
                            Ok(p) => p,
                            Err(e) => {
                                self.failed = true;
                                return Poll::Ready(Some(Err(e)));
                            }
                        }
                    } else {
                        frame.payload
                    };
                    return Poll::Ready(Some(Ok(payload)));
                }
                Ok(None) => {}
                Err(e) => {
                    self.failed = true;
                    return Poll::Ready(Some(Err(e.into())));
                }
            }
            if self.eos {
                if !self.buf.is_empty() {
                    self.failed = true;
                    return Poll::Ready(Some(Err(Status::internal(format!(
                        "stream ended inside a gRPC message ({} bytes left over)",
                        self.buf.len()
                    )))));
                }
                return Poll::Ready(None);
            }
            // Everything buffered belongs to the message the application is waiting for.
            let pending = self.buf.len() - self.released_in_buf;
            self.released_in_buf = self.buf.len();
            self.release(pending);
            match self.body.poll_data(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(chunk))) => {
                    if self.buf.is_empty() {
                        self.buf = BytesMut::from(&chunk[..]);
                    } else {
                        self.buf.extend_from_slice(&chunk);
                    }
                }
                Poll::Ready(Some(Err(e))) => {
                    self.failed = true;
                    return Poll::Ready(Some(Err(Status::from_h2_error(&e))));
                }
                Poll::Ready(None) => self.eos = true,
            }
        }
    }

    /// The next message.
    pub async fn message(&mut self) -> Option<Result<Bytes, Status>> {
        poll_fn(|cx| self.poll_message(cx)).await
    }

    /// The trailers, once every message has been read (`None` if the peer sent none).
    pub fn poll_trailers(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Option<HeaderMap>, Status>> {
        if self.trailers_read {
            return Poll::Ready(Ok(self.trailers.clone()));
        }
        match self.body.poll_trailers(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Ok(t)) => {
                self.trailers_read = true;
                self.trailers = t;
                Poll::Ready(Ok(self.trailers.clone()))
            }
            Poll::Ready(Err(e)) => {
                self.trailers_read = true;
                Poll::Ready(Err(Status::from_h2_error(&e)))
            }
        }
    }

    /// Whether the peer has ended the stream and every message has been taken.
    pub fn is_end(&self) -> bool {
        self.eos && self.buf.is_empty()
    }
}

/// The send window currently assigned to `stream`; zero means the peer's window is closed.
pub fn send_capacity(stream: &SendStream<Bytes>) -> usize {
    stream.capacity()
}

/// How long a sender may wait for the peer's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendWait {
    /// Wait as long as needed (streaming calls; the call's deadline still applies).
    Unbounded,
    /// Fail with `RESOURCE_EXHAUSTED` if the window stays closed this long (unary calls).
    Bounded(Duration),
}

/// Sends `data` on `stream`, never handing h2 more than the peer's window allows; ends the
/// stream after it when `end_of_stream`.
pub async fn send_all(
    stream: &mut SendStream<Bytes>,
    mut data: Bytes,
    end_of_stream: bool,
    wait: SendWait,
) -> Result<(), Status> {
    if data.is_empty() {
        return if end_of_stream {
            end_stream(stream)
        } else {
            Ok(())
        };
    }
    while !data.is_empty() {
        stream.reserve_capacity(data.len());
        let mut cap = stream.capacity();
        if cap == 0 {
            cap = match wait {
                SendWait::Unbounded => wait_capacity(stream).await?,
                SendWait::Bounded(limit) => {
                    match tokio::time::timeout(limit, wait_capacity(stream)).await {
                        Ok(r) => r?,
                        Err(_) => {
                            stream.reserve_capacity(0);
                            return Err(Status::new(
                                Code::ResourceExhausted,
                                format!(
                                    "flow control: the peer's HTTP/2 window stayed at zero for {limit:?}"
                                ),
                            ));
                        }
                    }
                }
            };
        }
        let n = cap.min(data.len());
        let chunk = data.split_to(n);
        let last = data.is_empty() && end_of_stream;
        stream
            .send_data(chunk, last)
            .map_err(|e| Status::from_h2_error(&e))?;
    }
    Ok(())
}

/// Ends `stream` with an empty DATA frame.
pub fn end_stream(stream: &mut SendStream<Bytes>) -> Result<(), Status> {
    stream
        .send_data(Bytes::new(), true)
        .map_err(|e| Status::from_h2_error(&e))
}

async fn wait_capacity(stream: &mut SendStream<Bytes>) -> Result<usize, Status> {
    loop {
        let polled = poll_fn(|cx| stream.poll_capacity(cx)).await;
        match polled {
            Some(Ok(0)) => continue,
            Some(Ok(n)) => return Ok(n),
            Some(Err(e)) => return Err(Status::from_h2_error(&e)),
            None => {
                let reason = poll_fn(|cx| match stream.poll_reset(cx) {
                    Poll::Ready(Ok(r)) => Poll::Ready(Some(r)),
                    Poll::Ready(Err(_)) => Poll::Ready(None),
                    Poll::Pending => Poll::Ready(None),
                })
                .await;
                return Err(match reason {
                    Some(h2::Reason::CANCEL) => Status::cancelled("stream cancelled by the peer"),
                    Some(r) => Status::unavailable(format!("stream reset by the peer: {r:?}")),
                    None => Status::unavailable("stream closed while waiting for send window"),
                });
            }
        }
    }
}
