//! The QoS port: operations' commands over HTTP and telnet on one port, as Java Dubbo 3.3
//! serves them. The first byte a client sends decides: `G` or `P` (an HTTP `GET` / `POST`)
//! is HTTP, anything else a telnet session (greeted after half a second of silence). The
//! commands (`help` lists them) answer probes (`live`, `ready`, `startup`), `metrics`
//! (Prometheus), `ls`, `ps`, `version`, `invoke` a served method with JSON arguments, take
//! services out of the registries and back (`offline`, `online` and their `App` /
//! `Interface` forms) and `gracefulShutdown`. Each caller runs what its permission level
//! allows (see [`permission`]). The port belongs to one application and stops when the
//! application shuts down.

mod catalog;
mod commands;
mod get_config;
mod http_connection;
mod invoke;
mod online;
mod permission;
mod ps;
mod request;
mod telnet;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;

use crate::application::Application;
use crate::config::{ConfigError, DubboConfig};
use commands::QosContext;
use permission::{AccessPolicy, FOREIGN_IP_REFUSED};

/// Java's QoS port when none is configured.
pub const DEFAULT_QOS_PORT: u16 = 22222;

/// How long a silent client waits for the telnet banner.
const BANNER_DELAY: Duration = Duration::from_millis(500);

/// How the QoS port is to be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QosSettings {
    pub(crate) port: u16,
    /// Listen on every interface (else on 127.0.0.1 only).
    pub(crate) every_interface: bool,
    pub(crate) policy: AccessPolicy,
}

/// The QoS settings of `config`, `None` when QoS is off, or the key at fault.
///
/// QoS is on when `qos-enable: true`, or when a `qos-port` or any foreign-access key is set
/// without `qos-enable: false` (Java reads those as "enabled"). Unlike Java, nothing set means
/// off: an application does not open an operations port nobody asked for. For the same
/// reason the port listens on 127.0.0.1 unless a foreign-access key is set.
pub(crate) fn settings(config: &DubboConfig) -> Result<Option<QosSettings>, ConfigError> {
    let app = &config.application;
    let policy = AccessPolicy::from_config(app)?;
    let foreign = policy.serves_foreign_callers(app);
    let asked = app.qos_enable == Some(true)
        || app.qos_port.is_some()
        || app.qos_accept_foreign_ip.is_some()
        || foreign;
    if app.qos_enable == Some(false) || !asked {
        return Ok(None);
    }
    Ok(Some(QosSettings {
        port: app.qos_port.unwrap_or(DEFAULT_QOS_PORT),
        every_interface: foreign,
        policy,
    }))
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
    let ip = if qos.every_interface {
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
    let ctx = Arc::new(QosContext {
        // A weak handle: the server must not keep the application alive.
        app: Arc::downgrade(&app.inner),
        host: crate::metrics_text::host_labels(app),
        policy: qos.policy,
    });
    app.tasks()
        .spawn("qos", move |cancel| accept_loop(listener, ctx, cancel));
    tracing::info!(application = %app.name(), %addr, "QoS port open");
    Ok(addr)
}

async fn accept_loop(
    listener: tokio::net::TcpListener,
    ctx: Arc<QosContext>,
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
        let (ctx, cancel) = (ctx.clone(), cancel.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = cancel.cancelled() => {}
                r = serve_connection(stream, peer, ctx) => {
                    if let Err(e) = r {
                        tracing::debug!(%peer, "QoS connection error: {e}");
                    }
                }
            }
        });
    }
}

/// Tells HTTP from telnet by the first byte, as Java's QoS does, and serves the connection.
async fn serve_connection(
    mut stream: TcpStream,
    peer: SocketAddr,
    ctx: Arc<QosContext>,
) -> std::io::Result<()> {
    let admitted = ctx.policy.admits(peer.ip());
    let mut first = [0u8; 1];
    let mut greeted = false;
    let read = match tokio::time::timeout(BANNER_DELAY, stream.peek(&mut first)).await {
        Ok(read) => read?,
        Err(_) if !admitted => 1,
        Err(_) => {
            // A client that says nothing is a person at a telnet prompt: greet it.
            stream
                .write_all(format!("{}{}", telnet::banner(), telnet::PROMPT).as_bytes())
                .await?;
            greeted = true;
            match tokio::time::timeout(telnet::IDLE, stream.peek(&mut first)).await {
                Ok(read) => read?,
                // Idle as long as a silent session may be: closed.
                Err(_) => 0,
            }
        }
    };
    if read == 0 {
        return Ok(());
    }
    // Once greeted, the client is a person at a telnet prompt (an HTTP client sends its
    // request at once): `ps` or `gracefulShutdown` typed first is a command, not HTTP.
    let http = !greeted && matches!(first[0], b'G' | b'P');
    if http {
        http_connection::serve(stream, peer, ctx, admitted).await;
        return Ok(());
    }
    if !admitted {
        tracing::info!(%peer, "QoS telnet refused: foreign address");
        // Read what the client sent first: closing with unread input would reset the
        // connection and could lose the refusal on its way.
        let mut sent = [0u8; 2048];
        let _ = stream.try_read(&mut sent);
        stream
            .write_all(format!("\r\n{FOREIGN_IP_REFUSED}\r\n").as_bytes())
            .await?;
        return stream.shutdown().await;
    }
    telnet::serve(stream, peer, ctx, greeted).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(yaml: &str) -> DubboConfig {
        DubboConfig::from_yaml(&format!("application:\n{yaml}")).unwrap()
    }

    #[test]
    fn qos_is_on_only_when_asked() {
        let s = |yaml: &str| settings(&cfg(yaml)).unwrap();
        assert_eq!(s("  name: a\n"), None);
        assert_eq!(s("  qos-enable: false\n  qos-port: 1\n"), None);
        let on = s("  qos-enable: true\n").unwrap();
        assert_eq!((on.port, on.every_interface), (DEFAULT_QOS_PORT, false));
        let on = s("  qos-port: 3333\n  qos-accept-foreign-ip: true\n").unwrap();
        assert_eq!((on.port, on.every_interface), (3333, true));
        // Without foreign access asked for, loopback only, whatever `qos-accept-foreign-ip: false`.
        let on = s("  qos-accept-foreign-ip: false\n").unwrap();
        assert!(!on.every_interface);
        let on = s("  qos-accept-foreign-ip-whitelist: 10.0.0.0/8\n").unwrap();
        assert!(on.every_interface);
        assert!(settings(&cfg("  qos-anonymous-access-permission-level: x\n")).is_err());
    }
}
