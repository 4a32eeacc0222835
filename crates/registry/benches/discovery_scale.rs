//! How a consumer copes with very large registry pushes: time, allocations and retained bytes.
//!
//! `cargo bench -p dubbo-registry --bench discovery_scale` (results and machine in
//! docs/discovery.md). Scenarios:
//!
//! * `interface`: 100,000 provider node names, as ZooKeeper lists the children of
//!   `/dubbo/{interface}/providers`, each a real Java 3.3.6 provider URL (the fixture
//!   `tests/fixtures/java-3.3/nodes.json`, plus `pid` and three other common parameters: 20) at its own host, port,
//!   `timestamp` and `pid`. Names go through [`ParsedUrlCache`] (parse + interning) into an
//!   `Arc<[Url]>` applied with `DynamicDirectory::notify` (the consumer keeps it too).
//! * `interface re-apply`: the same 100,000 names again with one provider restarted (new
//!   `timestamp` and `pid`), through the cache (`ParsedUrlCache::parse_listing`, what the
//!   ZooKeeper registry does with each listing) and the directory.
//! * `application`: 1,000 applications of 1,000 instances each (10 services per application,
//!   3 metadata revisions per application), delivered as Curator JSON; each JSON becomes a
//!   [`ServiceInstance`] through the application's [`InstanceReader`], each instance the provider URLs of the consumer's service through
//!   the [`MetadataInfo`] of its revision (fetched once per revision, outside the timing:
//!   fetching is network), applied to one directory per application.
//!
//! The directory's invoker factory returns a trivial in-memory invoker: building real invokers
//! (connections) is not the subject; its bytes are counted in the retained figures.
//!
//! Retained bytes are the live heap (counting global allocator) after a scenario minus before
//! it, with the inputs (names, JSON) excluded, divided by URLs or instances.
//!
//! `DISCOVERY_SCALE_REPS` (default 5) sets the repetitions; `DISCOVERY_SCALE_APPS` (default
//! 1000) the number of applications; `DISCOVERY_SCALE_SERVICES_REFERRED` (default 1) how many
//! of each application's services the consumer refers to; `DISCOVERY_SCALE_THREADS` (default
//! 1) above 1 adds the JSON step alone with the applications split between that many threads.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_cluster::directory::DynamicDirectory;
use dubbo_core::{BoxFuture, ErrorCode, Invocation, Invoker, RpcError, RpcResult};
use dubbo_registry::{
    ChildChange, ChildListing, InstanceReader, InstanceUrls, MetadataInfo, ParsedUrlCache,
    ServiceInfo, ServiceInstance, ENDPOINTS_KEY, METADATA_SERVICE_PARAMS_KEY, METADATA_VERSION_KEY,
    REVISION_KEY, STORAGE_TYPE_KEY,
};
use dubbo_url::Url;

// ------------------------------------------------------------------ counting allocator

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[derive(Clone, Copy)]
struct Mark {
    at: Instant,
    cpu: Duration,
    live: usize,
    allocs: usize,
}

fn mark() -> Mark {
    let cpu = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Mark {
        at: Instant::now(),
        cpu: Duration::new(cpu.tv_sec as u64, cpu.tv_nsec as u32),
        live: LIVE.load(Ordering::Relaxed),
        allocs: ALLOCS.load(Ordering::Relaxed),
    }
}

/// Time, allocations and live-byte change since `m`.
#[derive(Clone, Copy, Default)]
struct Cost {
    time: Duration,
    cpu: Duration,
    allocs: usize,
    retained: isize,
}

fn since(m: Mark) -> Cost {
    let now = mark();
    Cost {
        time: now.at - m.at,
        cpu: now.cpu - m.cpu,
        allocs: now.allocs - m.allocs,
        retained: now.live as isize - m.live as isize,
    }
}

// ------------------------------------------------------------------ trivial invoker

struct Stub(Url);

impl Invoker for Stub {
    fn invoke(&self, _invocation: Invocation) -> BoxFuture<'_, RpcResult> {
        Box::pin(async { Err(RpcError::framework(ErrorCode::Forbidden, "stub")) })
    }
    fn url(&self) -> &Url {
        &self.0
    }
}

