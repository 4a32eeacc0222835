//! Pushes an application's metrics to a Prometheus Pushgateway, as Java Dubbo 3.3 does with
//! `dubbo.metrics.prometheus.pushgateway.*`: every `push-interval` seconds the text the QoS
//! port's `/metrics` serves is POSTed to `{base-url}/metrics/job/{job}`.
//!
//! A Pushgateway that is down or slow costs the application nothing but the push task: one
//! push at a time, each bounded by a timeout, failures counted
//! (`dubbo_rs_pushgateway_push_failed_total`) and logged once per run of failures.

use std::sync::Weak;
use std::time::Duration;

use bytes::Bytes;
use dubbo_metrics::prometheus::{HostLabels, CONTENT_TYPE};
use http_body_util::{BodyExt, Full, Limited};
use tokio_util::sync::CancellationToken;

use crate::application::{AppInner, Application};
use crate::config::PushTarget;
use hyper_util::rt::TokioIo;

/// The longest a push may take: a stuck Pushgateway must not hold the next one back for
/// long, nor keep a connection open.
const PUSH_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of an error answer kept for the log.
const MAX_ANSWER: usize = 4096;

/// Starts pushing `app`'s metrics to `target` as one of its background tasks.
pub(crate) fn start(app: &Application, target: PushTarget) {
    let host = crate::metrics_text::host_labels(app);
    // A weak handle: the task must not keep the application alive.
    let weak = std::sync::Arc::downgrade(&app.inner);
    tracing::info!(
        application = %app.name(),
        pushgateway = %target.authority,
        path = %target.path,
        interval_s = target.interval.as_secs(),
        "pushing metrics to a Prometheus Pushgateway"
    );
    app.tasks().spawn("pushgateway", move |cancel| {
        push_loop(weak, host, target, cancel)
    });
}

async fn push_loop(
    app: Weak<AppInner>,
    host: HostLabels,
    target: PushTarget,
    cancel: CancellationToken,
) {
    let start = tokio::time::Instant::now() + target.interval;
    let mut ticks = tokio::time::interval_at(start, target.interval);
    // A push that overran its interval is followed by one push, not a burst.
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let timeout = PUSH_TIMEOUT.min(target.interval.max(Duration::from_secs(1)));
    let mut failing = false;
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = ticks.tick() => {}
        }
        let Some(inner) = app.upgrade() else { return };
        let app = Application { inner };
        let body = crate::metrics_text::render(&app, &host);
        let events = app.framework().event_metrics().clone();
        drop(app);
        // Awaited here, so at most one push is in flight.
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return,
            r = tokio::time::timeout(timeout, push(&target, body)) => {
                r.unwrap_or_else(|_| Err(format!("no answer within {timeout:?}")))
            }
        };
        match outcome {
            Ok(()) => {
                if failing {
                    tracing::info!(pushgateway = %target.authority, "metrics pushed again");
                }
                failing = false;
            }
            Err(e) => {
                events.push_failed();
                if !failing {
                    tracing::warn!(pushgateway = %target.authority, error = %e, "cannot push metrics; counting failures in dubbo_rs_pushgateway_push_failed_total until a push succeeds");
                }
                failing = true;
            }
        }
    }
}

/// One push: a POST of `body` on a new connection (pushes are far apart; a kept connection
/// would only be one more thing to go stale).
async fn push(target: &PushTarget, body: String) -> Result<(), String> {
    let stream = tokio::net::TcpStream::connect(&target.authority)
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("handshake: {e}"))?;
    let mut request = http::Request::post(&target.path)
        .header(http::header::HOST, &target.authority)
        .header(http::header::CONTENT_TYPE, CONTENT_TYPE);
    if let Some(auth) = &target.authorization {
        request = request.header(http::header::AUTHORIZATION, auth);
    }
    let request = request
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| format!("bad request: {e}"))?;
    let exchange = async {
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let answer = Limited::new(response.into_body(), MAX_ANSWER)
            .collect()
            .await
            .map(|b| String::from_utf8_lossy(&b.to_bytes()).trim().to_owned())
            .unwrap_or_default();
        Err(format!("answered {status}: {answer}"))
    };
    tokio::pin!(conn, exchange);
    tokio::select! {
        biased;
        r = &mut exchange => r,
        c = &mut conn => match c {
            // The server answered and closed: the answer was handed over before the close.
            Ok(()) => exchange.await,
            Err(e) => Err(format!("connection failed: {e}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A one-request HTTP server on a free loopback port: answers `status` and hands back
    /// what it read.
    async fn one_request_server(status: &'static str) -> (String, tokio::task::JoinHandle<String>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let handle = tokio::spawn(async move {
            let (mut s, _) = listener.accept().await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            // Headers, then the body by its length.
            loop {
                let n = s.read(&mut buf).await.unwrap();
                seen.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&seen).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len: usize = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length: "))
                        .and_then(|v| v.trim().parse().ok())
                        .unwrap_or(0);
                    if seen.len() >= end + 4 + len {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            let answer = format!("HTTP/1.1 {status}\r\ncontent-length: 2\r\n\r\nno");
            s.write_all(answer.as_bytes()).await.unwrap();
            String::from_utf8_lossy(&seen).to_string()
        });
        (addr, handle)
    }

    fn target(authority: String) -> PushTarget {
        PushTarget {
            authority,
            path: "/metrics/job/j".into(),
            authorization: Some("Basic dTpw".into()),
            interval: Duration::from_secs(1),
        }
    }

    #[tokio::test]
    async fn pushes_the_text_with_post_and_basic_auth() {
        let (addr, server) = one_request_server("200 OK").await;
        push(&target(addr), "a_total 1\n".into()).await.unwrap();
        let seen = server.await.unwrap();
        assert!(
            seen.starts_with("POST /metrics/job/j HTTP/1.1\r\n"),
            "{seen}"
        );
        assert!(seen.contains("authorization: Basic dTpw\r\n"), "{seen}");
        assert!(
            seen.contains("content-type: text/plain; version=0.0.4"),
            "{seen}"
        );
        assert!(seen.ends_with("\r\n\r\na_total 1\n"), "{seen}");
    }

    #[tokio::test]
    async fn a_refusal_or_a_closed_port_is_an_error() {
        let (addr, server) = one_request_server("400 Bad Request").await;
        let e = push(&target(addr), "x 1\n".into()).await.unwrap_err();
        assert!(e.contains("400"), "{e}");
        server.await.unwrap();
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = closed.local_addr().unwrap().to_string();
        drop(closed);
        assert!(push(&target(addr), "x 1\n".into()).await.is_err());
    }
}
