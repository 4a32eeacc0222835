//! `dubbo-admin --registry URL [--port P] [--config FILE] [--data-dir DIR] [--qos-port Q]
//! [--qos-port-of APP=PORT]...`: serves the admin console and its HTTP API on 127.0.0.1:P and
//! prints `READY`; stops on SIGINT or SIGTERM.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Arg, ArgAction, Command};

// A registry of 100,000 instances is read again and again: mimalloc gives the memory of each
// read back, where the system allocator keeps the peak of the last one
// (docs/performance.md, "The admin at scale").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use dubbo_admin::settings::{FileSettings, DEFAULT_PORT, DEFAULT_QOS_PORT, DEFAULT_WATCH_LIMIT};
use dubbo_admin::{data_dir, AdminError, AdminState, Settings};
use dubbo_cli::dubbo::tls::TlsFlags;

fn command() -> Command {
    Command::new("dubbo-admin")
        .about("The admin console and HTTP API of dubbo-rs: services, instances, calls, rules")
        .arg(Arg::new("registry").long("registry").required(true).value_name("URL")
            .help("the registry: zookeeper://, etcd:// or file:// (also the config centre and metadata report unless the configuration says otherwise)"))
        .arg(Arg::new("port").long("port").value_name("P").value_parser(clap::value_parser!(u16))
            .help("the port on 127.0.0.1 (default 38080)"))
        .arg(Arg::new("config").long("config").value_name("FILE")
            .help("YAML configuration: users, session-key, data-dir, qos-port, qos-ports, config-center, prometheus, watch-limit, tls-ca, tls-cert, tls-key"))
        .arg(Arg::new("data-dir").long("data-dir").value_name("DIR")
            .help("where the session key, a generated password and the audit log are kept (default ./dubbo-admin-data)"))
        .arg(Arg::new("qos-port").long("qos-port").value_name("Q").value_parser(clap::value_parser!(u16))
            .help("the QoS port of instances with no port of their own (default 22222)"))
        .arg(Arg::new("qos-port-of").long("qos-port-of").value_name("APP=PORT").action(ArgAction::Append)
            .help("the QoS port of the instances of one application"))
        .arg(Arg::new("watch-limit").long("watch-limit").value_name("N").value_parser(clap::value_parser!(usize))
            .help("keep the catalog live through watches up to N providers and instances (default 20000); re-read above"))
        .arg(Arg::new("prometheus").long("prometheus").value_name("URL")
            .help("a Prometheus server scraping the instances (http://host:port): metrics over time"))
        .arg(Arg::new("tls-ca").long("tls-ca").value_name("FILE")
            .help("dial instances (MetadataService, calls) with TLS, trusting these CA certificates (PEM)"))
        .arg(Arg::new("tls-cert").long("tls-cert").value_name("FILE")
            .help("the client certificate chain (PEM) for mutual TLS; needs --tls-ca and --tls-key"))
        .arg(Arg::new("tls-key").long("tls-key").value_name("FILE")
            .help("the private key (PEM) of --tls-cert"))
}

fn settings(m: &clap::ArgMatches) -> Result<Settings, AdminError> {
    let file = match m.get_one::<String>("config") {
        Some(path) => FileSettings::read(std::path::Path::new(path))?,
        None => FileSettings::default(),
    };
    let mut qos_ports = file.qos_ports.clone();
    for pair in m.get_many::<String>("qos-port-of").into_iter().flatten() {
        let parsed = pair
            .split_once('=')
            .and_then(|(app, port)| Some((app.to_owned(), port.parse::<u16>().ok()?)));
        let (app, port) = parsed
            .ok_or_else(|| AdminError::Config(format!("--qos-port-of {pair:?}: not APP=PORT")))?;
        qos_ports.insert(app, port);
    }
    Ok(Settings {
        registry: m.get_one::<String>("registry").cloned().unwrap_or_default(),
        config_center: file.config_center.clone(),
        port: m.get_one::<u16>("port").copied().unwrap_or(DEFAULT_PORT),
        data_dir: m
            .get_one::<String>("data-dir")
            .map(PathBuf::from)
            .or(file.data_dir.clone())
            .unwrap_or_else(|| PathBuf::from("dubbo-admin-data")),
        users: file.users()?,
        session_key: file.session_key.clone(),
        qos_port: m
            .get_one::<u16>("qos-port")
            .copied()
            .or(file.qos_port)
            .unwrap_or(DEFAULT_QOS_PORT),
        qos_ports: qos_ports.into_iter().collect::<BTreeMap<_, _>>(),
        prometheus: m
            .get_one::<String>("prometheus")
            .cloned()
            .or(file.prometheus.clone()),
        watch_limit: m
            .get_one::<usize>("watch-limit")
            .copied()
            .or(file.watch_limit)
            .unwrap_or(DEFAULT_WATCH_LIMIT),
        tls: TlsFlags {
            ca: path_flag(m, "tls-ca").or(file.tls_ca.clone()),
            cert: path_flag(m, "tls-cert").or(file.tls_cert.clone()),
            key: path_flag(m, "tls-key").or(file.tls_key.clone()),
        }
        .checked()?,
    })
}

fn path_flag(m: &clap::ArgMatches, name: &str) -> Option<PathBuf> {
    m.get_one::<String>(name).map(PathBuf::from)
}

async fn serve(settings: Settings) -> Result<(), AdminError> {
    data_dir::ensure(&settings.data_dir)?;
    let key = data_dir::session_key(&settings.data_dir, settings.session_key.as_deref())?;
    let mut users = settings.users.clone();
    if users.is_empty() {
        // No configured user: an admin whose password is made here and told once, so no
        // password that works anywhere else ever opens this console.
        let (admin, told) = data_dir::generated_admin(&settings.data_dir)?;
        if let Some(password) = told {
            eprintln!(
                "dubbo-admin: no user configured; user admin has the generated password {password} (shown this once; only its digest is kept in {})",
                settings.data_dir.display()
            );
        }
        users.push(admin);
    }
    let port = settings.port;
    let state = Arc::new(AdminState::new(settings, users, key)?);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| AdminError::io(format!("127.0.0.1:{port}"), &e))?;
    // The first read of the registry starts now, so the first search finds it done or under
    // way; a failure here is told to the requests that follow (they read again).
    let first = state.clone();
    tokio::spawn(async move {
        if let Err(e) = first.catalog().await {
            tracing::warn!(error = %e, "reading the registry failed");
        }
    });
    let app = dubbo_admin::server::router(state.clone());
    println!("READY");
    eprintln!("dubbo-admin: http://127.0.0.1:{port}/");
    let served = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            dubbo_rs::wait_for_signal().await;
        })
        .await
        .map_err(|e| AdminError::io("serving", &e));
    state.shutdown().await;
    served
}

fn main() -> ExitCode {
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return dubbo_cli::parse_error_exit(&e, ExitCode::from(2)),
    };
    let outcome = settings(&matches).and_then(|settings| {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| AdminError::io("tokio runtime", &e))?;
        runtime.block_on(serve(settings))
    });
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("dubbo-admin: error [{}]: {e}", e.code());
            ExitCode::FAILURE
        }
    }
}