fn directory(consumer: &Url) -> DynamicDirectory {
    DynamicDirectory::new(
        consumer.clone(),
        Arc::new(|url: Url| async move { Ok(Arc::new(Stub(url)) as Arc<dyn Invoker>) }),
    )
}

// ------------------------------------------------------------------ inputs

/// The first Java 3.3.6 `dubbo://` provider URL of the captured ZooKeeper fixture, decoded.
fn java_template() -> Url {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/java-3.3/nodes.json"
    ))
    .unwrap();
    let nodes: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    let name = nodes
        .keys()
        .filter_map(|k| k.split_once("/providers/").map(|(_, n)| n))
        .find(|n| n.starts_with("dubbo%3A"))
        .unwrap();
    // Parameters Java 3.3 providers commonly add that the fixture's provider did not have, to
    // reach the usual twenty.
    Url::parse_encoded(name).unwrap().with_parameters([
        ("pid", "4242"),
        ("anyhost", "true"),
        ("background", "false"),
        ("executor-management-mode", "isolation"),
    ])
}

fn host(i: usize) -> String {
    format!("10.{}.{}.{}", (i >> 16) & 255, (i >> 8) & 255, i & 255)
}

const START_MS: u64 = 1_796_079_976_076;

/// The node name of provider `i` (restarted `gen` times).
fn provider_name(template: &Url, i: usize, gen: usize) -> String {
    template
        .with_host(&host(i))
        .with_port(20880 + (i % 64) as u16)
        .with_parameter(
            "timestamp",
            &(START_MS + (i * 7 + gen * 1_000_003) as u64).to_string(),
        )
        .with_parameter("pid", &(1000 + (i * 13 + gen) % 60_000).to_string())
        .to_encoded_full_string()
}

fn consumer_of(interface: &str) -> Url {
    Url::parse(&format!(
        "consumer://10.255.0.1/{interface}?interface={interface}&version=1.0.0&side=consumer&category=providers"
    ))
    .unwrap()
}

// ------------------------------------------------------------------ statistics

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

struct Row {
    name: String,
    per: &'static str,
    n: usize,
    times: Vec<f64>,
    cpu: Vec<f64>,
    allocs: Vec<f64>,
    retained: Vec<f64>,
}

impl Row {
    fn new(name: &str, per: &'static str, n: usize) -> Self {
        Self {
            name: name.to_owned(),
            per,
            n,
            times: Vec::new(),
            cpu: Vec::new(),
            allocs: Vec::new(),
            retained: Vec::new(),
        }
    }
    fn add(&mut self, c: Cost, retained: bool) {
        self.times.push(c.time.as_secs_f64() * 1e3);
        self.cpu.push(c.cpu.as_secs_f64() * 1e3);
        self.allocs.push(c.allocs as f64);
        if retained {
            self.retained.push(c.retained as f64);
        }
    }
    fn print(&self) {
        let times = &self.times;
        let (min, max) = times
            .iter()
            .fold((f64::MAX, 0f64), |(a, b), &t| (a.min(t), b.max(t)));
        let retained = if self.retained.is_empty() {
            "-".to_owned()
        } else {
            format!("{:.0}", median(self.retained.clone()) / self.n as f64)
        };
        println!(
            "| {:<44} | {:>9} | {:>10.2} | {:>10.2} | {:>8.2}–{:<8.2} | {:>12.0} | {:>7.2} | {:>12} |",
            self.name,
            self.n,
            median(times.clone()),
            median(self.cpu.clone()),
            min,
            max,
            median(self.allocs.clone()),
            median(self.allocs.clone()) / self.n as f64,
            format!("{retained} /{}", self.per),
        );
    }
}

