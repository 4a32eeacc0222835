//! The QoS commands served over HTTP: what each path answers.

use std::time::Instant;

use dubbo_metrics::prometheus::{self, HostLabels};
use http::StatusCode;

use crate::application::Application;

/// A command's answer: status, content type and body.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) content_type: &'static str,
    pub(crate) body: String,
}

const TEXT: &str = "text/plain; charset=utf-8";

fn text(status: StatusCode, body: impl Into<String>) -> Answer {
    Answer {
        status,
        content_type: TEXT,
        body: body.into(),
    }
}

/// A probe's answer as Java gives it: `200 true` or `503 false`, which is what Kubernetes'
/// HTTP probes read.
fn probe(ok: bool) -> Answer {
    if ok {
        text(StatusCode::OK, "true")
    } else {
        text(StatusCode::SERVICE_UNAVAILABLE, "false")
    }
}

/// Answers the command named by `path` (`/metrics`, `/live`, ...) for `app`.
pub(crate) fn answer(app: &Application, path: &str, host: &HostLabels) -> Answer {
    let command = path.trim_start_matches('/').split('/').next().unwrap_or("");
    match command {
        "metrics" => Answer {
            status: StatusCode::OK,
            content_type: prometheus::CONTENT_TYPE,
            body: prometheus::render(app.framework().metrics(), host, Instant::now()),
        },
        "live" => probe(!app.is_shut_down()),
        "ready" => probe(app.is_ready()),
        "startup" => probe(app.has_started()),
        "ls" => text(StatusCode::OK, ls(app)),
        "" => text(StatusCode::OK, HELP),
        other => text(
            StatusCode::NOT_FOUND,
            format!("Unsupported command: {other}\n{HELP}"),
        ),
    }
}

const HELP: &str = "Commands: metrics, live, ready, startup, ls\n";

/// The services the application serves and calls, in the spirit of Java's `ls`.
fn ls(app: &Application) -> String {
    let mut out = String::from("As Provider side:\n");
    for e in app.exported() {
        out.push_str(&format!("  {} {}\n", e.key, e.url));
    }
    out.push_str("As Consumer side:\n");
    for r in app.referred() {
        out.push_str(&format!("  {} {}\n", r.key, r.url));
    }
    out
}
