//! The QoS commands served over HTTP: what each path answers.

use dubbo_metrics::prometheus::{self, HostLabels};
use http::StatusCode;

use super::online::OnlineCommand;
use super::request::Command;
use crate::application::Application;

/// A command's answer: status, content type and body.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) content_type: &'static str,
    pub(crate) body: String,
}

const TEXT: &str = "text/plain; charset=utf-8";

/// A plain-text answer.
pub(crate) fn text(status: StatusCode, body: impl Into<String>) -> Answer {
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

/// Answers `command` for `app`. `local` says whether the request came from this machine:
/// the commands that change what the application offers are for local callers only (Java's
/// QoS lets anonymous foreign callers run only its public commands).
pub(crate) async fn answer(
    app: &Application,
    command: &Command,
    host: &HostLabels,
    local: bool,
) -> Answer {
    if let Some(switch) = OnlineCommand::named(&command.name) {
        if !local {
            return text(
                StatusCode::FORBIDDEN,
                format!("{} is for callers on this machine only", command.name),
            );
        }
        return switch.run(app, &command.args).await;
    }
    match command.name.as_str() {
        "metrics" => Answer {
            status: StatusCode::OK,
            content_type: prometheus::CONTENT_TYPE,
            body: crate::metrics_text::render(app, host),
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

const HELP: &str = "Commands: metrics, live, ready, startup, ls, \
offline, offlineApp, offlineInterface, online, onlineApp, onlineInterface [service pattern]\n";

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