fn header() {
    println!(
        "| {:<44} | {:>9} | {:>10} | {:>10} | {:>17} | {:>12} | {:>7} | {:>12} |",
        "step", "n", "p50 ms", "CPU p50 ms", "min–max ms", "allocs", "allocs/n", "retained B"
    );
    println!(
        "|{:-<46}|{:->11}|{:->12}|{:->12}|{:->19}|{:->14}|{:->9}|{:->14}|",
        "", "", "", "", "", "", "", ""
    );
}

// ------------------------------------------------------------------ scenarios

const PROVIDERS: usize = 100_000;

fn interface_level(reps: usize) {
    let template = java_template();
    let interface = template.service_interface().unwrap().to_owned();
    let consumer = consumer_of(&interface);
    let names: Vec<String> = (0..PROVIDERS)
        .map(|i| provider_name(&template, i, 0))
        .collect();
    println!(
        "\ninterface level: {PROVIDERS} providers, {} parameters, node name {} bytes (first)\n",
        template.params().len(),
        names[0].len()
    );

    let mut parse = Row::new("parse names (ParsedUrlCache, interner)", "URL", PROVIDERS);
    let mut notify = Row::new("DynamicDirectory::notify", "URL", PROVIDERS);
    let mut total = Row::new("first push, end to end", "URL", PROVIDERS);
    let mut reparse = Row::new("re-apply 1 changed: names → URLs", "URL", PROVIDERS);
    let mut release = Row::new("re-apply 1 changed: release last list", "URL", PROVIDERS);
    let mut renotify = Row::new("re-apply 1 changed: notify", "URL", PROVIDERS);
    let mut retotal = Row::new("re-apply 1 changed: end to end", "URL", PROVIDERS);
    let mut feed_first = Row::new("change feed: first change, end to end", "URL", PROVIDERS);
    let mut feed = Row::new("change feed, 1 restarted: apply, list", "URL", PROVIDERS);
    let mut feed_release = Row::new("change feed: release last list", "URL", PROVIDERS);
    let mut feed_notify = Row::new("change feed: notify", "URL", PROVIDERS);
    let mut feed_total = Row::new("change feed: end to end", "URL", PROVIDERS);
    for rep in 0..reps {
        let start = mark();
        let cache = ParsedUrlCache::new();
        let dir = directory(&consumer);
        let m = mark();
        let urls: Arc<[Url]> = names
            .iter()
            .map(|n| cache.get_or_parse(n).unwrap())
            .collect();
        parse.add(since(m), false);
        let m = mark();
        let outcome = futures::executor::block_on(dir.notify(Arc::clone(&urls)));
        notify.add(since(m), false);
        assert_eq!(outcome.added, PROVIDERS);
        total.add(since(start), true);
        // The consumer keeps the latest list (its watch channel holds it) and shares it with
        // the directory.
        let mut last = urls;

        // One provider restarts (new timestamp and pid) per re-apply.
        let mut current = names.clone();
        for gen in 1..=3 {
            let i = (rep * 7919 + gen * 104_729) % PROVIDERS;
            current[i] = provider_name(&template, i, gen);
            let start = mark();
            let urls: Arc<[Url]> = cache
                .parse_listing(current.iter().map(String::as_str))
                .into_iter()
                .map(Result::unwrap)
                .collect();
            reparse.add(since(start), false);
            // The watch channel takes the new list and lets the previous one go: whoever
            // holds it last (the channel or the directory) releases every `Url` in it.
            let m = mark();
            drop(std::mem::replace(&mut last, Arc::clone(&urls)));
            release.add(since(m), false);
            let m = mark();
            let outcome = futures::executor::block_on(dir.notify(urls));
            renotify.add(since(m), false);
            retotal.add(since(start), false);
            assert_eq!((outcome.changed, outcome.unchanged), (1, PROVIDERS - 1));
        }

        // The same restarts told by a change feed (ZooKeeper's persistent watches): the old
        // name deleted and the new one created, applied to the listing the registry keeps.
        let mut listing = ChildListing::new(cache);
        listing.relist(current.iter().map(String::as_str), |_| true);
        // What the registry notifies after its listing (the same URLs as the last push).
        last = listing.list();
        let outcome = futures::executor::block_on(dir.notify(Arc::clone(&last)));
        assert_eq!(outcome.unchanged, PROVIDERS);
        for gen in 4..=7 {
            let i = (rep * 7919 + gen * 104_729) % PROVIDERS;
            let old = std::mem::replace(&mut current[i], provider_name(&template, i, gen));
            let start = mark();
            let change = listing.apply(
                [
                    ChildChange::Deleted(&old),
                    ChildChange::Created(&current[i]),
                ],
                |_| true,
            );
            // What the registry notifies and the consumer and the directory share.
            let urls: Arc<[Url]> = listing.list();
            let apply = since(start);
            assert!(change.changed && change.errors.is_empty());
            let m = mark();
            drop(std::mem::replace(&mut last, Arc::clone(&urls)));
            let released = since(m);
            let m = mark();
            let outcome = futures::executor::block_on(dir.notify(urls));
            let notified = since(m);
            assert_eq!((outcome.changed, outcome.unchanged), (1, PROVIDERS - 1));
            // The first change after a listing writes into the copy the listing made; the
            // later ones into the list of two changes before, once nobody holds it.
            if gen == 4 {
                feed_first.add(since(start), false);
                continue;
            }
            feed.add(apply, false);
            feed_release.add(released, false);
            feed_notify.add(notified, false);
            feed_total.add(since(start), false);
        }
        drop((dir, listing, last));
    }
    header();
    for row in [
        &parse,
        &notify,
        &total,
        &reparse,
        &release,
        &renotify,
        &retotal,
        &feed_first,
        &feed,
        &feed_release,
        &feed_notify,
        &feed_total,
    ] {
        row.print();
    }
}

