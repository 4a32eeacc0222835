//! REST over HTTP/2 (h2c, prior knowledge): a stream whose content type is not gRPC's is a
//! REST request, read whole (up to `max_http1_body`, else 413) and answered as over HTTP/1.1.

use std::sync::Arc;

use bytes::{Bytes, BytesMut};
use dubbo_core::ConnectionAddrs;
use h2::server::SendResponse;
use h2::RecvStream;
use http::StatusCode;

use super::HttpError;
use crate::flow_control::{send_all, SendWait};
use crate::server::ServerShared;

/// Serves one REST request on an HTTP/2 stream.
pub(crate) async fn serve(
    request: http::Request<RecvStream>,
    mut respond: SendResponse<Bytes>,
    shared: Arc<ServerShared>,
    addrs: Arc<ConnectionAddrs>,
) {
    let (parts, mut stream) = request.into_parts();
    let max = shared.config.max_http1_body;
    let body = read_body(&mut stream, max).await;
    let reply = super::handle(&shared, parts, body, addrs).await;
    let (head, body) = reply.into_parts();
    let head = http::Response::from_parts(head, ());
    let mut send = match respond.send_response(head, body.is_empty()) {
        Ok(s) => s,
        Err(e) => {
            tracing::debug!("could not send REST response headers: {e}");
            return;
        }
    };
    if !body.is_empty() {
        let wait = SendWait::Bounded(shared.config.unary_send_window_timeout);
        if let Err(e) = send_all(&mut send, body, true, wait).await {
            tracing::debug!("could not send REST response body: {}", e.message());
        }
    }
    drain(&mut stream, max).await;
}

/// Reads and drops what is left of a request answered before its body was read whole (413),
/// so the client finishes its upload and reads the answer rather than seeing its stream
/// reset; up to 8 times the limit and for 10 s, then the stream is reset after all.
async fn drain(stream: &mut RecvStream, max: usize) {
    if stream.is_end_stream() {
        return;
    }
    let mut left = max.saturating_mul(8);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        while let Some(Ok(chunk)) = stream.data().await {
            let _ = stream.flow_control().release_capacity(chunk.len());
            left = left.saturating_sub(chunk.len());
            if left == 0 {
                break;
            }
        }
    })
    .await;
}

/// The whole body, giving the window back as it is read; 413 past `max` bytes.
async fn read_body(body: &mut RecvStream, max: usize) -> Result<Bytes, HttpError> {
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("request body over {max} bytes"),
        )
    };
    let mut buf = BytesMut::new();
    while let Some(chunk) = body.data().await {
        let chunk =
            chunk.map_err(|e| (StatusCode::BAD_REQUEST, format!("reading the body: {e}")))?;
        let _ = body.flow_control().release_capacity(chunk.len());
        if buf.len() + chunk.len() > max {
            return Err(too_large());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(buf.freeze())
}
