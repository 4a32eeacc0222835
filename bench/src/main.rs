//! `dubbo-bench`: the load generator of the benchmark suite. See `dubbo-bench --help`.

// mimalloc, like every binary of this suite (docs/performance.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;
use std::sync::Arc;

use dubbo_bench::args::{ArgError, Options, TargetKind, USAGE};
use dubbo_bench::report;
use dubbo_bench::runner::{self, RunStats};
use dubbo_bench::target::{FacadeTarget, GrpcTarget, Target, TriIdlTarget};

fn main() -> ExitCode {
    let o = match Options::parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(ArgError(msg)) => {
            if msg.is_empty() {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            eprintln!("dubbo-bench: {msg}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let rt = if o.threads == 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(o.threads)
            .enable_all()
            .build()
    };
    let rt = match rt {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("dubbo-bench: runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(bench(&o)) {
        Ok(stats) => {
            print!("{}", report::table(&o, &stats));
            if let Some(path) = &o.csv {
                if let Err(e) = report::append_csv(path, &o, &stats) {
                    eprintln!("dubbo-bench: writing {path}: {e}");
                    return ExitCode::FAILURE;
                }
            }
            if stats.calls == 0 {
                eprintln!("dubbo-bench: no call succeeded");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("dubbo-bench: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn bench(o: &Options) -> Result<RunStats, String> {
    let timeout = o.timeout;
    let conns = o.connections;
    match o.target {
        TargetKind::Dubbo | TargetKind::TriIface => {
            let t = FacadeTarget::connect(o.target, &o.addr, o.scenario, conns, timeout).await?;
            drive(t, o).await
        }
        TargetKind::TriIdl => {
            drive(
                TriIdlTarget::connect(&o.addr, o.scenario, conns, timeout).await?,
                o,
            )
            .await
        }
        TargetKind::Grpc => {
            drive(
                GrpcTarget::connect(&o.addr, o.scenario, conns, timeout).await?,
                o,
            )
            .await
        }
    }
}

async fn drive<T: Target>(target: T, o: &Options) -> Result<RunStats, String> {
    // One checked call per connection first: a wrong setup fails here, not as a run of errors.
    for conn in 0..o.connections {
        target
            .call(conn)
            .await
            .map_err(|e| format!("first call failed: {e}"))?;
    }
    let target = Arc::new(target);
    let stats = runner::run(target.clone(), o).await;
    target.close().await;
    Ok(stats)
}