const INSTANCES_PER_APP: usize = 1000;
const SERVICES_PER_APP: usize = 10;
const REVISIONS_PER_APP: usize = 3;

/// The metadata of revision `rev` of `app`: ten services on the Java template's parameters;
/// revisions differ in one parameter of each service.
fn app_metadata(template: &Url, app: usize, rev: usize) -> MetadataInfo {
    let name = format!("app-{app}");
    let mut info = MetadataInfo::new(name.clone());
    for s in 0..SERVICES_PER_APP {
        let iface = service_name(app, s);
        let url = template
            .with_path(&iface)
            .with_parameter("interface", &iface)
            .with_parameter("application", &name)
            .with_parameter("revision", &format!("1.0.{rev}"));
        info.add_service(ServiceInfo::from_url(&url));
    }
    info.revision = info.calculate_revision();
    info
}

fn service_name(app: usize, s: usize) -> String {
    format!("org.example.app{app}.Service{s}")
}

/// Instance `i` of `app` as Curator JSON, with the metadata Java 3.3.6 writes.
fn instance_json(app: usize, i: usize, revision: &str) -> String {
    let n = app * INSTANCES_PER_APP + i;
    let mut instance = ServiceInstance::new(format!("app-{app}"), host(n), 20880);
    instance.registration_time = START_MS + n as u64;
    let m = &mut instance.metadata;
    m.insert(
        ENDPOINTS_KEY.into(),
        r#"[{"port":20880,"protocol":"dubbo"},{"port":50051,"protocol":"tri"}]"#.into(),
    );
    m.insert(
        METADATA_SERVICE_PARAMS_KEY.into(),
        r#"{"prefer.serialization":"hessian2,fastjson2","version":"2.0.0","dubbo":"2.0.2","release":"3.3.6","side":"provider","port":"50051","protocol":"tri"}"#.into(),
    );
    m.insert(REVISION_KEY.into(), revision.into());
    m.insert(STORAGE_TYPE_KEY.into(), "local".into());
    m.insert(METADATA_VERSION_KEY.into(), "2.0.0".into());
    m.insert("timestamp".into(), (START_MS + n as u64).to_string());
    instance.to_curator_json()
}

/// What the consumer keeps of one application: per reference the URL list and the
/// directory, and the discovery's reader of the application's instances. (The instance list
/// is handed to the resolving task and dropped once resolved.)
type AppState = (Vec<(Arc<[Url]>, DynamicDirectory)>, InstanceReader);

