//! The Prometheus text format (version 0.0.4) with Java Dubbo 3.3's metric names and labels.
//!
//! Java names its metrics with dots (`dubbo.provider.requests.total`) and Micrometer's
//! Prometheus registry turns the dots into underscores; the names below are those results,
//! so dashboards and alerts written for a Java application read a dubbo-rs one unchanged.
//! docs/observability.md has the full table.

use std::fmt::Write;
use std::time::Instant;

use dubbo_core::Side;

use crate::events::{EventFamily, EventMetrics, EventValue, FamilyKind, RtStat};
use crate::failure::FailureKind;
use crate::key::MetricKey;
use crate::method_metrics::MetricsSnapshot;
use crate::store::MetricsStore;

/// The labels that describe the process rather than the call, Java's application-level tags.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostLabels {
    /// The machine's host name (`hostname`).
    pub hostname: String,
    /// The address the application advertises (`ip`).
    pub ip: String,
    /// The application's version (`application_version`), left out when empty.
    pub application_version: String,
    /// The build's git commit (`git_commit_id`), left out when empty.
    pub git_commit_id: String,
}

/// The Prometheus text format's content type.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Whether a family counts (only goes up) or measures.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Counter,
    Gauge,
}

/// One metric family: the name after `dubbo_<side>_`, its help text, type and value.
struct Family {
    suffix: &'static str,
    help: &'static str,
    kind: Kind,
    value: fn(&MetricsSnapshot) -> Option<f64>,
}

fn n(v: u64) -> Option<f64> {
    Some(v as f64)
}

fn failed(s: &MetricsSnapshot, k: FailureKind) -> Option<f64> {
    n(s.failed(k))
}

fn window_failed(s: &MetricsSnapshot, k: FailureKind) -> Option<f64> {
    n(s.window.failed.get(k.index()).copied().unwrap_or(0))
}

fn quantile(s: &MetricsSnapshot, i: usize) -> Option<f64> {
    s.window.quantiles_ms.and_then(|q| q.get(i).copied())
}

