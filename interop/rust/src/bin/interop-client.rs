//! The interop consumer: calls every method of the interop services and checks each result.

// mimalloc: decoding allocates every string, list and map of a call, and it is faster at
// that than glibc's malloc (docs/performance-hessian.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use dubbo_interop::args::Args;
use dubbo_interop::cases::run_interop_cases;
use dubbo_interop::forbidden::check_forbidden;
use dubbo_interop::report::Report;
use dubbo_rs::prelude::*;
use dubbo_triple_greeter::{run_client_cases, GreeterClient};

const USAGE: &str = "usage: interop-client --url dubbo://HOST:PORT | --url tri://HOST:PORT | --registry URL [--greeter-only] [--token T] [--expect-forbidden]

  --token T            send Dubbo's token T with every InteropService call (the Greeter cases,
                       whose generated client sends no token, are then skipped)
  --expect-forbidden   instead of the cases, call sayHello once (with --token's token, or none)
                       and pass only if the provider refuses it as forbidden (ErrorCode::Forbidden)";

#[tokio::main]
async fn main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let args = match Args::parse(
        std::env::args().skip(1),
        &["greeter-only", "expect-forbidden"],
    ) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut report = Report::new();
    if let Err(e) = run(&args, &mut report).await {
        report.check("setup", false, || e);
    }
    report.finish();
    if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

async fn run(args: &Args, report: &mut Report) -> Result<(), String> {
    if let Some(registry) = args.get("registry") {
        return Err(format!(
            "--registry {registry}: registry support is not built yet"
        ));
    }
    let url = args.get("url").ok_or_else(|| USAGE.to_owned())?;
    let app = Application::builder("interop-consumer")
        .build()
        .map_err(|e| e.to_string())?;
    let token = args.get("token");
    if args.has("expect-forbidden") {
        check_forbidden(&app, url, token, report)
            .await
            .map_err(|e| e.to_string())?;
        app.shutdown().await;
        return Ok(());
    }
    let greeter_only = args.has("greeter-only");
    if !greeter_only {
        run_interop_cases(&app, url, token, report)
            .await
            .map_err(|e| e.to_string())?;
    }
    // The generated Greeter client sends no Dubbo token: with --token only InteropService runs.
    let greeter_url = if token.is_some() {
        None
    } else {
        url.strip_prefix("tri://")
    };
    if let Some(addr) = greeter_url {
        let addr = addr.trim_end_matches('/').to_owned();
        match GreeterClient::connect(addr.clone()).await {
            Ok(client) => {
                let (passed, failed) = run_client_cases(&client).await;
                report.add_counts(passed, failed);
            }
            Err(e) => report.check("greeter.connect", false, || format!("{addr}: {e}")),
        }
    } else if greeter_only {
        return Err("--greeter-only needs a tri:// url".to_owned());
    }
    app.shutdown().await;
    Ok(())
}
