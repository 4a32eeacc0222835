//! A QoS connection that speaks HTTP: one request, one answer, as Java's QoS serves it
//! (`200` with the command's answer, `404` for an unknown command or a request no command
//! can be read from, `403` when the caller's permission level is too low).

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use tokio::net::TcpStream;

use super::commands::{text, Answer, Outcome, QosContext};
use super::invoke::Selection;
use super::permission::FOREIGN_IP_REFUSED;
use super::request::Command;
use hyper_util::rt::TokioIo;

/// The largest request body read (a form with a service pattern or an `invoke` is far
/// smaller).
const MAX_BODY: usize = 64 * 1024;

/// Serves one request on `stream`. `admitted` is false when the caller was refused at the
/// connection: it gets `403` whatever it asks.
pub(crate) async fn serve(
    stream: TcpStream,
    peer: SocketAddr,
    ctx: Arc<QosContext>,
    admitted: bool,
) {
    let service = hyper::service::service_fn(move |req: http::Request<_>| {
        let ctx = ctx.clone();
        async move {
            let answer = if admitted {
                respond(&ctx, peer, req).await
            } else {
                text(http::StatusCode::FORBIDDEN, FOREIGN_IP_REFUSED)
            };
            Ok::<_, std::convert::Infallible>(into_response(answer))
        }
    });
    // One request per connection: nothing outlives a request by much after shutdown.
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(false)
        .serve_connection(TokioIo::new(stream), service);
    if let Err(e) = conn.await {
        tracing::debug!(%peer, "QoS connection error: {e}");
    }
}

async fn respond(
    ctx: &QosContext,
    peer: SocketAddr,
    req: http::Request<hyper::body::Incoming>,
) -> Answer {
    let (parts, body) = req.into_parts();
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(body) => body.to_bytes(),
        Err(e) => {
            return text(
                http::StatusCode::BAD_REQUEST,
                format!("cannot read the request body: {e}"),
            )
        }
    };
    let Some(command) = Command::parse(&parts.method, parts.uri.path(), parts.uri.query(), &body)
    else {
        return text(http::StatusCode::NOT_FOUND, "");
    };
    // One request per connection: nothing to remember for a later `select`.
    match ctx
        .execute(peer.ip(), &command, &mut Selection::default())
        .await
    {
        Outcome::Done(answer) => answer,
        Outcome::NoSuchCommand => text(
            http::StatusCode::NOT_FOUND,
            format!("{} :no such command", command.name),
        ),
        Outcome::Denied => text(
            http::StatusCode::FORBIDDEN,
            format!("{} :permission deny", command.name),
        ),
        // Nothing to close but this connection, which closes after the answer anyway.
        Outcome::Close => text(http::StatusCode::OK, "BYE!"),
    }
}

fn into_response(answer: Answer) -> http::Response<Full<Bytes>> {
    let mut resp = http::Response::new(Full::new(Bytes::from(answer.body)));
    *resp.status_mut() = answer.status;
    resp.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(answer.content_type),
    );
    resp
}
