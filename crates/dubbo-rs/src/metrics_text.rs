//! The Prometheus text of an application: what the QoS port's `/metrics` answers and what is
//! pushed to a Pushgateway, so both always carry the same samples.

use std::net::Ipv4Addr;
use std::time::Instant;

use dubbo_metrics::prometheus::{self, HostLabels};

use crate::application::Application;

/// The process-level labels of the metrics: host name and advertised address.
pub(crate) fn host_labels(app: &Application) -> HostLabels {
    let hostname = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default();
    let ip = crate::address::machine_ipv4(&app.config().environment)
        .map(|ip| ip.to_string())
        .unwrap_or_else(|| Ipv4Addr::LOCALHOST.to_string());
    HostLabels {
        hostname,
        ip,
        application_version: app.config().application.version.clone().unwrap_or_default(),
        git_commit_id: String::new(),
    }
}

/// The call metrics of `app`'s framework, then its registry, metadata and config-centre
/// metrics, its servers' request pools and open connections, as of now.
pub(crate) fn render(app: &Application, host: &HostLabels) -> String {
    let framework = app.framework();
    let mut text = prometheus::render(framework.metrics(), host, Instant::now());
    text.push_str(&prometheus::render_events(
        framework.event_metrics(),
        framework.metrics(),
        host,
    ));
    let protocols = app.protocols();
    let pools: Vec<_> = protocols.iter().flat_map(|p| p.thread_pools()).collect();
    text.push_str(&prometheus::render_thread_pools(&pools, app.name(), host));
    let mut ports: Vec<(&'static str, u16)> = app
        .exported()
        .iter()
        .filter_map(|e| {
            let protocol = protocols
                .iter()
                .find(|p| Some(p.name()) == e.url.protocol())?;
            Some((protocol.name(), e.url.port()))
        })
        .collect();
    ports.sort_unstable();
    ports.dedup();
    let servers: Vec<(&str, u16, usize)> = ports
        .into_iter()
        .filter_map(|(name, port)| {
            let protocol = protocols.iter().find(|p| p.name() == name)?;
            Some((name, port, protocol.connections(port)?.len()))
        })
        .collect();
    text.push_str(&prometheus::render_connections(&servers, app.name(), host));
    text.push_str(&crate::tls_metrics::render(app.tls(), app.name(), host));
    text
}
