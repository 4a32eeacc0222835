//! `dubbo-cli`: the operator's tool for the dubbo-rs config centre, where governance rules
//! (override, routing, migration) and external configuration live, shared with Java Dubbo
//! and Dubbo Admin.
//!
//! ```text
//! dubbo-cli config get    --center URL [--group G] KEY
//! dubbo-cli config put    --center URL [--group G] KEY [--file F | -]
//! dubbo-cli config delete --center URL [--group G] KEY
//! dubbo-cli config watch  --center URL [--group G] KEY [--count N]
//! ```
//!
//! - `URL` chooses the config centre by scheme: `zookeeper://127.0.0.1:2181`,
//!   `etcd3://127.0.0.1:2379` (or `etcd://`). Its parameters are the config centre's own
//!   (`namespace=...`, `backup=...`); `timeout` defaults to 5000 ms here.
//! - `G` is the group, `dubbo` by default (migration rules live in
//!   `DUBBO_SERVICEDISCOVERY_MIGRATION`).
//! - `get` prints the value exactly as stored; with no value it says so on standard error and
//!   exits 1.
//! - `put` takes the value from `--file F`, or from standard input (`-`, the default).
//! - `watch` prints the current value on standard error, then one line per change on
//!   standard output: UTC time, `Added`/`Modified`/`Deleted`, and the first line of the new
//!   content. It stops at Ctrl-C, or after `--count N` changes.
//!
//! Errors print as `dubbo-cli: error [CODE]: message`, with the config centre's stable code
//! (`CONFIG_CENTER_UNREACHABLE`, `CONFIG_CENTER_UNKNOWN_SCHEME`, ...), and exit 1.
//!
//! ```text
//! $ dubbo-cli config put --center zookeeper://127.0.0.1:2181 demo-app.configurators --file override.yaml
//! $ dubbo-cli config watch --center zookeeper://127.0.0.1:2181 demo-app.configurators --count 1
//! dubbo-cli: watching demo-app.configurators in group dubbo; current value: configVersion: v3.0 (+6 lines)
//! 2026-12-01T02:30:00.123Z Modified configVersion: v3.0 (+7 lines)
//! ```

use std::process::ExitCode;

use dubbo_cli::args::{self, Request};
use dubbo_cli::centre;
use dubbo_cli::commands::{self, Outcome};
use dubbo_config_center::ConfigCenterError;

/// How notes and errors name the program.
const PROG: &str = "dubbo-cli";

fn main() -> ExitCode {
    let request = match args::parse(std::env::args_os()) {
        Ok(request) => request,
        Err(e) => return dubbo_cli::parse_error_exit(&e, ExitCode::FAILURE),
    };
    match run(request) {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::Missing) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("dubbo-cli: error [{}]: {e}", e.code());
            ExitCode::FAILURE
        }
    }
}

fn run(request: Request) -> Result<Outcome, ConfigCenterError> {
    // Read before connecting: a missing file should not wait for a server.
    let value = match &request {
        Request::Put(_, source) => Some(commands::read_value(source)?),
        _ => None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ConfigCenterError::io("tokio runtime".as_ref(), &e))?;
    runtime.block_on(async move {
        let ext = centre::extensions();
        let target = match &request {
            Request::Get(t) | Request::Put(t, _) | Request::Delete(t) | Request::Watch(t, _) => t,
        };
        let config = centre::open(&ext, &target.center).await?;
        let outcome = match &request {
            Request::Get(t) => commands::get(PROG, config.as_ref(), t).await,
            Request::Put(t, _) => {
                commands::put(
                    PROG,
                    config.as_ref(),
                    t,
                    value.as_deref().unwrap_or_default(),
                )
                .await
            }
            Request::Delete(t) => commands::delete(PROG, config.as_ref(), t).await,
            Request::Watch(t, count) => commands::watch(PROG, config.as_ref(), t, *count).await,
        };
        config.close().await;
        outcome
    })
}
