//! The interop consumer: calls every method of the interop services and checks each result.

// mimalloc: decoding allocates every string, list and map of a call, and it is faster at
// that than glibc's malloc (docs/performance-hessian.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use dubbo_interop::args::Args;
use dubbo_interop::cases::{reference_to, run_interop_cases, REGISTRY_TARGET};
use dubbo_interop::forbidden::check_forbidden;
use dubbo_interop::load::{run_load, LoadPlan};
use dubbo_interop::reference_flags::ReferenceFlags;
use dubbo_interop::report::Report;
use dubbo_rs::prelude::*;
use dubbo_triple_greeter::{run_client_cases, GreeterClient};

/// The Greeter's full service name (`package.Service` of interop/proto/greeter.proto).
const GREETER_SERVICE: &str = "org.apache.dubbo.interop.tri.Greeter";

const USAGE: &str = "usage: interop-client --url dubbo://HOST:PORT | --url tri://HOST:PORT | --url \"URL1;URL2;...\" | --registry URL [--protocol dubbo|tri] [--migration STEP] [--provided-by APPS] [--greeter-only] [--no-greeter] [--streaming] [--token T] [--expect-forbidden] [--auth accesskey --ak ID --sk SECRET | --auth basic --user U --password P] [--timeout MS] [--param K=V]... [--attachment K=V]... [--worker-threads N | --current-thread] [--tls-ca FILE [--tls-cert FILE --tls-key FILE] [--tls-reload-ms MS]]
       interop-client --url \"URL1;URL2;...\" --load N [--concurrency C] [--loadbalance NAME] [--cluster NAME] [--retries R] [--duration S] [--tag T]

  --streaming          with --url tri://HOST:PORT: only the StreamingService cases (Java
                       StreamObserver methods in wrapper mode: each stream kind, an error
                       mid-stream, cancelling a server and a bidirectional stream)
  --version V          with --streaming: refer StreamingService version V and check that
                       version V answers each stream kind (a provider started with
                       --streaming-versions)
  --events-check SER   with --url dubbo://HOST:PORT: through a relay that reads the frames,
                       check that this client's heartbeats and (after it prints WAITING and
                       the provider shuts down) the provider's readonly event are written in
                       SER (hessian2 or fastjson2), the channel's first serialization
  --no-greeter         over tri://, skip the Greeter cases (for a provider without the IDL
                       service, e.g. the Java Dubbo 3.2 interop provider)
  --url \"U1;U2\"        several direct providers behind one reference (the cluster chooses)
  --url rest://HOST:PORT[;rest://...]
                       instead of the interop cases, CONTRACT.md §5's REST table (UserResource,
                       InteropService's default mapping) through the rest protocol's client;
                       add ?client=h2c for HTTP/2 with prior knowledge
  --registry URL       find the providers in a registry (zookeeper://127.0.0.1:2181, file:///dir)
  --protocol P         with --registry: call the providers of protocol P (dubbo, the default, or tri)
  --migration STEP     with --registry: FORCE_INTERFACE, APPLICATION_FIRST (default) or FORCE_APPLICATION
  --provided-by APPS   with --registry: the applications providing the services (Dubbo's
                       provided-by), for application-level discovery without a service-name
                       mapping in the registry (Java's etcd registry writes none)
  --load N             instead of the cases, call sayHello(\"load\") N times from C callers
                       (default 8); print `provider HOST:PORT calls K` per provider that
                       answered, then `load-start unix-ms T` (when the callers started) and
                       per provider `provider-times HOST:PORT first-ms F last-ms L
                       longest-gap-ms G gap-end-ms E` (in ms since T: its first and last
                       answer, the longest time between two of its answers and when that
                       ended), then `N passed, N failed` counting calls
  --duration S         with --load: stop starting calls after S seconds
  --tag T              with --load: every call carries the attachment dubbo.tag=T (tag routing)
  --app NAME           the consumer's application name (default interop-consumer); governance
                       rules keyed by application ({app}.configurators, {app}.migration) use it
  --otlp URL           trace every call and export the spans to the OTLP/HTTP receiver at URL

  --token T            send Dubbo's token T with every call, Greeter's included
  --expect-forbidden   instead of the cases, call sayHello once (with --token's token, or none)
                       and pass only if the provider refuses it as forbidden (ErrorCode::Forbidden)
  --auth accesskey --ak ID --sk SECRET
                       sign every call as Java's dubbo-auth does (HMAC-SHA256 access key);
                       with --expect-forbidden the refusal must be an authentication one
  --auth basic --user U --password P
                       send HTTP Basic credentials (the authorization attachment / header)
  --timeout MS         the references' timeout in milliseconds (default 10000; Greeter's 5000)
  --param K=V          a parameter on the references (repeatable), e.g. --param retries=0
  --attachment K=V     an attachment on every call (repeatable), Greeter's included

  --tls-ca FILE        dial TLS, trusting the CA certificates of FILE (PEM)
  --tls-cert FILE      with --tls-ca and --tls-key: present this certificate (mutual TLS)
  --tls-key FILE       the private key of --tls-cert
  --tls-reload-ms MS   how often at most the TLS files are looked at for a change
                       (dubbo.ssl.cert-reload-interval; default 5000, 0: never)

  --worker-threads N   run on a multi-thread runtime with N worker threads (default: one per
                       core)
  --current-thread     run on a current-thread runtime (everything on the main thread)";

/// Every flag the client knows; any other is refused.
const FLAGS: &[&str] = &[
    "url",
    "registry",
    "protocol",
    "migration",
    "provided-by",
    "greeter-only",
    "no-greeter",
    "streaming",
    "token",
    "expect-forbidden",
    "auth",
    "ak",
    "sk",
    "user",
    "password",
    "load",
    "concurrency",
    "loadbalance",
    "cluster",
    "retries",
    "duration",
    "tag",
    "app",
    "otlp",
    "timeout",
    "param",
    "attachment",
    "worker-threads",
    "current-thread",
    "tls-ca",
    "tls-cert",
    "tls-key",
    "tls-reload-ms",
    "events-check",
    "version",
];

/// The flags that take no value.
const SWITCHES: &[&str] = &[
    "greeter-only",
    "no-greeter",
    "streaming",
    "expect-forbidden",
    "current-thread",
];

fn main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let args = match Args::parse(std::env::args().skip(1), SWITCHES) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(unknown) = args.unknown(FLAGS) {
        eprintln!("unknown flag --{unknown}\n{USAGE}");
        return ExitCode::from(2);
    }
    let runtime = match runtime(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut report = Report::new();
    runtime.block_on(async {
        if let Err(e) = run(&args, &mut report).await {
            report.check("setup", false, || e);
        }
    });
    report.finish();
    if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The runtime the flags ask for: `--current-thread`, `--worker-threads N`, or what
/// `#[tokio::main]` builds (multi-thread, one worker per core).
fn runtime(args: &Args) -> Result<tokio::runtime::Runtime, String> {
    let mut builder = match (args.has("current-thread"), args.get("worker-threads")) {
        (true, Some(_)) => {
            return Err("--current-thread and --worker-threads exclude each other".to_owned())
        }
        (true, None) => tokio::runtime::Builder::new_current_thread(),
        (false, Some(n)) => {
            let n: usize = n
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("--worker-threads {n}: not a positive count"))?;
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(n);
            b
        }
        (false, None) => tokio::runtime::Builder::new_multi_thread(),
    };
    builder
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))
}

async fn run(args: &Args, report: &mut Report) -> Result<(), String> {
    if args.has("streaming") {
        return run_streaming(args, report).await;
    }
    if let Some(expected) = args.get("events-check") {
        let target = args
            .get("url")
            .and_then(|u| u.strip_prefix("dubbo://"))
            .ok_or("--events-check needs --url dubbo://HOST:PORT")?
            .trim_end_matches('/');
        let flags = ReferenceFlags::from_args(args)?;
        let app = Application::builder("interop-consumer")
            .build()
            .map_err(|e| e.to_string())?;
        dubbo_interop::events_check::run(&app, target, expected, &flags, report).await?;
        app.shutdown().await;
        return Ok(());
    }
    // With --registry the "url" is the registry's providers of --protocol.
    let registry_target;
    let url = match (args.get("url"), args.get("registry")) {
        (Some(url), None) => url,
        (None, Some(_)) => {
            let protocol = args.get("protocol").unwrap_or("dubbo");
            if !matches!(protocol, "dubbo" | "tri") {
                return Err(format!("--protocol {protocol}: expected dubbo or tri"));
            }
            registry_target = match args.get("provided-by") {
                Some(apps) => format!("{REGISTRY_TARGET}{protocol}@{apps}"),
                None => format!("{REGISTRY_TARGET}{protocol}"),
            };
            registry_target.as_str()
        }
        _ => return Err(USAGE.to_owned()),
    };
    let mut builder = Application::builder(args.get("app").unwrap_or("interop-consumer"));
    builder = dubbo_interop::tracing_flag::with_otlp_flag(builder, args);
    if let Some(registry) = args.get("registry") {
        builder = builder.registry(registry);
        if let Some(step) = args.get("migration") {
            builder = builder.migration_step(step);
        }
    }
    // --tls-ca [--tls-cert --tls-key]: every connection uses TLS (dubbo.ssl client keys).
    if let Some(ssl) = dubbo_interop::tls_flags::client_ssl(args)? {
        builder = builder.ssl(ssl);
    }
    let flags = ReferenceFlags::from_args(args)?;
    if let Some(framework) = flags.framework() {
        builder = builder.framework(framework);
    }
    let app = builder.build().map_err(|e| e.to_string())?;
    let token = flags.token();
    if args.has("expect-forbidden") {
        check_forbidden(&app, url, &flags, report)
            .await
            .map_err(|e| e.to_string())?;
        app.shutdown().await;
        return Ok(());
    }
    if let Some(n) = args.get("load") {
        let plan = LoadPlan {
            calls: n.parse().map_err(|_| format!("--load {n}: not a count"))?,
            concurrency: match args.get("concurrency") {
                Some(c) => c
                    .parse()
                    .map_err(|_| format!("--concurrency {c}: not a count"))?,
                None => 8,
            },
            loadbalance: args.get("loadbalance").map(str::to_owned),
            cluster: args.get("cluster").map(str::to_owned),
            retries: args.get("retries").map(str::to_owned),
            duration: match args.get("duration") {
                Some(d) => {
                    Some(std::time::Duration::from_secs(d.parse().map_err(|_| {
                        format!("--duration {d}: not a number of seconds")
                    })?))
                }
                None => None,
            },
            tag: args.get("tag").map(str::to_owned),
        };
        let result = run_load(&app, url, &flags, &plan)
            .await
            .map_err(|e| e.to_string())?;
        for e in &result.errors {
            eprintln!("failed call: {e}");
        }
        for (provider, calls) in &result.by_provider {
            println!("provider {provider} calls {calls}");
        }
        if let Some(started) = result.started {
            let ms = started
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            println!("load-start unix-ms {ms}");
        }
        for (provider, a) in &result.answered {
            println!(
                "provider-times {provider} first-ms {} last-ms {} longest-gap-ms {} gap-end-ms {}",
                a.first.as_millis(),
                a.last.as_millis(),
                a.longest_gap.as_millis(),
                a.gap_end.as_millis()
            );
        }
        report.add_counts(result.passed, result.failed);
        app.shutdown().await;
        return Ok(());
    }
    // rest://: the REST table of CONTRACT.md §5 through the `rest` protocol's consumer.
    if url.starts_with("rest://") {
        dubbo_interop::rest_cases::run_rest_cases(&app, url, &flags, report)
            .await
            .map_err(|e| e.to_string())?;
        app.shutdown().await;
        return Ok(());
    }
    let greeter_only = args.has("greeter-only");
    if !greeter_only {
        run_interop_cases(&app, url, &flags, report)
            .await
            .map_err(|e| e.to_string())?;
    }
    // The Greeter goes through a reference like any other service, so its calls pass the
    // consumer's filters (the token among them) and the generated client runs in invoker mode.
    let tri_addr = url
        .strip_prefix("tri://")
        .or((url == "registry:tri" || url.starts_with("registry:tri@")).then_some(url));
    if tri_addr.is_some() && args.has("no-greeter") {
        println!("SKIP greeter: --no-greeter (the provider has no Greeter IDL service)");
    } else if let Some(addr) = tri_addr {
        let addr = addr.trim_end_matches('/').to_owned();
        let target = if addr.starts_with(REGISTRY_TARGET) {
            addr.clone()
        } else {
            format!("tri://{addr}")
        };
        let mut options =
            reference_to(GREETER_SERVICE, &target).timeout(std::time::Duration::from_secs(5));
        if let Some(t) = token {
            options = options.parameter("token", t);
        }
        let options = flags.apply(options);
        match app.default_module().refer(options).await {
            Ok(reference) => {
                let client = GreeterClient::from_invoker(reference.invoker());
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

/// `--streaming`: the StreamingService cases through a reference to `--url tri://HOST:PORT`,
/// with the client the service's trait generates.
async fn run_streaming(args: &Args, report: &mut Report) -> Result<(), String> {
    use dubbo_interop::streaming::{StreamingServiceClient, STREAMING_SERVICE};
    let url = args
        .get("url")
        .filter(|u| u.starts_with("tri://"))
        .ok_or("--streaming needs --url tri://HOST:PORT")?;
    let app = Application::builder(args.get("app").unwrap_or("interop-consumer"))
        .build()
        .map_err(|e| e.to_string())?;
    let mut options = ReferenceOptions::new(STREAMING_SERVICE).url(url);
    if let Some(version) = args.get("version") {
        options = options.version(version);
    }
    let reference = app
        .default_module()
        .refer(options)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    let client = StreamingServiceClient::new(reference.invoker());
    match args.get("version") {
        Some(version) => {
            dubbo_interop::streaming::run_version_cases(&client, version, report).await
        }
        None => dubbo_interop::streaming::run_cases(&client, report).await,
    }
    app.shutdown().await;
    Ok(())
}
