//! `dubbo`: the operator's command-line tool of dubbo-rs (see the `dubbo_cli::dubbo` module
//! and the README for every command).

use std::process::ExitCode;

use dubbo_cli::commands::Outcome;
use dubbo_cli::dubbo::cli::{self, Command, Where};
use dubbo_cli::dubbo::{call, connect, describe, ls, rules, CliError};

fn main() -> ExitCode {
    let parsed = match cli::parse(std::env::args_os()) {
        Ok(parsed) => parsed,
        Err(e) => return dubbo_cli::parse_error_exit(&e, ExitCode::from(2)),
    };
    if let Command::Completions(shell) = parsed.command {
        clap_complete::generate(shell, &mut cli::command(), "dubbo", &mut std::io::stdout());
        return ExitCode::SUCCESS;
    }
    match run(parsed) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Missing) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!(
                "dubbo: error [{}]: {}",
                e.code(),
                first_lines(&e.to_string())
            );
            ExitCode::FAILURE
        }
    }
}

/// The first two lines of a message: a Java provider's exception carries its whole stack
/// trace, which buries the message at a terminal.
fn first_lines(message: &str) -> String {
    let lines: Vec<&str> = message.lines().collect();
    if lines.len() <= 3 {
        return message.to_owned();
    }
    format!(
        "{}\n(+{} more lines)",
        lines[..2].join("\n"),
        lines.len() - 2
    )
}

fn run(parsed: cli::Parsed) -> Result<Outcome, CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::io("tokio runtime", &e))?;
    let format = parsed.format;
    let tls = parsed.tls.checked()?;
    runtime.block_on(async move {
        let ext = dubbo_cli::centre::extensions();
        match parsed.command {
            Command::Ls {
                source: Where::Registry(registry),
                what,
                ..
            } => {
                let url = connect::registry_url(&registry)?;
                ls::run_with(&ext, &url, what, &tls, format).await?;
            }
            Command::Ls {
                source: Where::Url(target),
                app,
                ..
            } => {
                if target.starts_with("dubbo://") {
                    ls::run_exported(&target, app.as_deref(), &tls, format).await?
                } else {
                    ls::run_reflection_with(&target, &tls, format).await?
                }
            }
            Command::Describe {
                source: Where::Registry(registry),
                wanted,
            } => {
                let url = connect::registry_url(&registry)?;
                describe::run(&ext, &url, &wanted, &tls, format).await?;
            }
            Command::Describe {
                source: Where::Url(target),
                wanted,
            } => describe::run_reflection_with(&target, &wanted.service, &tls, format).await?,
            Command::Call(request) => call::run_with(&ext, &request, &tls, format).await?,
            Command::Rules {
                center,
                key,
                group,
                action,
            } => return rules::run(&center, &key, group.as_deref(), &action, format).await,
            Command::Completions(_) => {}
        }
        Ok(Outcome::Done)
    })
}
