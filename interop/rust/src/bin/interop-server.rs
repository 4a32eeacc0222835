//! The interop provider: InteropService over dubbo:// and tri://, Greeter and StreamingService over tri://, and on
//! the tri port the HTTP/1.1 JSON form and REST (UserResource, CONTRACT.md §5; NoteResource with --notes). Prints READY when every port accepts connections; exits
//! cleanly on SIGTERM or SIGINT.

// mimalloc: decoding allocates every string, list and map of a call, and it is faster at
// that than glibc's malloc (docs/performance-hessian.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

use dubbo_interop::args::Args;
use dubbo_interop::provider::InteropProvider;
use dubbo_interop::rest::{ContractUsers, UserResourceServer};
use dubbo_interop::service::InteropServiceServer;
use dubbo_rs::prelude::*;
use dubbo_triple_greeter::{ContractGreeter, GreeterServer};

const USAGE: &str =
    "usage: interop-server [--dubbo-port P] [--tri-port Q] [--registry URL] [--app NAME] [--token T] [--auth accesskey --ak ID --sk SECRET | --auth basic --user U --password P] [--delay-ms D] [--qos-port Q] [--param KEY=VALUE] [--pushgateway URL] [--otlp URL] [--metrics-service] [--tls-cert FILE --tls-key FILE [--tls-ca FILE] [--tls-optional] [--tls-reload-ms MS]] [--cors KEY=VALUE]... [--swagger-ui KEY=VALUE]... [--streaming-versions] [--notes]";