fn application_level(reps: usize, apps: usize, referred: usize) {
    let template = java_template();
    let instances = apps * INSTANCES_PER_APP;
    println!(
        "\napplication level: {apps} applications × {INSTANCES_PER_APP} instances, \
         {SERVICES_PER_APP} services and {REVISIONS_PER_APP} revisions each; \
         the consumer refers to {referred} service(s) per application\n"
    );
    // Metadata is fetched once per revision; that is network, so it is ready beforehand.
    let metadata: Vec<Vec<Arc<MetadataInfo>>> = (0..apps)
        .map(|a| {
            (0..REVISIONS_PER_APP)
                .map(|r| Arc::new(app_metadata(&template, a, r)))
                .collect()
        })
        .collect();
    let consumers: Vec<Vec<Url>> = (0..apps)
        .map(|a| {
            (0..referred)
                .map(|s| consumer_of(&service_name(a, s)))
                .collect()
        })
        .collect();

    let mut json_row = Row::new("Curator JSON → ServiceInstance", "inst", instances);
    let mut urls_row = Row::new("instances → URLs (MetadataInfo)", "inst", instances);
    let mut notify_row = Row::new("DynamicDirectory::notify", "inst", instances);
    let mut total_row = Row::new("all applications, end to end", "inst", instances);
    let mut handed_over = 0isize;
    for _ in 0..reps {
        let (mut json_c, mut urls_c, mut notify_c) =
            (Cost::default(), Cost::default(), Cost::default());
        let mut retained = 0isize;
        handed_over = 0;
        // What the consumer keeps: each reference's URL list and its directory; the discovery
        // keeps its reader (the shared metadata).
        let mut state: Vec<AppState> = Vec::with_capacity(apps);
        for (a, app_meta) in metadata.iter().enumerate() {
            let by_revision: HashMap<&str, &Arc<MetadataInfo>> =
                app_meta.iter().map(|m| (m.revision.as_str(), m)).collect();
            let jsons: Vec<String> = (0..INSTANCES_PER_APP)
                .map(|i| instance_json(a, i, &app_meta[i % REVISIONS_PER_APP].revision))
                .collect();
            let app_start = mark();
            let m = mark();
            // One reader per application, as the discovery keeps one per watched application.
            let mut reader = InstanceReader::new();
            let list: Vec<ServiceInstance> = jsons
                .iter()
                .map(|j| {
                    reader
                        .read_curator_json("/services/x/y", j.as_bytes())
                        .unwrap()
                })
                .collect();
            add(&mut json_c, since(m));
            let mut refs = Vec::with_capacity(referred);
            for consumer in &consumers[a] {
                let m = mark();
                // One builder per application and reference, as the consumer keeps one per
                // watched application.
                let mut builder = InstanceUrls::new();
                let mut urls = Vec::with_capacity(list.len());
                for instance in &list {
                    let info = by_revision[instance.revision()];
                    builder.push_urls(instance, info, consumer, &mut urls);
                }
                add(&mut urls_c, since(m));
                let m = mark();
                let dir = directory(consumer);
                // The consumer keeps the list it hands over; the directory shares it.
                let urls: Arc<[Url]> = urls.into();
                let outcome = futures::executor::block_on(dir.notify(Arc::clone(&urls)));
                add(&mut notify_c, since(m));
                assert_eq!(outcome.added, urls.len());
                refs.push((urls, dir));
            }
            // The consumer resolves the list and keeps the URLs only; the instances' bytes
            // are reported apart (what a discovery keeps per node is its own business).
            let m = mark();
            drop(list);
            let freed = -since(m).retained;
            json_c.retained -= freed;
            handed_over += freed;
            retained += since(app_start).retained;
            drop(jsons);
            state.push((refs, reader));
        }
        json_row.add(json_c, true);
        urls_row.add(urls_c, true);
        notify_row.add(notify_c, true);
        total_row.add(
            Cost {
                time: json_c.time + urls_c.time + notify_c.time,
                cpu: json_c.cpu + urls_c.cpu + notify_c.cpu,
                allocs: json_c.allocs + urls_c.allocs + notify_c.allocs,
                retained,
            },
            true,
        );
        drop(state);
    }
    header();
    for row in [&json_row, &urls_row, &notify_row, &total_row] {
        row.print();
    }
    println!(
        "\ninstance lists resolved and dropped by the consumer (not retained): {:.0} B/inst",
        handed_over as f64 / instances as f64
    );
}

