//! Gauges of the application's TLS certificates (its servers' and its clients') in the
//! Prometheus text: how long until each expires
//! and whether it is valid now, so an alert can fire before peers start refusing it.

use std::fmt::Write as _;
use std::time::SystemTime;

use dubbo_metrics::prometheus::HostLabels;
use dubbo_tls::{Validity, ValidityState};

use crate::app_tls::AppTls;

/// Prometheus label value escaping: backslash, double quote and newline.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// `dubbo_tls_certificate_expiry_seconds` and `dubbo_tls_certificate_valid` for each protocol
/// whose servers serve TLS (`role="server"`) or whose clients present a certificate
/// (`role="client"`), of application `app_name`; empty without such certificates. The files
/// are looked at first (if the reload interval has passed), so the gauges follow the disk
/// even when no connection came since they changed.
pub(crate) fn render(tls: &AppTls, app_name: &str, host: &HostLabels) -> String {
    let now = SystemTime::now();
    let mut certs: Vec<(&str, &str, Validity)> = Vec::new();
    for (protocol, server) in tls.servers() {
        server.refresh();
        if let Some(v) = server.certificate_validity() {
            certs.push((protocol, "server", v));
        }
    }
    for (protocol, client) in tls.clients() {
        client.refresh();
        if let Some(v) = client.certificate_validity() {
            certs.push((protocol, "client", v));
        }
    }
    if certs.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let labels = |protocol: &str, role: &str, v: &Validity| {
        format!(
            "application_name=\"{}\",hostname=\"{}\",ip=\"{}\",protocol=\"{protocol}\",role=\"{role}\",subject=\"{}\",not_after=\"{}\"",
            escape(app_name),
            escape(&host.hostname),
            escape(&host.ip),
            escape(&v.subject),
            escape(&v.not_after_text)
        )
    };
    out.push_str("# HELP dubbo_tls_certificate_expiry_seconds Seconds until the certificate expires (negative once it has).\n");
    out.push_str("# TYPE dubbo_tls_certificate_expiry_seconds gauge\n");
    for (protocol, role, v) in &certs {
        let _ = writeln!(
            out,
            "dubbo_tls_certificate_expiry_seconds{{{}}} {}",
            labels(protocol, role, v),
            v.seconds_left(now)
        );
    }
    out.push_str("# HELP dubbo_tls_certificate_valid Whether the certificate is within its validity dates now (1) or not (0).\n");
    out.push_str("# TYPE dubbo_tls_certificate_valid gauge\n");
    for (protocol, role, v) in &certs {
        let valid = u8::from(v.state_at(now) == ValidityState::Valid);
        let _ = writeln!(
            out,
            "dubbo_tls_certificate_valid{{{}}} {valid}",
            labels(protocol, role, v)
        );
    }
    out
}
