//! Running a QoS command, whichever way it came (HTTP or telnet): look it up, check that the
//! caller may run it, run it.

use std::net::IpAddr;
use std::sync::Weak;

use dubbo_metrics::prometheus::{self, HostLabels};
use http::StatusCode;

use super::catalog::{self, CommandSpec};
use super::invoke::{self, Selection};
use super::online::OnlineCommand;
use super::permission::{AccessPolicy, Decision};
use super::request::Command;
use crate::application::{AppInner, Application};

/// A command's answer: status (for HTTP), content type and body.
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

/// A plain-text `200` answer.
fn ok(body: impl Into<String>) -> Answer {
    text(StatusCode::OK, body)
}

/// A probe's answer as Java gives it: `200 true` or `503 false`, which is what Kubernetes'
/// HTTP probes read.
fn probe(up: bool) -> Answer {
    if up {
        ok("true")
    } else {
        text(StatusCode::SERVICE_UNAVAILABLE, "false")
    }
}

/// What became of a command.
pub(crate) enum Outcome {
    /// It ran (or the application is gone: `503 false`).
    Done(Answer),
    /// No command has that name.
    NoSuchCommand,
    /// The caller's permission level is too low for it.
    Denied,
    /// `quit`: the session ends.
    Close,
}

/// What every connection of one QoS port shares.
pub(crate) struct QosContext {
    /// Weak: the port must not keep the application alive.
    pub(crate) app: Weak<AppInner>,
    pub(crate) host: HostLabels,
    pub(crate) policy: AccessPolicy,
}

impl QosContext {
    /// Runs `command` for a caller at `peer` (`selection`: what its session remembers for
    /// `select`), in Java's order: an unknown command is reported
    /// as such before any permission check.
    pub(crate) async fn execute(
        &self,
        peer: IpAddr,
        command: &Command,
        selection: &mut Selection,
    ) -> Outcome {
        let Some(spec) = catalog::find(&command.name) else {
            tracing::debug!(command = %command.name, %peer, "QoS: no such command");
            return Outcome::NoSuchCommand;
        };
        if self.policy.decide(peer, spec.name, spec.level) == Decision::Denied {
            tracing::info!(
                command = spec.name,
                required = ?spec.level,
                %peer,
                "QoS command refused: permission level too low"
            );
            return Outcome::Denied;
        }
        if spec.name == "quit" {
            return Outcome::Close;
        }
        let Some(inner) = self.app.upgrade() else {
            return Outcome::Done(probe(false));
        };
        tracing::debug!(command = spec.name, args = ?command.args, %peer, "QoS command");
        let app = Application { inner };
        Outcome::Done(run(&app, spec, &command.args, &self.host, selection).await)
    }
}

async fn run(
    app: &Application,
    spec: &CommandSpec,
    args: &[String],
    host: &HostLabels,
    selection: &mut Selection,
) -> Answer {
    if let Some(switch) = OnlineCommand::named(spec.name) {
        return switch.run(app, args).await;
    }
    match spec.name {
        "metrics" => Answer {
            status: StatusCode::OK,
            content_type: prometheus::CONTENT_TYPE,
            body: crate::metrics_text::render(app, host),
        },
        "live" => probe(!app.is_shut_down()),
        "ready" => probe(app.is_ready()),
        "startup" => probe(app.has_started()),
        "ls" => ok(ls(app)),
        "help" => ok(catalog::help(args)),
        "version" => ok(format!("dubbo version \"{}\"", crate::RELEASE)),
        "ps" => {
            let protocols = app.protocols();
            let connections = |port| protocols.iter().find_map(|p| p.connections(port));
            ok(super::ps::run(&app.exported(), &connections, args))
        }
        "invoke" => ok(invoke::run(app, args, selection).await),
        "select" => ok(invoke::select(app, args, selection).await),
        "cd" => ok(invoke::cd(app, args, selection)),
        "pwd" => ok(invoke::pwd(selection)),
        "gracefulShutdown" => graceful_shutdown(app).await,
        "getConfig" => ok(super::get_config::run(app.name(), app.config(), args)),
        "publishMetadata" => ok(publish_metadata(app, args).await),
        "shutdown" => ok(shutdown(app, args)),
        other => text(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("command {other} has no implementation"),
        ),
    }
}

/// Java's `gracefulShutdown`: every protocol tells its consumers it is read-only, and every
/// service leaves the registries; the application keeps serving the calls that still come.
async fn graceful_shutdown(app: &Application) -> Answer {
    for protocol in app.protocols() {
        protocol.readonly().await;
    }
    tracing::info!(application = %app.name(), "QoS gracefulShutdown: readonly sent");
    OnlineCommand::OFFLINE_ALL.run(app, &[]).await;
    ok("OK")
}

/// Java's `publishMetadata [DELAY_SECONDS]`: the instance and its metadata are published to the
/// registries again (after a ready application changed something they carry).
async fn publish_metadata(app: &Application, args: &[String]) -> String {
    let Some(layer) = app.inner.registry.clone() else {
        return format!("no registry: nothing to publish. App:{}", app.name());
    };
    if !app.is_ready() {
        return format!(
            "the application is not ready: its metadata is published when it is. App:{}",
            app.name()
        );
    }
    match args.first() {
        None => {
            layer.request(crate::registry::Event::Publish).await;
            format!("publish metadata succeeded. App:{}", app.name())
        }
        Some(delay) => match delay.parse::<u64>() {
            Ok(seconds) => {
                tokio::spawn(async move {
                    tokio::time::sleep(std::time::Duration::from_secs(seconds)).await;
                    layer.request(crate::registry::Event::Publish).await;
                });
                format!(
                    "publish task submitted, will publish in {seconds} seconds. App:{}",
                    app.name()
                )
            }
            Err(_) => format!("{delay:?} is not a number of seconds, e.g. publishMetadata 5"),
        },
    }
}

/// Java's `shutdown [-t MILLISECONDS]`: the application shuts down as on SIGTERM (unregister,
/// tell consumers, drain, close), after the delay. The answer comes first: the QoS port closes
/// with the application.
fn shutdown(app: &Application, args: &[String]) -> String {
    // Java's telnet form is `-t MS`; over HTTP only one argument fits the path
    // (`/shutdown/1000`), so a bare number is taken too.
    let ms = match args {
        [] => None,
        [flag, ms] if flag == "-t" => Some(ms),
        [ms] => Some(ms),
        _ => return "usage: shutdown [-t <milliseconds>]".to_owned(),
    };
    let delay = match ms.map(|ms| ms.parse::<u64>().map_err(|_| ms)) {
        None => 0,
        Some(Ok(ms)) => ms,
        Some(Err(ms)) => {
            return format!("{ms:?} is not a number of milliseconds, e.g. shutdown -t 1000")
        }
    };
    let app = app.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        app.shutdown().await;
    });
    format!("Application is shutting down (in {delay} ms), gracefully.")
}

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
