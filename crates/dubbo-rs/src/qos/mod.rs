//! The QoS port: an HTTP server on loopback (unless `qos-accept-foreign-ip`) that answers
//! operations' questions: `/metrics` (Prometheus), `/live`, `/ready`, `/startup` and `/ls`,
//! and takes services out of the registries and back (`/offline`, `/online` and their `App` /
//! `Interface` forms). It belongs to one application and stops when the application shuts down.

mod commands;
pub(crate) mod io;
mod online;
mod request;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Weak};

use bytes::Bytes;
use dubbo_metrics::prometheus::HostLabels;
use http_body_util::{BodyExt, Full, Limited};
use tokio_util::sync::CancellationToken;

use crate::application::{AppInner, Application};
use crate::config::{ConfigError, DubboConfig};
use request::Command;

/// Java's QoS port when none is configured.
pub const DEFAULT_QOS_PORT: u16 = 22222;

/// How the QoS port is to be served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct QosSettings {
    pub(crate) port: u16,
    pub(crate) accept_foreign_ip: bool,
}

/// The QoS settings of `config`, or `None` when QoS is off.
///
/// QoS is on when `qos-enable: true`, or when a `qos-port` or `qos-accept-foreign-ip` is set
/// without `qos-enable: false` (Java reads those as "enabled"). Unlike Java, nothing set means
/// off: an application does not open an operations port nobody asked for.
pub(crate) fn settings(config: &DubboConfig) -> Option<QosSettings> {
    let app = &config.application;
    let asked = app.qos_enable == Some(true)
        || app.qos_port.is_some()
        || app.qos_accept_foreign_ip.is_some();
    if app.qos_enable == Some(false) || !asked {
        return None;
    }
    Some(QosSettings {
        port: app.qos_port.unwrap_or(DEFAULT_QOS_PORT),
        accept_foreign_ip: app.qos_accept_foreign_ip.unwrap_or(false),
    })
}

/// Binds the QoS port and serves it as one of `app`'s background tasks; returns the bound
/// address. Binding happens now, so a port in use fails the application's start.
pub(crate) fn start(app: &Application, qos: QosSettings) -> Result<SocketAddr, ConfigError> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Err(ConfigError::invalid(
            "dubbo.application.qos-enable",
            "the QoS port is served by a Tokio task: build the application inside a Tokio runtime",
        ));
    }
    let ip = if qos.accept_foreign_ip {
        IpAddr::V4(Ipv4Addr::UNSPECIFIED)
    } else {
        IpAddr::V4(Ipv4Addr::LOCALHOST)
    };
    let bind_error = |e: std::io::Error| {
        ConfigError::invalid(
            "dubbo.application.qos-port",
            format!("cannot open the QoS port {ip}:{}: {e}", qos.port),
        )
    };
    let std_listener =
        std::net::TcpListener::bind(SocketAddr::new(ip, qos.port)).map_err(bind_error)?;
    std_listener.set_nonblocking(true).map_err(bind_error)?;
    let listener = tokio::net::TcpListener::from_std(std_listener).map_err(bind_error)?;
    let addr = listener.local_addr().map_err(bind_error)?;
    let host = Arc::new(crate::metrics_text::host_labels(app));
    // A weak handle: the server must not keep the application alive.
    let weak = Arc::downgrade(&app.inner);
    app.tasks().spawn("qos", move |cancel| {
        accept_loop(listener, weak, host, qos.accept_foreign_ip, cancel)
    });
    tracing::info!(application = %app.name(), %addr, "QoS port open");
    Ok(addr)
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    app: Weak<AppInner>,
    host: Arc<HostLabels>,
    accept_foreign_ip: bool,
    cancel: CancellationToken,
) {
    loop {
        let (stream, peer) = tokio::select! {
            _ = cancel.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::debug!("QoS accept failed: {e}");
                    continue;
                }
            },
        };
        let (app, host, cancel) = (app.clone(), host.clone(), cancel.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: http::Request<_>| {
                let (app, host) = (app.clone(), host.clone());
                async move {
                    let answer = respond(&app, &host, accept_foreign_ip, peer, req).await;
                    Ok::<_, std::convert::Infallible>(answer)
                }
            });
            // One request per connection: nothing outlives a request by much after shutdown.
            let conn = hyper::server::conn::http1::Builder::new()
                .keep_alive(false)
                .serve_connection(io::TokioIo(stream), service);
            tokio::select! {
                _ = cancel.cancelled() => {}
                r = conn => {
                    if let Err(e) = r {
                        tracing::debug!(%peer, "QoS connection error: {e}");
                    }
                }
            }
        });
    }
}

/// The largest request body read (a form with a service pattern is far smaller).
const MAX_BODY: usize = 64 * 1024;

async fn respond(
    app: &Weak<AppInner>,
    host: &HostLabels,
    accept_foreign_ip: bool,
    peer: SocketAddr,
    req: http::Request<hyper::body::Incoming>,
) -> http::Response<Full<Bytes>> {
    let local = peer.ip().is_loopback();
    let answer = if !accept_foreign_ip && !local {
        commands::text(
            http::StatusCode::FORBIDDEN,
            format!(
                "Foreign IP {} is not permitted; set dubbo.application.qos-accept-foreign-ip",
                peer.ip()
            ),
        )
    } else {
        let (parts, body) = req.into_parts();
        match Limited::new(body, MAX_BODY).collect().await {
            Err(e) => commands::text(
                http::StatusCode::BAD_REQUEST,
                format!("cannot read the request body: {e}"),
            ),
            Ok(body) => {
                let body = body.to_bytes();
                let command =
                    Command::parse(&parts.method, parts.uri.path(), parts.uri.query(), &body);
                match (command, app.upgrade()) {
                    (None, _) => commands::text(http::StatusCode::NOT_FOUND, ""),
                    (Some(command), Some(inner)) => {
                        let app = Application { inner };
                        commands::answer(&app, &command, host, local).await
                    }
                    (Some(_), None) => {
                        commands::text(http::StatusCode::SERVICE_UNAVAILABLE, "false")
                    }
                }
            }
        }
    };
    let mut resp = http::Response::new(Full::new(Bytes::from(answer.body)));
    *resp.status_mut() = answer.status;
    resp.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static(answer.content_type),
    );
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(yaml: &str) -> DubboConfig {
        DubboConfig::from_yaml(&format!("application:\n{yaml}")).unwrap()
    }

    #[test]
    fn qos_is_on_only_when_asked() {
        assert_eq!(settings(&cfg("  name: a\n")), None);
        assert_eq!(settings(&cfg("  qos-enable: false\n  qos-port: 1\n")), None);
        assert_eq!(
            settings(&cfg("  qos-enable: true\n")),
            Some(QosSettings {
                port: DEFAULT_QOS_PORT,
                accept_foreign_ip: false
            })
        );
        assert_eq!(
            settings(&cfg("  qos-port: 3333\n  qos-accept-foreign-ip: true\n")),
            Some(QosSettings {
                port: 3333,
                accept_foreign_ip: true
            })
        );
    }
}
