//! Pushes an application's metrics to a Prometheus Pushgateway, as Java Dubbo 3.3 does with
//! `dubbo.metrics.prometheus.pushgateway.*`: every `push-interval` seconds the text the QoS
//! port's `/metrics` serves is POSTed to `{base-url}/metrics/job/{job}`.
//!
//! A Pushgateway that is down or slow costs the application nothing but the push task: one
//! push at a time, each bounded by a timeout, failures counted
//! (`dubbo_rs_pushgateway_push_failed_total`) and logged once per run of failures.

use std::sync::Weak;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use dubbo_metrics::prometheus::{HostLabels, CONTENT_TYPE};
use http_body_util::{BodyExt, Full, Limited};
use tokio_util::sync::CancellationToken;

use crate::application::{AppInner, Application};
use crate::config::{ConfigError, DubboConfig};
use hyper_util::rt::TokioIo;

/// Java's job name when none is configured.
pub const DEFAULT_JOB: &str = "default_dubbo_job";

/// Java's interval between pushes when none is configured, in seconds.
pub const DEFAULT_PUSH_INTERVAL_SECONDS: u64 = 30;

/// The longest a push may take: a stuck Pushgateway must not hold the next one back for
/// long, nor keep a connection open.
const PUSH_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of an error answer kept for the log.
const MAX_ANSWER: usize = 4096;

/// Where and how often to push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PushTarget {
    /// `host:port` to connect to.
    pub(crate) authority: String,
    /// The request path: the base URL's path, then `/metrics/job/{job}`.
    pub(crate) path: String,
    /// The `Authorization` header's value, when a user is configured.
    pub(crate) authorization: Option<String>,
    pub(crate) interval: Duration,
}

const KEY: &str = "dubbo.metrics.prometheus.pushgateway";

/// The push settings of `config`: `None` unless `enabled: true`.
pub(crate) fn settings(config: &DubboConfig) -> Result<Option<PushTarget>, ConfigError> {
    let gw = &config.metrics.prometheus.pushgateway;
    if gw.enabled != Some(true) {
        return Ok(None);
    }
    let base = gw
        .base_url
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .ok_or_else(|| {
            ConfigError::invalid(
                format!("{KEY}.base-url"),
                "is required when the Pushgateway is enabled (e.g. localhost:9091)",
            )
        })?;
    let (authority, prefix) = split_base_url(base)?;
    let job = gw
        .job
        .as_deref()
        .map(str::trim)
        .filter(|j| !j.is_empty())
        .unwrap_or(DEFAULT_JOB);
    let seconds = gw.push_interval.unwrap_or(DEFAULT_PUSH_INTERVAL_SECONDS);
    if seconds == 0 {
        return Err(ConfigError::invalid(
            format!("{KEY}.push-interval"),
            "must be at least 1 (seconds)",
        ));
    }
    let authorization = gw
        .username
        .as_deref()
        .filter(|u| !u.trim().is_empty())
        .map(|user| {
            let pair = format!("{user}:{}", gw.password.as_deref().unwrap_or(""));
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(pair)
            )
        });
    Ok(Some(PushTarget {
        authority,
        path: format!("{prefix}/metrics/job{}", job_segment(job)),
        authorization,
        interval: Duration::from_secs(seconds),
    }))
}

/// `host:port` and the path prefix (without a trailing `/`) of a base URL given as Java takes
/// it (`host:port`) or with an `http://` scheme.
fn split_base_url(base: &str) -> Result<(String, String), ConfigError> {
    let invalid = |why: &str| ConfigError::invalid(format!("{KEY}.base-url"), why.to_owned());
    let rest = match base.split_once("://") {
        None => base,
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some(_) => {
            return Err(invalid(
                "only http:// is supported (or host:port, as Java takes it)",
            ))
        }
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty() || authority.contains('@') {
        return Err(invalid(
            "needs host:port (credentials go in username and password)",
        ));
    }
    let authority = if authority.rsplit_once(':').is_some_and(|(h, p)| {
        !h.is_empty() && !h.ends_with(':') && p.chars().all(|c| c.is_ascii_digit())
    }) && !authority.ends_with(']')
    {
        authority.to_owned()
    } else {
        // The Pushgateway's own default port.
        format!("{authority}:9091")
    };
    Ok((authority, path.trim_end_matches('/').to_owned()))
}

/// The job's path segment: `/{job}` percent-encoded, or `@base64/{base64url}` when it holds
/// a `/`, which the Pushgateway would read as a label separator.
fn job_segment(job: &str) -> String {
    if job.contains('/') {
        return format!(
            "@base64/{}",
            base64::engine::general_purpose::URL_SAFE.encode(job)
        );
    }
    let mut out = String::from("/");
    for b in job.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

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

    /// The configuration as parsed, before the checks that [`settings`] is part of.
    fn cfg(yaml: &str) -> DubboConfig {
        serde_yaml_ng::from_str(yaml).unwrap()
    }

    #[test]
    fn settings_follow_java_keys_and_defaults() {
        assert_eq!(settings(&cfg("application:\n  name: a\n")).unwrap(), None);
        let t = settings(&cfg(
            "metrics:\n  prometheus:\n    pushgateway:\n      enabled: true\n      base-url: localhost:9091\n",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(t.authority, "localhost:9091");
        assert_eq!(t.path, "/metrics/job/default_dubbo_job");
        assert_eq!(t.interval, Duration::from_secs(30));
        assert_eq!(t.authorization, None);
        let t = settings(&cfg(
            "metrics:\n  prometheus:\n    pushgateway:\n      enabled: true\n      base-url: http://gw/prefix/\n      job: a b/c\n      push-interval: 5\n      username: u\n      password: p\n",
        ))
        .unwrap()
        .unwrap();
        assert_eq!(t.authority, "gw:9091");
        assert_eq!(t.path, "/prefix/metrics/job@base64/YSBiL2M=");
        assert_eq!(t.interval, Duration::from_secs(5));
        assert_eq!(t.authorization.as_deref(), Some("Basic dTpw"));
        assert_eq!(job_segment("a b"), "/a%20b");
        for bad in [
            "      enabled: true\n",
            "      enabled: true\n      base-url: https://gw:9091\n",
            "      enabled: true\n      base-url: gw:1\n      push-interval: 0\n",
        ] {
            let yaml = format!("metrics:\n  prometheus:\n    pushgateway:\n{bad}");
            assert!(settings(&cfg(&yaml)).is_err(), "{bad}");
            assert!(DubboConfig::from_yaml(&yaml).is_err(), "{bad}");
        }
        assert!(DubboConfig::from_yaml("metrics:\n  prometheus:\n    unknown: 1\n").is_err());
    }

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