#[tokio::main]
async fn main() -> ExitCode {
    init_logging();
    let args = match Args::parse(
        std::env::args().skip(1),
        &[
            "metrics-service",
            "tls-optional",
            "streaming-versions",
            "notes",
        ],
    ) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    if let Some(unknown) = args.names().find(|n| {
        !matches!(
            *n,
            "dubbo-port"
                | "tri-port"
                | "registry"
                | "app"
                | "token"
                | "auth"
                | "ak"
                | "sk"
                | "user"
                | "password"
                | "delay-ms"
                | "qos-port"
                | "param"
                | "pushgateway"
                | "otlp"
                | "metrics-service"
                | "tls-cert"
                | "tls-key"
                | "tls-ca"
                | "tls-optional"
                | "tls-reload-ms"
                | "cors"
                | "swagger-ui"
                | "streaming-versions"
                | "notes"
        )
    }) {
        eprintln!("unknown flag --{unknown}\n{USAGE}");
        return ExitCode::from(2);
    }
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("interop-server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &Args) -> Result<(), String> {
    let dubbo_port = args.port("dubbo-port", 20880)?;
    let tri_port = args.port("tri-port", 50051)?;
    let app_name = args.get("app").unwrap_or("interop-provider");
    // --otlp URL: trace every call and export the spans to the OTLP/HTTP receiver at URL.
    let builder = dubbo_interop::tracing_flag::with_otlp_flag(Application::builder(app_name), args);
    let mut builder = builder
        .protocol("dubbo", dubbo_port)
        .protocol("tri", tri_port)
        .host("127.0.0.1");
    // --cors KEY=VALUE (repeatable): CORS of the REST forms on the tri port, Java's
    // dubbo.protocol.triple.rest.cors.KEY (allowed-origins=https://a.example,...).
    if let Some(tri) = dubbo_interop::cors_flag::tri_protocol(args, tri_port)? {
        builder = builder.protocol_config("tri", tri);
    }
    // --registry URL: register as Java Dubbo 3.3 does by default (interface and instance).
    if let Some(registry) = args.get("registry") {
        builder = builder.registry(registry);
        // Java consumers replace a registered 127.* host with their machine's own address
        // (NetUtils.filterLocalHost) and so would dial another interface; the IPv4-mapped
        // loopback they keep, and it reaches the same 127.0.0.1 socket. An explicit
        // DUBBO_IP_TO_REGISTRY still wins.
        let mut env: Vec<(String, String)> = std::env::vars().collect();
        if !env.iter().any(|(k, _)| k == "DUBBO_IP_TO_REGISTRY") {
            env.push(("DUBBO_IP_TO_REGISTRY".into(), "::ffff:127.0.0.1".into()));
        }
        builder = builder.env(env);
    }
    // --qos-port Q: QoS over HTTP on 127.0.0.1:Q (/metrics in Java Dubbo 3.3's Prometheus
    // names, /live, /ready, /startup, /ls); without it no QoS port is opened.
    if args.get("qos-port").is_some() {
        builder = builder.qos_port(args.port("qos-port", 0)?);
    }
    // --metrics-service: serve Java's MetricsService (group = the application, 1.0.0).
    if args.has("metrics-service") {
        builder = builder.metrics_service();
    }
    // --pushgateway URL: push the metrics to a Prometheus Pushgateway every second, under
    // the application's name as job (dubbo.metrics.prometheus.pushgateway.*).
    if let Some(url) = args.get("pushgateway") {
        builder = builder.pushgateway(url, app_name, 1);
    }
    // --tls-cert/--tls-key [--tls-ca] [--tls-optional]: TLS on both ports (dubbo.ssl).
    if let Some(ssl) = dubbo_interop::tls_flags::server_ssl(args)? {
        builder = builder.ssl(ssl);
    }
    // With a registry that can serve as a config centre, its `dubbo.properties` (global and
    // the application's own) applies at start, as in a Java provider.
    let app = builder.build_async().await.map_err(|e| e.to_string())?;
    let module = app.default_module();
    // --delay-ms D: sayHello waits D ms before it answers.
    let delay = match args.get("delay-ms") {
        Some(d) => std::time::Duration::from_millis(
            d.parse()
                .map_err(|_| format!("--delay-ms {d}: not a number"))?,
        ),
        None => std::time::Duration::ZERO,
    };
    // --param KEY=VALUE: one more parameter on the InteropService URLs (a tag rule's `match`
    // selects providers by such parameters).
    let param = match args.get("param") {
        Some(p) => Some(
            p.split_once('=')
                .ok_or_else(|| format!("--param {p}: expected KEY=VALUE"))?,
        ),
        None => None,
    };
    // --auth accesskey|basic and its credentials: every call must be signed as Java's
    // dubbo-auth signs it (the provider URLs get auth=true, authenticator and the credentials
    // under Java's keys, which are never registered).
    let auth = dubbo_interop::auth_flags::auth_params(args)?;
    // --token T: every call must carry Dubbo's token T (the provider URLs get token=T).
    let options = |version: &str| {
        let mut options = ServiceOptions::new().version(version);
        if let Some(token) = args.get("token") {
            options = options.parameter("token", token);
        }
        for (k, v) in &auth {
            options = options.parameter(k, v);
        }
        if let Some((k, v)) = param {
            options = options.parameter(k, v);
        }
        options
    };
    module
        .export(
            InteropServiceServer::new(InteropProvider::v1().with_delay(delay)),
            options("1.0.0"),
        )
        .await
        .map_err(|e| e.to_string())?;
    module
        .export(
            InteropServiceServer::new(InteropProvider::v2().with_delay(delay)),
            options("2.0.0"),
        )
        .await
        .map_err(|e| e.to_string())?;
    // CONTRACT.md §5: UserResource over REST on the tri port (the tri protocol only: its
    // mapping is HTTP's).
    module
        .export(
            UserResourceServer::new(ContractUsers),
            options("1.0.0").protocol("tri"),
        )
        .await
        .map_err(|e| e.to_string())?;
    // --notes: NoteResource too, a REST service with service-wide CORS settings.
    if args.has("notes") {
        module
            .export(
                dubbo_interop::notes::NoteResourceServer::new(dubbo_interop::notes::Notes),
                options("1.0.0").protocol("tri"),
            )
            .await
            .map_err(|e| e.to_string())?;
    }
    let mut options_idl = match args.get("token") {
        Some(token) => ServiceOptions::new().parameter("token", token),
        None => ServiceOptions::new(),
    };
    for (k, v) in &auth {
        options_idl = options_idl.parameter(k, v);
    }
    module
        .export_idl(GreeterServer::new(ContractGreeter), options_idl.clone())
        .await
        .map_err(|e| e.to_string())?;
    // The contract's StreamObserver interface (wrapper mode), from its trait: exported like
    // any service, its streams served on the tri port.
    module
        .export(
            dubbo_interop::streaming::service(),
            options_idl.clone().protocol("tri"),
        )
        .await
        .map_err(|e| e.to_string())?;
    // --streaming-versions: StreamingService 1.0.0 and 2.0.0 too, on the same tri port, each
    // answering `version` requests with its own version.
    if args.has("streaming-versions") {
        for version in ["1.0.0", "2.0.0"] {
            module
                .export(
                    dubbo_interop::streaming::service_versioned(version),
                    options_idl.clone().protocol("tri").version(version),
                )
                .await
                .map_err(|e| e.to_string())?;
        }
    }
    // Ready (and registered) before READY is printed, so a consumer started next finds it.
    app.ready().await;
    println!("READY");
    app.run_until_signal().await;
    Ok(())
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
