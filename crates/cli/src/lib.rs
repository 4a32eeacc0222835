//! The operator's command-line tools of dubbo-rs: `dubbo` (`ls`, `describe`, `call`, `rules`,
//! `completions`) and `dubbo-cli` (`config get|put|delete|watch`, the same as `dubbo rules`).

pub mod args;
pub mod centre;
pub mod commands;
pub mod dubbo;
pub mod event_line;

/// Prints a command-line parsing error (or the help or version text clap answers with) and
/// gives the exit status: success for help and version, `failure` otherwise.
pub fn parse_error_exit(
    e: &clap::Error,
    failure: std::process::ExitCode,
) -> std::process::ExitCode {
    let asked_for_help = matches!(
        e.kind(),
        clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
    );
    let _ = e.print();
    if asked_for_help {
        std::process::ExitCode::SUCCESS
    } else {
        failure
    }
}
