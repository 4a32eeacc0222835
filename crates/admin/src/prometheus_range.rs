//! An instance's requests per second over time, from a Prometheus server that scrapes the
//! instances (`prometheus:` in the configuration, `--prometheus`; typically through the
//! admin's own `http_sd_configs` discovery): its HTTP API's `query_range`, asked
//! `sum by (method) (rate(dubbo_provider_requests_total{instance="QOS"}[1m]))` for the
//! instance's QoS address, which is the target Prometheus scrapes and so its `instance` label.
//! A service's charts sum its providers' series by the metrics' `interface`, `version` and
//! `group` labels (dubbo-rs's and Java 3.3's, empty when the service has none): requests/s,
//! failed requests/s and the average response time.

use serde_json::{json, Value};

use crate::error::AdminError;
use crate::qos_metrics::http_get;

/// The most points a series is asked for (the step grows with the range).
pub const POINTS: u64 = 240;

/// The longest range asked for, in minutes (a day).
pub const MAX_MINUTES: u64 = 24 * 60;

/// The PromQL of the request rates by method of the instance scraped at `qos_address`.
pub fn rate_query(qos_address: &str) -> String {
    let address = qos_address.replace('\\', "\\\\").replace('"', "\\\"");
    format!("sum by (method) (rate(dubbo_provider_requests_total{{instance=\"{address}\"}}[1m]))")
}

/// The label matchers of one service's metrics: `interface`, `version`, `group` (an empty
/// value matches the series without it too, as Prometheus reads `label=""`).
pub fn service_selector(interface: &str, version: &str, group: &str) -> String {
    let quote = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        "interface=\"{}\",version=\"{}\",group=\"{}\"",
        quote(interface),
        quote(version),
        quote(group)
    )
}

/// The service's charts: (name, PromQL), summed over every provider Prometheus scrapes.
pub fn service_queries(interface: &str, version: &str, group: &str) -> Vec<(&'static str, String)> {
    let s = service_selector(interface, version, group);
    vec![
        (
            "requests/s",
            format!("sum(rate(dubbo_provider_requests_total{{{s}}}[1m]))"),
        ),
        (
            "failed requests/s",
            format!("sum(rate(dubbo_provider_requests_failed_total{{{s}}}[1m]))"),
        ),
        (
            "average response time (ms)",
            format!(
                "sum(rate(dubbo_provider_rt_milliseconds_sum{{{s}}}[1m])) / sum(rate(dubbo_provider_requests_total{{{s}}}[1m]))"
            ),
        ),
    ]
}

/// The range of the last `minutes` before `end`: (start, step), `minutes` clamped.
fn window(minutes: u64, end: u64) -> (u64, u64) {
    let minutes = minutes.clamp(1, MAX_MINUTES);
    let step = (minutes * 60 / POINTS).max(1);
    (end.saturating_sub(minutes * 60), step)
}

/// One `query_range` of `query` at the server `base`, its series.
async fn query_range(
    base: &str,
    query: &str,
    start: u64,
    end: u64,
    step: u64,
) -> Result<Vec<Value>, AdminError> {
    let (address, prefix) = split_base(base)?;
    let target = format!(
        "{prefix}/api/v1/query_range?query={}&start={start}&end={end}&step={step}",
        dubbo_url::encode(query)
    );
    let body = http_get(address, &target, "application/json").await?;
    let answer: Value = serde_json::from_str(&body)
        .map_err(|e| AdminError::io(format!("Prometheus at {base}"), &e))?;
    series(&answer).map_err(|why| AdminError::io(format!("Prometheus at {base}"), &why))
}

/// The service's charts over the last `minutes` before `end`: `{"source": "prometheus",
/// "start", "end", "step", "charts": [{"name", "query", "points": [[time, value], ...]}]}`
/// (a chart with no series yet has no points).
pub async fn service_rates(
    base: &str,
    interface: &str,
    version: &str,
    group: &str,
    minutes: u64,
    end: u64,
) -> Result<Value, AdminError> {
    let (start, step) = window(minutes, end);
    let mut charts = Vec::new();
    for (name, query) in service_queries(interface, version, group) {
        let series = query_range(base, &query, start, end, step).await?;
        let points = series
            .into_iter()
            .next()
            .map(|s| s["points"].clone())
            .unwrap_or_else(|| json!([]));
        charts.push(json!({ "name": name, "query": query, "points": points }));
    }
    Ok(json!({
        "source": "prometheus",
        "start": start,
        "end": end,
        "step": step,
        "charts": charts,
    }))
}

