//! The results table (stdout) and CSV rows of `dubbo-bench`.

use std::io::Write;

use crate::args::Options;
use crate::runner::RunStats;

/// CSV header, matching [`csv_row`].
pub const CSV_HEADER: &str = "label,target,scenario,mode,concurrency,connections,duration_s,calls,errors,qps,msgs_per_s,p50_us,p90_us,p99_us,p999_us,max_us,server_cpu_us_per_call,server_rss_mib,server_peak_rss_mib,client_cpu_pct,other_cpu_pct,first_error";

fn opt(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => String::new(),
    }
}

fn mode(o: &Options) -> String {
    match o.rate {
        Some(r) => format!("open@{r:.0}/s"),
        None => "closed".to_owned(),
    }
}

/// One CSV row (no newline).
pub fn csv_row(o: &Options, s: &RunStats) -> String {
    let err = s
        .first_error
        .as_deref()
        .unwrap_or("")
        .replace(['"', '\n', '\r'], " ");
    [
        o.label.clone(),
        o.target.name().to_owned(),
        o.scenario.name().to_owned(),
        mode(o),
        o.concurrency.to_string(),
        o.connections.to_string(),
        format!("{:.2}", s.elapsed.as_secs_f64()),
        s.calls.to_string(),
        s.errors.to_string(),
        format!("{:.0}", s.qps()),
        format!("{:.0}", s.msgs_per_sec()),
        format!("{:.1}", s.quantile_us(0.50)),
        format!("{:.1}", s.quantile_us(0.90)),
        format!("{:.1}", s.quantile_us(0.99)),
        format!("{:.1}", s.quantile_us(0.999)),
        format!("{:.1}", s.latency_ns.max() as f64 / 1000.0),
        opt(s.server_cpu_us_per_call(), 2),
        opt(s.server_rss_kib.map(|k| k as f64 / 1024.0), 1),
        opt(s.server_peak_rss_kib.map(|k| k as f64 / 1024.0), 1),
        opt(s.client_cpu_pct(), 0),
        opt(s.other_cpu_pct(), 0),
        format!("\"{err}\""),
    ]
    .join(",")
}

/// Appends a row to `path`, writing the header first if the file is new or empty.
pub fn append_csv(path: &str, o: &Options, s: &RunStats) -> std::io::Result<()> {
    let new = std::fs::metadata(path)
        .map(|m| m.len() == 0)
        .unwrap_or(true);
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    if new {
        writeln!(f, "{CSV_HEADER}")?;
    }
    writeln!(f, "{}", csv_row(o, s))
}

/// The human-readable results table.
pub fn table(o: &Options, s: &RunStats) -> String {
    let mut out = String::new();
    let head = [
        "label",
        "target",
        "scenario",
        "mode",
        "conc",
        "conns",
        "calls",
        "errors",
        "QPS",
        "msgs/s",
        "p50 µs",
        "p90 µs",
        "p99 µs",
        "p999 µs",
        "max µs",
        "srv CPU µs/call",
        "srv RSS MiB",
        "cli CPU %",
        "other CPU %",
    ];
    let row = [
        o.label.clone(),
        o.target.name().to_owned(),
        o.scenario.name().to_owned(),
        mode(o),
        o.concurrency.to_string(),
        o.connections.to_string(),
        s.calls.to_string(),
        s.errors.to_string(),
        format!("{:.0}", s.qps()),
        format!("{:.0}", s.msgs_per_sec()),
        format!("{:.1}", s.quantile_us(0.50)),
        format!("{:.1}", s.quantile_us(0.90)),
        format!("{:.1}", s.quantile_us(0.99)),
        format!("{:.1}", s.quantile_us(0.999)),
        format!("{:.1}", s.latency_ns.max() as f64 / 1000.0),
        opt(s.server_cpu_us_per_call(), 2),
        opt(s.server_rss_kib.map(|k| k as f64 / 1024.0), 1),
        opt(s.client_cpu_pct(), 0),
        opt(s.other_cpu_pct(), 0),
    ];
    let widths: Vec<usize> = head
        .iter()
        .zip(row.iter())
        .map(|(h, r)| h.chars().count().max(r.chars().count()))
        .collect();
    let line = |cells: &[String]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:>w$}"))
            .collect::<Vec<_>>()
            .join("  ")
    };
    let head: Vec<String> = head.iter().map(|s| s.to_string()).collect();
    out.push_str(&line(&head));
    out.push('\n');
    out.push_str(&line(&row));
    out.push('\n');
    if let Some(e) = &s.first_error {
        out.push_str(&format!("first error: {e}\n"));
    }
    out
}
