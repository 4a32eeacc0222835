//! Gauges of the servers' TLS certificates in the Prometheus text: how long until each expires
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
/// whose servers serve TLS (`tls`, of application `app_name`); empty without `dubbo.ssl` server
/// keys.
pub(crate) fn render(tls: &AppTls, app_name: &str, host: &HostLabels) -> String {
    let now = SystemTime::now();
    let certs: Vec<(&str, Validity)> = tls
        .servers()
        .into_iter()
        .filter_map(|(protocol, tls)| Some((protocol, tls.certificate_validity()?)))
        .collect();
    if certs.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let labels = |protocol: &str, v: &Validity| {
        format!(
            "application_name=\"{}\",hostname=\"{}\",ip=\"{}\",protocol=\"{protocol}\",subject=\"{}\",not_after=\"{}\"",
            escape(app_name),
            escape(&host.hostname),
            escape(&host.ip),
            escape(&v.subject),
            escape(&v.not_after_text)
        )
    };
    out.push_str("# HELP dubbo_tls_certificate_expiry_seconds Seconds until the server certificate expires (negative once it has).\n");
    out.push_str("# TYPE dubbo_tls_certificate_expiry_seconds gauge\n");
    for (protocol, v) in &certs {
        let _ = writeln!(
            out,
            "dubbo_tls_certificate_expiry_seconds{{{}}} {}",
            labels(protocol, v),
            v.seconds_left(now)
        );
    }
    out.push_str("# HELP dubbo_tls_certificate_valid Whether the server certificate is within its validity dates now (1) or not (0).\n");
    out.push_str("# TYPE dubbo_tls_certificate_valid gauge\n");
    for (protocol, v) in &certs {
        let valid = u8::from(v.state_at(now) == ValidityState::Valid);
        let _ = writeln!(
            out,
            "dubbo_tls_certificate_valid{{{}}} {valid}",
            labels(protocol, v)
        );
    }
    out
}