/// Every family rendered, in Java's `MetricsKey` order.
const FAMILIES: &[Family] = &[
    Family {
        suffix: "requests_total",
        help: "Total Requests",
        kind: Kind::Counter,
        value: |s| n(s.total),
    },
    Family {
        suffix: "requests_succeed_total",
        help: "Total Succeed Requests",
        kind: Kind::Counter,
        value: |s| n(s.succeeded),
    },
    Family {
        suffix: "requests_business_failed_total",
        help: "Total Failed Business Requests",
        kind: Kind::Counter,
        value: |s| failed(s, FailureKind::Business),
    },
    Family {
        suffix: "requests_processing",
        help: "Processing Requests",
        kind: Kind::Gauge,
        value: |s| Some(s.processing as f64),
    },
    Family {
        suffix: "requests_timeout_total",
        help: "Total Timeout Failed Requests",
        kind: Kind::Counter,
        value: |s| failed(s, FailureKind::Timeout),
    },
    Family {
        suffix: "requests_limit_total",
        help: "Total Limit Failed Requests",
        kind: Kind::Counter,
        value: |s| failed(s, FailureKind::Limit),
    },
    Family {
        suffix: "requests_unknown_failed_total",
        help: "Total Unknown Failed Requests",
        kind: Kind::Counter,
        value: |s| failed(s, FailureKind::Unknown),
    },
    Family {
        suffix: "requests_failed_total",
        help: "Total Failed Requests",
        kind: Kind::Counter,
        value: |s| n(s.failed_total()),
    },
    Family {
        suffix: "requests_failed_network_total",
        help: "Total network Failed Requests",
        kind: Kind::Counter,
        value: |s| failed(s, FailureKind::Network),
    },
    Family {
        suffix: "requests_failed_service_unavailable_total",
        help: "Total Service Unavailable Failed Requests",
        kind: Kind::Counter,
        value: |s| failed(s, FailureKind::ServiceUnavailable),
    },
    Family {
        suffix: "requests_failed_codec_total",
        help: "Total Codec Failed Requests",
        kind: Kind::Counter,
        value: |s| failed(s, FailureKind::Codec),
    },
    Family {
        suffix: "requests_total_aggregate",
        help: "Aggregated Total Requests",
        kind: Kind::Gauge,
        value: |s| n(s.window.total),
    },
    Family {
        suffix: "requests_succeed_aggregate",
        help: "Aggregated Succeed Requests",
        kind: Kind::Gauge,
        value: |s| n(s.window.succeeded),
    },
    Family {
        suffix: "requests_failed_aggregate",
        help: "Aggregated Failed Requests",
        kind: Kind::Gauge,
        value: |s| window_failed(s, FailureKind::Unknown),
    },
    Family {
        suffix: "requests_business_failed_aggregate",
        help: "Aggregated Business Failed Requests",
        kind: Kind::Gauge,
        value: |s| window_failed(s, FailureKind::Business),
    },
    Family {
        suffix: "requests_timeout_failed_aggregate",
        help: "Aggregated timeout Failed Requests",
        kind: Kind::Gauge,
        value: |s| window_failed(s, FailureKind::Timeout),
    },
    Family {
        suffix: "requests_limit_aggregate",
        help: "Aggregated limit Requests",
        kind: Kind::Gauge,
        value: |s| window_failed(s, FailureKind::Limit),
    },
    Family {
        suffix: "requests_failed_total_aggregate",
        help: "Aggregated failed total Requests",
        kind: Kind::Gauge,
        value: |s| n(s.window.failed_total()),
    },
    Family {
        suffix: "requests_failed_network_total_aggregate",
        help: "Aggregated failed network total Requests",
        kind: Kind::Gauge,
        value: |s| window_failed(s, FailureKind::Network),
    },
    Family {
        suffix: "requests_failed_codec_total_aggregate",
        help: "Aggregated failed codec total Requests",
        kind: Kind::Gauge,
        value: |s| window_failed(s, FailureKind::Codec),
    },
    Family {
        suffix: "requests_failed_service_unavailable_total_aggregate",
        help: "Aggregated failed service unavailable total Requests",
        kind: Kind::Gauge,
        value: |s| window_failed(s, FailureKind::ServiceUnavailable),
    },
    Family {
        suffix: "qps_total",
        help: "Query Per Seconds",
        kind: Kind::Gauge,
        value: |s| Some(s.window.qps),
    },
    Family {
        suffix: "rt_milliseconds_last",
        help: "Last Response Time",
        kind: Kind::Gauge,
        value: |s| Some(s.rt_last_ms),
    },
    Family {
        suffix: "rt_milliseconds_min",
        help: "Min Response Time",
        kind: Kind::Gauge,
        value: |s| Some(s.rt_min_ms),
    },
    Family {
        suffix: "rt_milliseconds_max",
        help: "Max Response Time",
        kind: Kind::Gauge,
        value: |s| Some(s.rt_max_ms),
    },
    Family {
        suffix: "rt_milliseconds_sum",
        help: "Sum Response Time",
        kind: Kind::Gauge,
        value: |s| Some(s.rt_sum_ms),
    },
    Family {
        suffix: "rt_milliseconds_avg",
        help: "Average Response Time",
        kind: Kind::Gauge,
        value: |s| Some(s.rt_avg_ms),
    },
    Family {
        suffix: "rt_milliseconds_p99",
        help: "Response Time P99",
        kind: Kind::Gauge,
        value: |s| quantile(s, 3),
    },
    Family {
        suffix: "rt_milliseconds_p95",
        help: "Response Time P95",
        kind: Kind::Gauge,
        value: |s| quantile(s, 2),
    },
    Family {
        suffix: "rt_milliseconds_p90",
        help: "Response Time P90",
        kind: Kind::Gauge,
        value: |s| quantile(s, 1),
    },
    Family {
        suffix: "rt_milliseconds_p50",
        help: "Response Time P50",
        kind: Kind::Gauge,
        value: |s| quantile(s, 0),
    },
    Family {
        suffix: "rt_milliseconds_min_aggregate",
        help: "Aggregated Min Response",
        kind: Kind::Gauge,
        value: |s| s.window.rt_min_ms,
    },
    Family {
        suffix: "rt_milliseconds_max_aggregate",
        help: "Aggregated Max Response",
        kind: Kind::Gauge,
        value: |s| s.window.rt_max_ms,
    },
    Family {
        suffix: "rt_milliseconds_avg_aggregate",
        help: "Aggregated Avg Response",
        kind: Kind::Gauge,
        value: |s| s.window.rt_avg_ms,
    },
];

/// Every metric name rendered for `side`, e.g. `dubbo_provider_requests_total`, in order.
pub fn metric_names(side: Side) -> Vec<String> {
    FAMILIES
        .iter()
        .map(|f| format!("dubbo_{}_{}", side.as_str(), f.suffix))
        .collect()
}

