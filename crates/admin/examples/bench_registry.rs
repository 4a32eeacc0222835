//! Fills a ZooKeeper with a large registry in Apache Dubbo's layout, for the admin's
//! benchmark (`scripts/bench-admin.sh`):
//!
//! ```text
//! cargo run --release -p dubbo-admin --example bench_registry -- \
//!     127.0.0.1:2181 [--services 10000] [--apps 1000] [--per-service 10] [--model both]
//! ```
//!
//! Service `i` (`com.example.<domain>.<Noun>Service<i>`, version `1.0.0`, every tenth in group
//! `g<i % 3>`) belongs to application `<domain>-<noun>-<a>` (`a = i % apps`) and has
//! `per-service` providers, each an instance of its own (`10.x.y.z:20880`, dubbo://), so the
//! registry holds `services × per-service` instances. `--model interface` writes the provider
//! URLs (`/dubbo/<interface>/providers/<URL>`), `application` the instances
//! (`/services/<app>/<host:port>`, Curator JSON) and one metadata revision per service in the
//! metadata report (`/dubbo/metadata/<app>/<revision>`), `both` (the default) all of it: an
//! application registered both ways, as Dubbo 3 does by default.
//!
//! Nodes are persistent (the registry outlives this program) and written pipelined, many
//! requests in flight; a node that exists already is left as it is, so a second run completes
//! a partial one. Progress goes to stderr, one summary line (`GENERATED ...`) to stdout.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use dubbo_registry::{
    MetadataInfo, ServiceInfo, ServiceInstance, ENDPOINTS_KEY, REVISION_KEY, STORAGE_TYPE_KEY,
};
use futures::stream::{self, StreamExt};
use zookeeper_client as zk;

const DOMAINS: [&str; 10] = [
    "order",
    "payment",
    "user",
    "inventory",
    "search",
    "shipping",
    "billing",
    "catalog",
    "review",
    "notify",
];
const NOUNS: [&str; 8] = [
    "Query", "Command", "Account", "Price", "Stock", "Report", "Event", "Profile",
];
const IN_FLIGHT: usize = 2000;
const PORT: u16 = 20880;

struct Args {
    zookeeper: String,
    services: usize,
    apps: usize,
    per_service: usize,
    interface: bool,
    application: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = std::env::args().skip(1);
    let mut out = Args {
        zookeeper: String::new(),
        services: 10_000,
        apps: 1_000,
        per_service: 10,
        interface: true,
        application: true,
    };
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--services" => out.services = number(&value("--services")?)?,
            "--apps" => out.apps = number(&value("--apps")?)?,
            "--per-service" => out.per_service = number(&value("--per-service")?)?,
            "--model" => match value("--model")?.as_str() {
                "interface" => out.application = false,
                "application" => out.interface = false,
                "both" => {}
                other => return Err(format!("--model {other}: interface, application or both")),
            },
            _ if out.zookeeper.is_empty() && !a.starts_with('-') => out.zookeeper = a,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if out.zookeeper.is_empty() || out.apps == 0 || out.services < out.apps {
        return Err("usage: bench_registry HOST:PORT [--services N] [--apps A <= N] [--per-service P] [--model interface|application|both]".into());
    }
    Ok(out)
}

fn number(s: &str) -> Result<usize, String> {
    s.parse().map_err(|_| format!("{s:?} is not a number"))
}

/// One service of the generated registry.
struct Service {
    interface: String,
    app: String,
    group: Option<String>,
}

fn service(i: usize, apps: usize) -> Service {
    let a = i % apps;
    let domain = DOMAINS[a % DOMAINS.len()];
    let noun = NOUNS[(i / apps) % NOUNS.len()];
    Service {
        interface: format!("com.example.{domain}.{noun}Service{i}"),
        app: format!("{domain}-{}-{a}", NOUNS[a % NOUNS.len()].to_lowercase()),
        group: (i % 10 == 9).then(|| format!("g{}", i % 3)),
    }
}

/// The host of instance `k`: `10.a.b.c`, distinct for every `k` below 2^24.
fn host(k: usize) -> String {
    format!("10.{}.{}.{}", (k >> 16) & 255, (k >> 8) & 255, k & 255)
}

fn provider_url(s: &Service, host: &str) -> String {
    let group = s
        .group
        .as_ref()
        .map(|g| format!("&group={g}"))
        .unwrap_or_default();
    format!(
        "dubbo://{host}:{PORT}/{i}?anyhost=true&application={app}&deprecated=false&dubbo=2.0.2&dynamic=true&generic=false{group}&interface={i}&methods=find,get,list,update&pid=4242&release=3.3.0&side=provider&timestamp=1764900000000&version=1.0.0",
        i = s.interface,
        app = s.app,
    )
}