/// `host:port` and the path prefix of a Prometheus base URL (`http://host:port[/prefix]`).
fn split_base(base: &str) -> Result<(&str, &str), AdminError> {
    let rest = base.strip_prefix("http://").ok_or_else(|| {
        AdminError::Config(format!(
            "prometheus {base:?}: only http:// servers are read"
        ))
    })?;
    let (address, prefix) = match rest.find('/') {
        Some(at) => (&rest[..at], rest[at..].trim_end_matches('/')),
        None => (rest, ""),
    };
    Ok((address, prefix))
}

/// The request rates by method of the instance scraped at `qos_address` over the last
/// `minutes` before `end` (seconds since the epoch): `{"source": "prometheus", "query",
/// "start", "end", "step", "series": [{"method", "points": [[time, value], ...]}]}`.
pub async fn request_rates(
    base: &str,
    qos_address: &str,
    minutes: u64,
    end: u64,
) -> Result<Value, AdminError> {
    let (start, step) = window(minutes, end);
    let query = rate_query(qos_address);
    let series = query_range(base, &query, start, end, step).await?;
    Ok(json!({
        "source": "prometheus",
        "query": query,
        "start": start,
        "end": end,
        "step": step,
        "series": series,
    }))
}

/// The series of a `query_range` answer (`{"status": "success", "data": {"resultType":
/// "matrix", "result": [{"metric": {...}, "values": [[t, "v"], ...]}]}}`), values as numbers.
pub fn series(answer: &Value) -> Result<Vec<Value>, String> {
    if answer["status"] != "success" {
        return Err(format!(
            "the query failed: {}",
            answer["error"].as_str().unwrap_or("no error given")
        ));
    }
    let Some(result) = answer["data"]["result"].as_array() else {
        return Err("no result matrix".to_owned());
    };
    Ok(result
        .iter()
        .map(|s| {
            let points: Vec<Value> = s["values"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| {
                    let t = p.get(0)?.as_f64()?;
                    let v = p.get(1)?.as_str()?.parse::<f64>().ok()?;
                    v.is_finite().then(|| json!([t, v]))
                })
                .collect();
            json!({
                "method": s["metric"]["method"].as_str().unwrap_or("?"),
                "points": points,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_the_instance_and_answers_become_series() {
        assert_eq!(
            rate_query("127.0.0.1:22222"),
            r#"sum by (method) (rate(dubbo_provider_requests_total{instance="127.0.0.1:22222"}[1m]))"#
        );
        assert_eq!(
            split_base("http://127.0.0.1:9090/prom/").unwrap(),
            ("127.0.0.1:9090", "/prom")
        );
        assert!(split_base("https://p:9090").is_err());
        let answer = json!({"status": "success", "data": {"resultType": "matrix", "result": [
            {"metric": {"method": "sayHello"}, "values": [[1700000000.5, "2.5"], [1700000001, "NaN"]]}
        ]}});
        assert_eq!(
            series(&answer).unwrap(),
            vec![json!({"method": "sayHello", "points": [[1700000000.5, 2.5]]})]
        );
        assert!(series(&json!({"status": "error", "error": "bad"})).is_err());
    }

    #[test]
    fn a_services_queries_select_it_by_its_labels() {
        let queries = service_queries("org.Svc", "1.0.0", "");
        let names: Vec<_> = queries.iter().map(|(n, _)| *n).collect();
        assert_eq!(
            names,
            [
                "requests/s",
                "failed requests/s",
                "average response time (ms)"
            ]
        );
        assert_eq!(
            queries[0].1,
            r#"sum(rate(dubbo_provider_requests_total{interface="org.Svc",version="1.0.0",group=""}[1m]))"#
        );
        assert!(queries[2].1.contains("dubbo_provider_rt_milliseconds_sum{"));
        assert_eq!(
            service_selector("a\"b", "", "g"),
            r#"interface="a\"b",version="",group="g""#
        );
        assert_eq!(window(5, 10_000), (9_700, 1));
        assert_eq!(window(0, 100), (40, 1));
    }
}