/// The JSON step alone with the applications split between `threads` threads, as a
/// consumer's multi-threaded runtime decodes them (one watch task per application). JSON is
/// made for 50 applications at a time outside the timing; wall time is the decoding of all
/// chunks, CPU time the sum of the threads'.
fn application_json_parallel(reps: usize, apps: usize, threads: usize) {
    let template = java_template();
    let revisions: Vec<Vec<String>> = (0..apps)
        .map(|a| {
            (0..REVISIONS_PER_APP)
                .map(|r| app_metadata(&template, a, r).revision)
                .collect()
        })
        .collect();
    let instances = apps * INSTANCES_PER_APP;
    println!(
        "\napplication level, Curator JSON → ServiceInstance on {threads} threads \
         ({apps} applications × {INSTANCES_PER_APP} instances, applications split)\n"
    );
    let mut row = Row::new(
        &format!("Curator JSON → ServiceInstance, {threads} threads"),
        "inst",
        instances,
    );
    let app_ids: Vec<usize> = (0..apps).collect();
    for _ in 0..reps {
        let mut total = Cost::default();
        for chunk in app_ids.chunks(50) {
            let jsons: Vec<Vec<String>> = chunk
                .iter()
                .map(|&a| {
                    (0..INSTANCES_PER_APP)
                        .map(|i| instance_json(a, i, &revisions[a][i % REVISIONS_PER_APP]))
                        .collect()
                })
                .collect();
            let start = Instant::now();
            // The allocation counter is global: counted around all threads at once.
            let allocs = ALLOCS.load(Ordering::Relaxed);
            let per_thread = jsons.len().div_ceil(threads);
            let done: Vec<(Cost, _)> = std::thread::scope(|scope| {
                let handles: Vec<_> = jsons
                    .chunks(per_thread)
                    .map(|part| {
                        scope.spawn(move || {
                            let m = mark();
                            let mut kept = Vec::with_capacity(part.len());
                            for app in part {
                                let mut reader = InstanceReader::new();
                                let list: Vec<ServiceInstance> = app
                                    .iter()
                                    .map(|j| {
                                        reader
                                            .read_curator_json("/services/x/y", j.as_bytes())
                                            .unwrap()
                                    })
                                    .collect();
                                kept.push((list, reader));
                            }
                            // Dropped outside the timing, as the rows above do.
                            (since(m), kept)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            total.time += start.elapsed();
            total.allocs += ALLOCS.load(Ordering::Relaxed) - allocs;
            total.cpu += done.iter().map(|(c, _)| c.cpu).sum::<Duration>();
            drop(done);
        }
        row.add(total, false);
    }
    header();
    row.print();
}

fn add(into: &mut Cost, c: Cost) {
    into.time += c.time;
    into.cpu += c.cpu;
    into.allocs += c.allocs;
    into.retained += c.retained;
}

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks one scenario.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let reps = env("DISCOVERY_SCALE_REPS", 5).max(1);
    let wants = |s: &str| filter.as_deref().is_none_or(|f| s.contains(f));
    if wants("interface") {
        interface_level(reps);
    }
    let threads = env("DISCOVERY_SCALE_THREADS", 1);
    if threads > 1 && wants("application") {
        application_json_parallel(reps, env("DISCOVERY_SCALE_APPS", 1000).max(1), threads);
    }
    if wants("application") {
        application_level(
            reps,
            env("DISCOVERY_SCALE_APPS", 1000).max(1),
            env("DISCOVERY_SCALE_SERVICES_REFERRED", 1).clamp(1, SERVICES_PER_APP),
        );
    }
}