/// Renders every key of `store` as of `now`.
pub fn render(store: &MetricsStore, host: &HostLabels, now: Instant) -> String {
    let entries: Vec<(MetricKey, MetricsSnapshot)> = store
        .entries()
        .into_iter()
        .map(|(k, m)| {
            let s = m.snapshot(now);
            (k, s)
        })
        .collect();
    let mut out = String::new();
    for side in [Side::Provider, Side::Consumer] {
        let of_side: Vec<&(MetricKey, MetricsSnapshot)> =
            entries.iter().filter(|(k, _)| k.side == side).collect();
        if of_side.is_empty() {
            continue;
        }
        for family in FAMILIES {
            let name = format!("dubbo_{}_{}", side.as_str(), family.suffix);
            header(&mut out, &name, family.help, family.kind);
            for (key, snap) in &of_side {
                if let Some(v) = (family.value)(snap) {
                    let _ = writeln!(out, "{name}{{{}}} {}", labels(key, host), number(v));
                }
            }
        }
    }
    out
}

/// The label set of a key, sorted by name as Micrometer writes it.
pub fn labels(key: &MetricKey, host: &HostLabels) -> String {
    label_text(
        vec![
            ("application_name", &key.application),
            ("group", &key.group),
            ("interface", &key.interface),
            ("method", &key.method),
            ("version", &key.version),
        ],
        host,
    )
}

/// `pairs` and the process's labels, sorted by name, in the text format.
fn label_text<'a>(mut pairs: Vec<(&'a str, &'a str)>, host: &'a HostLabels) -> String {
    pairs.push(("hostname", &host.hostname));
    pairs.push(("ip", &host.ip));
    if !host.application_version.is_empty() {
        pairs.push(("application_version", &host.application_version));
    }
    if !host.git_commit_id.is_empty() {
        pairs.push(("git_commit_id", &host.git_commit_id));
    }
    pairs.sort_by_key(|(k, _)| *k);
    let mut s = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        s.push_str(k);
        s.push_str("=\"");
        escape_into(&mut s, v);
        s.push('"');
    }
    s
}