fn metadata(s: &Service) -> MetadataInfo {
    let mut info = MetadataInfo::new(s.app.clone());
    info.add_service(ServiceInfo {
        name: s.interface.clone(),
        group: s.group.clone(),
        version: Some("1.0.0".into()),
        protocol: "dubbo".into(),
        port: PORT,
        path: s.interface.clone(),
        params: BTreeMap::from([
            ("application".to_owned(), s.app.clone()),
            ("methods".to_owned(), "find,get,list,update".to_owned()),
            ("side".to_owned(), "provider".to_owned()),
        ]),
    });
    info
}

fn instance_json(s: &Service, host: &str, revision: &str) -> String {
    let mut i = ServiceInstance::new(s.app.clone(), host, PORT);
    i.metadata.insert(REVISION_KEY.into(), revision.into());
    i.metadata.insert(STORAGE_TYPE_KEY.into(), "remote".into());
    i.metadata.insert(
        ENDPOINTS_KEY.into(),
        format!(r#"[{{"port":{PORT},"protocol":"dubbo"}}]"#),
    );
    i.metadata
        .insert("timestamp".into(), "1764900000000".into());
    i.to_curator_json()
}

/// Creates every node of `nodes` (path, data), `IN_FLIGHT` requests at a time; an existing
/// node counts as written.
async fn create_all(
    client: &zk::Client,
    what: &str,
    nodes: Vec<(String, Vec<u8>)>,
) -> Result<(), zk::Error> {
    let total = nodes.len();
    let options = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    let started = Instant::now();
    let mut last = Instant::now();
    let mut done = 0usize;
    let mut results = stream::iter(nodes.iter())
        .map(|(path, data)| client.create(path, data, &options))
        .buffer_unordered(IN_FLIGHT);
    while let Some(r) = results.next().await {
        match r {
            Ok(_) | Err(zk::Error::NodeExists) => {}
            Err(e) => return Err(e),
        }
        done += 1;
        if last.elapsed() >= Duration::from_secs(1) || done == total {
            last = Instant::now();
            let rate = done as f64 / started.elapsed().as_secs_f64().max(1e-3);
            eprintln!("bench_registry: {what}: {done}/{total} ({rate:.0}/s)");
        }
    }
    Ok(())
}

async fn run(args: Args) -> Result<(), String> {
    let client = zk::Client::connector()
        .with_session_timeout(Duration::from_secs(60))
        .connect(&args.zookeeper)
        .await
        .map_err(|e| format!("connecting to {}: {e}", args.zookeeper))?;
    let started = Instant::now();
    let services: Vec<Service> = (0..args.services).map(|i| service(i, args.apps)).collect();
    let mut dirs: Vec<String> = vec![
        "/dubbo".into(),
        "/services".into(),
        "/dubbo/metadata".into(),
    ];
    let mut leaves: Vec<(String, Vec<u8>)> = Vec::new();
    let mut app_dirs = std::collections::BTreeSet::new();
    for (i, s) in services.iter().enumerate() {
        let encoded = dubbo_url::encode(&s.interface);
        if args.interface {
            dirs.push(format!("/dubbo/{encoded}"));
            dirs.push(format!("/dubbo/{encoded}/providers"));
        }
        let info = metadata(s);
        if args.application && app_dirs.insert(s.app.clone()) {
            dirs.push(format!("/services/{}", s.app));
            dirs.push(format!("/dubbo/metadata/{}", s.app));
        }
        if args.application {
            leaves.push((
                format!("/dubbo/metadata/{}/{}", s.app, info.revision),
                info.to_json().into_bytes(),
            ));
        }
        for r in 0..args.per_service {
            let h = host(i * args.per_service + r);
            if args.interface {
                let url = dubbo_url::encode(&provider_url(s, &h));
                leaves.push((format!("/dubbo/{encoded}/providers/{url}"), Vec::new()));
            }
            if args.application {
                leaves.push((
                    format!("/services/{}/{h}:{PORT}", s.app),
                    instance_json(s, &h, &info.revision).into_bytes(),
                ));
            }
        }
    }
    // Parents before children: the top three first, then the rest.
    let rest = dirs.split_off(3);
    let options = zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
    for d in dirs {
        match client.create(&d, &[], &options).await {
            Ok(_) | Err(zk::Error::NodeExists) => {}
            Err(e) => return Err(format!("creating {d}: {e}")),
        }
    }
    let (first, second): (Vec<String>, Vec<String>) =
        rest.into_iter().partition(|d| !d.ends_with("/providers"));
    let dirs = |v: Vec<String>| v.into_iter().map(|d| (d, Vec::new())).collect();
    create_all(&client, "directories", dirs(first))
        .await
        .map_err(|e| e.to_string())?;
    create_all(&client, "provider directories", dirs(second))
        .await
        .map_err(|e| e.to_string())?;
    let count = leaves.len();
    create_all(&client, "providers, instances and metadata", leaves)
        .await
        .map_err(|e| e.to_string())?;
    println!(
        "GENERATED services={} apps={} instances={} nodes={} seconds={:.1}",
        args.services,
        args.apps,
        args.services * args.per_service,
        count,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

fn main() -> std::process::ExitCode {
    let outcome = parse_args().and_then(|args| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?
            .block_on(run(args))
    });
    match outcome {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_registry: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