/// Writes the `# HELP` and `# TYPE` lines of a family.
fn header(out: &mut String, name: &str, help: &str, kind: Kind) {
    let kind = match kind {
        Kind::Counter => "counter",
        Kind::Gauge => "gauge",
    };
    // Writing to a String cannot fail.
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// A part of a response-time family: name suffix, help text, value.
type RtPart = (&'static str, &'static str, fn(&RtStat) -> f64);

/// The parts Java renders for the response times of registry and metadata operations.
const RT_PARTS: [RtPart; 5] = [
    ("last", "Last Response Time", |r| r.last),
    ("min", "Min Response Time", |r| r.min),
    ("max", "Max Response Time", |r| r.max),
    ("sum", "Sum Response Time", |r| r.sum),
    ("avg", "Average Response Time", |r| {
        r.sum / r.count.max(1) as f64
    }),
];

/// Renders the registry, metadata and config-centre metrics of `events` (Java's names), then
/// dubbo-rs's own health of the metrics: calls folded by the per-service method cap, calls
/// dropped by the key cap, failed Pushgateway pushes.
pub fn render_events(events: &EventMetrics, store: &MetricsStore, host: &HostLabels) -> String {
    let mut out = String::new();
    let series = events.snapshot();
    let mut i = 0;
    while i < series.len() {
        let family = series[i].0;
        let end = series[i..]
            .iter()
            .position(|(f, _, _)| *f != family)
            .map_or(series.len(), |n| i + n);
        let group = &series[i..end];
        let (name, help, kind) = family.describe();
        if let EventFamily::Rt(_) = family {
            for (part, help, value) in RT_PARTS {
                let name = format!("{name}_rt_milliseconds_{part}");
                header(&mut out, &name, help, Kind::Gauge);
                for (_, labels, v) in group {
                    if let EventValue::Rt(rt) = v {
                        let text = event_labels(labels, host);
                        let _ = writeln!(out, "{name}{{{text}}} {}", number(value(rt)));
                    }
                }
            }
        } else {
            let kind = match kind {
                FamilyKind::Counter => Kind::Counter,
                FamilyKind::Gauge => Kind::Gauge,
            };
            header(&mut out, name, help, kind);
            for (_, labels, v) in group {
                let v = match v {
                    EventValue::Count(n) => *n as f64,
                    EventValue::Gauge(g) => *g,
                    EventValue::Rt(rt) => rt.last,
                };
                let text = event_labels(labels, host);
                let _ = writeln!(out, "{name}{{{text}}} {}", number(v));
            }
        }
        i = end;
    }
    let own: [(&str, &str, u64); 3] = [
        (
            "dubbo_rs_metrics_folded_calls_total",
            "Calls recorded under method __other__: their service had reached its cap of distinct methods",
            store.folded(),
        ),
        (
            "dubbo_rs_metrics_dropped_calls_total",
            "Calls not recorded: the metrics store had reached its cap of keys",
            store.dropped(),
        ),
        (
            "dubbo_rs_pushgateway_push_failed_total",
            "Pushes to the Prometheus Pushgateway that failed",
            events.push_failures(),
        ),
    ];
    for (name, help, v) in own {
        header(&mut out, name, help, Kind::Counter);
        let _ = writeln!(out, "{name}{{{}}} {v}", label_text(Vec::new(), host));
    }
    out
}

/// The request pools of application `app`'s servers with Java Dubbo 3.3's thread-pool metric
/// names (`dubbo_thread_pool_core_size`, ..., `dubbo_thread_pool_reject_thread_count`),
/// labelled by `thread_pool_name`.
pub fn render_thread_pools(
    pools: &[dubbo_core::ThreadPoolStats],
    app: &str,
    host: &HostLabels,
) -> String {
    type Figure = fn(&dubbo_core::ThreadPoolStats) -> f64;
    const FAMILIES: [(&str, &str, Kind, Figure); 7] = [
        ("core_size", "Thread Pool Core Size", Kind::Gauge, |p| {
            p.core_size as f64
        }),
        (
            "largest_size",
            "Thread Pool Largest Size",
            Kind::Gauge,
            |p| p.largest_size as f64,
        ),
        ("max_size", "Thread Pool Max Size", Kind::Gauge, |p| {
            p.max_size as f64
        }),
        ("active_size", "Thread Pool Active Size", Kind::Gauge, |p| {
            p.active_size as f64
        }),
        (
            "thread_count",
            "Thread Pool Thread Count",
            Kind::Gauge,
            |p| p.thread_count as f64,
        ),
        ("queue_size", "Thread Pool Queue Size", Kind::Gauge, |p| {
            p.queue_size as f64
        }),
        (
            "reject_thread_count",
            "Thread Pool Reject Thread Count",
            Kind::Counter,
            |p| p.rejected as f64,
        ),
    ];
    let mut out = String::new();
    if pools.is_empty() {
        return out;
    }
    for (part, help, kind, figure) in FAMILIES {
        let name = format!("dubbo_thread_pool_{part}");
        header(&mut out, &name, help, kind);
        for pool in pools {
            let labels = label_text(
                vec![("application_name", app), ("thread_pool_name", &pool.name)],
                host,
            );
            let _ = writeln!(out, "{name}{{{labels}}} {}", number(figure(pool)));
        }
    }
    out
}

/// Open connections of application `app`'s servers, one sample per (protocol, port):
/// `dubbo_rs_server_connections` (Java reports none).
pub fn render_connections(servers: &[(&str, u16, usize)], app: &str, host: &HostLabels) -> String {
    let mut out = String::new();
    if servers.is_empty() {
        return out;
    }
    let name = "dubbo_rs_server_connections";
    header(
        &mut out,
        name,
        "Open consumer connections of a server",
        Kind::Gauge,
    );
    for (protocol, port, count) in servers {
        let port = port.to_string();
        let labels = label_text(
            vec![
                ("application_name", app),
                ("protocol", protocol),
                ("port", &port),
            ],
            host,
        );
        let _ = writeln!(out, "{name}{{{labels}}} {count}");
    }
    out
}

fn event_labels(labels: &[(&'static str, String)], host: &HostLabels) -> String {
    label_text(labels.iter().map(|(k, v)| (*k, v.as_str())).collect(), host)
}

/// Escapes a label value: backslash, double quote and line feed, as the format requires.
fn escape_into(out: &mut String, v: &str) {
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// A sample value: integers without a fraction, others as Rust prints them (`2.5`).
fn number(v: f64) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else if v.is_nan() {
        "NaN".into()
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::KeyRef;
    use crate::window::WindowConfig;

    #[test]
    fn renders_java_names_and_labels() {
        let store = MetricsStore::new(WindowConfig::default(), 100);
        let now = Instant::now();
        let key = KeyRef {
            side: Side::Provider,
            application: "demo-provider",
            interface: "org.apache.dubbo.Greeter",
            method: "sayHello",
            group: "",
            version: "1.0.0",
        };
        let m = store.get(&key).unwrap();
        m.record(now, 2_500, None);
        m.record(now, 1_500, Some(FailureKind::Timeout));
        let consumer = KeyRef {
            side: Side::Consumer,
            interface: "we\"ird\\name\n",
            ..key
        };
        store.get(&consumer).unwrap().record(now, 1_000, None);
        let host = HostLabels {
            hostname: "h1".into(),
            ip: "10.0.0.1".into(),
            ..Default::default()
        };
        let text = render(&store, &host, now);
        let labels = "application_name=\"demo-provider\",group=\"\",hostname=\"h1\",\
                      interface=\"org.apache.dubbo.Greeter\",ip=\"10.0.0.1\",\
                      method=\"sayHello\",version=\"1.0.0\"";
        for line in [
            "# TYPE dubbo_provider_requests_total counter".to_owned(),
            format!("dubbo_provider_requests_total{{{labels}}} 2"),
            format!("dubbo_provider_requests_succeed_total{{{labels}}} 1"),
            format!("dubbo_provider_requests_timeout_total{{{labels}}} 1"),
            format!("dubbo_provider_requests_failed_total{{{labels}}} 1"),
            format!("dubbo_provider_requests_business_failed_total{{{labels}}} 0"),
            format!("dubbo_provider_requests_processing{{{labels}}} 0"),
            format!("dubbo_provider_rt_milliseconds_last{{{labels}}} 1.5"),
            format!("dubbo_provider_rt_milliseconds_sum{{{labels}}} 4"),
            format!("dubbo_provider_rt_milliseconds_avg{{{labels}}} 2"),
            "# TYPE dubbo_provider_rt_milliseconds_p99 gauge".to_owned(),
            "# TYPE dubbo_consumer_requests_total counter".to_owned(),
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
        assert!(
            text.contains("interface=\"we\\\"ird\\\\name\\n\""),
            "{text}"
        );
        assert_eq!(
            metric_names(Side::Consumer)[0],
            "dubbo_consumer_requests_total"
        );
    }

    #[test]
    fn renders_registry_metadata_and_config_centre_families() {
        use std::time::Duration;
        let events = EventMetrics::default();
        events.registered("demo", "zk", true, Duration::from_millis(3));
        events.service_registered("demo", "org.Greeter", "zk", false, Duration::from_millis(1));
        events.notified("demo", "org.Greeter", 2, Duration::from_millis(1));
        events.metadata_subscribed("demo", true);
        events.config_changed("demo", "demo.configurators", "dubbo", "zookeeper", "added");
        events.config_changed("demo", "demo.configurators", "dubbo", "zookeeper", "added");
        events.push_failed();
        let store = MetricsStore::default();
        let host = HostLabels {
            hostname: "h1".into(),
            ip: "10.0.0.1".into(),
            ..Default::default()
        };
        let text = render_events(&events, &store, &host);
        let app = "application_name=\"demo\",hostname=\"h1\",ip=\"10.0.0.1\"";
        for line in [
            "# TYPE dubbo_registry_register_requests_total counter".to_owned(),
            format!("dubbo_registry_register_requests_total{{{app},registry_cluster=\"zk\"}} 1"),
            format!("dubbo_registry_register_requests_failed_total{{{app},registry_cluster=\"zk\"}} 0"),
            format!("dubbo_register_rt_milliseconds_max{{{app},registry_cluster=\"zk\"}} 3"),
            "dubbo_registry_register_service_failed_total{application_name=\"demo\",hostname=\"h1\",\
             interface=\"org.Greeter\",ip=\"10.0.0.1\",registry_cluster=\"zk\"} 1"
                .to_owned(),
            format!("dubbo_registry_notify_requests_total{{{app}}} 1"),
            "dubbo_registry_notify_num_last{application_name=\"demo\",hostname=\"h1\",\
             interface=\"org.Greeter\",ip=\"10.0.0.1\"} 2"
                .to_owned(),
            format!("dubbo_metadata_subscribe_num_succeed_total{{{app}}} 1"),
            "dubbo_configcenter_total{application_name=\"demo\",change_type=\"added\",\
             config_center=\"zookeeper\",group=\"dubbo\",hostname=\"h1\",ip=\"10.0.0.1\",\
             key=\"demo.configurators\"} 2"
                .to_owned(),
            "# TYPE dubbo_configcenter_total gauge".to_owned(),
            "dubbo_rs_pushgateway_push_failed_total{hostname=\"h1\",ip=\"10.0.0.1\"} 1".to_owned(),
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        // Each family is described once, as a Pushgateway requires.
        let mut types: Vec<&str> = text.lines().filter(|l| l.starts_with("# TYPE")).collect();
        let n = types.len();
        types.sort_unstable();
        types.dedup();
        assert_eq!(types.len(), n);
    }

    #[test]
    fn empty_store_renders_nothing() {
        let store = MetricsStore::default();
        assert_eq!(render(&store, &HostLabels::default(), Instant::now()), "");
    }
}
