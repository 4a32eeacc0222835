//! The built-in `org.apache.dubbo.metrics.service.MetricsService`: the application's metrics
//! over RPC, as Java Dubbo 3.3 serves them to tools that would rather call than scrape.
//!
//! Served (group = application name, version `1.0.0`, not registered) when
//! `dubbo.metrics.export-metrics-service` is `true`. The answer is built from the same samples
//! as the Prometheus text, with Java's dotted names (`dubbo.provider.requests.total`) and tag
//! keys (`application.name`), grouped by Java's `MetricsCategory`.

use std::sync::{Arc, Weak};

use dubbo_core::{
    BoxFuture, MethodSignature, Payload, RequestContext, RpcError, ServiceHandler, ServiceKey,
    Value,
};
use dubbo_metrics::prometheus::HostLabels;

use crate::application::{AppInner, Application};

/// The interface name Java callers use.
pub(crate) const INTERFACE: &str = "org.apache.dubbo.metrics.service.MetricsService";
/// The version it is exported with; the group is the application's name.
pub(crate) const VERSION: &str = "1.0.0";
const CATEGORY_CLASS: &str = "org.apache.dubbo.metrics.model.MetricsCategory";
const ENTITY_CLASS: &str = "org.apache.dubbo.metrics.service.MetricsEntity";
const LIST: &str = "java.util.List";
const STRING: &str = "java.lang.String";
const MAP: &str = "java.util.Map";

/// Serves the MetricsService once the application is ready, when
/// `dubbo.metrics.export-metrics-service` asks for it; an `export-service-protocol` that names
/// no configured protocol is refused now, naming the key.
pub(crate) fn install(app: &Application) -> Result<(), crate::config::ConfigError> {
    let metrics = &app.config().metrics;
    if metrics.export_metrics_service != Some(true) {
        if metrics.export_service_protocol.is_some() {
            return Err(crate::config::ConfigError::invalid(
                "dubbo.metrics.export-service-protocol",
                "has no effect unless dubbo.metrics.export-metrics-service is true",
            ));
        }
        return Ok(());
    }
    let protocols = app.config().all_protocols();
    let id = match &metrics.export_service_protocol {
        Some(id) => {
            if !protocols.iter().any(|(p, _)| p == id) {
                return Err(crate::config::ConfigError::invalid(
                    "dubbo.metrics.export-service-protocol",
                    format!("no protocol with id {id:?} is configured"),
                ));
            }
            Some(id.clone())
        }
        None => protocols
            .iter()
            .find(|(id, c)| c.protocol_name(id) == "dubbo")
            .or_else(|| protocols.first())
            .map(|(id, _)| id.clone()),
    };
    let Some(id) = id else {
        return Err(crate::config::ConfigError::invalid(
            "dubbo.metrics.export-metrics-service",
            "needs a protocol to serve on: configure one under dubbo.protocols",
        ));
    };
    let ready = app.clone();
    app.on_ready(move || async move {
        let options = crate::ServiceOptions::new()
            .interface(INTERFACE)
            .group(ready.name())
            .version(VERSION)
            .protocol(id)
            .parameter("register", "false");
        let handler = MetricsServiceHandler::new(&ready);
        if let Err(e) = ready.module("metrics").export(handler, options).await {
            tracing::warn!(error = %e, "cannot serve the MetricsService");
        }
    });
    Ok(())
}

/// Java's categories, in its enum's order.
const CATEGORIES: [&str; 10] = [
    "RT",
    "QPS",
    "REQUESTS",
    "APPLICATION",
    "CONFIGCENTER",
    "REGISTRY",
    "METADATA",
    "THREAD_POOL",
    "ERROR_CODE",
    "NETTY",
];

/// The provider side: a hand-written [`ServiceHandler`] with Java's three overloads.
pub(crate) struct MetricsServiceHandler {
    app: Weak<AppInner>,
    host: HostLabels,
    methods: Vec<Arc<MethodSignature>>,
}

impl MetricsServiceHandler {
    pub(crate) fn new(app: &Application) -> Self {
        let m =
            |params: &[&str]| Arc::new(MethodSignature::new("getMetricsByCategories", params, MAP));
        Self {
            app: Arc::downgrade(&app.inner),
            host: crate::metrics_text::host_labels(app),
            methods: vec![
                m(&[LIST]),
                m(&[STRING, LIST]),
                m(&[STRING, STRING, "[Ljava.lang.Class;", LIST]),
            ],
        }
    }
}

impl ServiceHandler for MetricsServiceHandler {
    fn interface(&self) -> &str {
        INTERFACE
    }

    fn methods(&self) -> &[Arc<MethodSignature>] {
        &self.methods
    }

    fn call<'a>(
        &'a self,
        method: &'a MethodSignature,
        args: Vec<Payload>,
        _ctx: &'a mut RequestContext,
    ) -> BoxFuture<'a, Result<Payload, RpcError>> {
        Box::pin(async move {
            let args = dubbo_core::arg_values(args)?;
            let (service, method_name, categories) = match args.as_slice() {
                [c] => (None, None, c),
                [s, c] => (s.as_str(), None, c),
                [s, m, _, c] => (s.as_str(), m.as_str(), c),
                _ => return Err(dubbo_core::service::method_not_found(INTERFACE, method)),
            };
            let wanted = category_names(categories);
            let Some(inner) = self.app.upgrade() else {
                return Ok(Payload::Value(Value::typed_map(
                    "java.util.HashMap",
                    Vec::new(),
                )));
            };
            let text = crate::metrics_text::render(&Application { inner }, &self.host);
            Ok(Payload::Value(answer(&text, &wanted, service, method_name)))
        })
    }
}

/// The category names asked for: enum objects (a typed caller) or their names as text (a
/// generic caller); unknown names are left out, as Java finds no sample for them.
fn category_names(list: &Value) -> Vec<String> {
    let Some(list) = list.as_list() else {
        return Vec::new();
    };
    list.items
        .iter()
        .filter_map(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o.get("name").and_then(Value::as_str).map(str::to_owned),
            _ => None,
        })
        .filter(|n| CATEGORIES.contains(&n.as_str()))
        .collect()
}

/// One sample of the Prometheus text.
struct Sample<'a> {
    name: &'a str,
    labels: Vec<(&'a str, String)>,
    value: f64,
}

/// `Map<MetricsCategory, List<MetricsEntity>>` of the samples in `text` that belong to
/// `wanted` and, when given, to `service` (its interface or service key) and `method`.
fn answer(text: &str, wanted: &[String], service: Option<&str>, method: Option<&str>) -> Value {
    let mut groups: Vec<(String, Vec<Value>)> = Vec::new();
    for sample in text.lines().filter_map(parse_sample) {
        let Some(category) = category_of(sample.name) else {
            continue;
        };
        if !wanted.iter().any(|w| w == category) {
            continue;
        }
        let label = |k: &str| {
            sample
                .labels
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.as_str())
        };
        if let Some(s) = service {
            let interface = label("interface");
            let key = interface.map(|i| {
                ServiceKey::new(
                    i,
                    label("group").filter(|g| !g.is_empty()),
                    label("version").filter(|v| !v.is_empty()),
                )
                .to_string()
            });
            if interface != Some(s) && key.as_deref() != Some(s) {
                continue;
            }
        }
        if method.is_some() && label("method") != method {
            continue;
        }
        let entity = entity(&sample, category);
        match groups.iter_mut().find(|(c, _)| c == category) {
            Some((_, list)) => list.push(entity),
            None => groups.push((category.to_owned(), vec![entity])),
        }
    }
    Value::typed_map(
        "java.util.HashMap",
        groups
            .into_iter()
            .map(|(c, list)| {
                (
                    category_value(&c),
                    Value::typed_list("java.util.ArrayList", list),
                )
            })
            .collect(),
    )
}

fn category_value(name: &str) -> Value {
    Value::object(CATEGORY_CLASS, [("name", Value::String(name.to_owned()))])
}

/// Java's `MetricsEntity` (`name, tags, category, value`) with Java's dotted names.
fn entity(sample: &Sample<'_>, category: &str) -> Value {
    let tags = sample
        .labels
        .iter()
        .map(|(k, v)| (Value::String(dotted(k)), Value::String(v.clone())))
        .collect();
    let value = if sample.value.fract() == 0.0 && sample.value.abs() < 9.0e15 {
        Value::Long(sample.value as i64)
    } else {
        Value::Double(sample.value)
    };
    Value::object(
        ENTITY_CLASS,
        [
            ("name", Value::String(dotted(sample.name))),
            ("tags", Value::typed_map("java.util.HashMap", tags)),
            ("category", category_value(category)),
            ("value", value),
        ],
    )
}

/// Prometheus names are Java's with `.` written as `_`.
fn dotted(name: &str) -> String {
    name.replace('_', ".")
}

/// Java's category of a metric family; `None` for dubbo-rs's own families.
fn category_of(name: &str) -> Option<&'static str> {
    let family = name.strip_prefix("dubbo_")?;
    let side = family
        .strip_prefix("provider_")
        .or_else(|| family.strip_prefix("consumer_"));
    if let Some(rest) = side {
        return Some(if rest.starts_with("rt_") {
            "RT"
        } else if rest.starts_with("qps") {
            "QPS"
        } else {
            "REQUESTS"
        });
    }
    let prefixes: [(&str, &'static str); 10] = [
        ("registry_", "REGISTRY"),
        ("register_", "REGISTRY"),
        ("subscribe_", "REGISTRY"),
        ("notify_", "REGISTRY"),
        ("metadata_", "METADATA"),
        ("push_", "METADATA"),
        ("configcenter_", "CONFIGCENTER"),
        ("thread_pool_", "THREAD_POOL"),
        ("application_", "APPLICATION"),
        ("error_code_", "ERROR_CODE"),
    ];
    prefixes
        .iter()
        .find(|(p, _)| family.starts_with(p))
        .map(|(_, c)| *c)
}

/// `name{k="v",...} value` (the text this application renders; escapes as it writes them).
fn parse_sample(line: &str) -> Option<Sample<'_>> {
    if line.starts_with('#') || line.trim().is_empty() {
        return None;
    }
    let (head, value) = line.rsplit_once(' ')?;
    let value: f64 = value.parse().ok()?;
    let (name, labels) = match head.split_once('{') {
        Some((name, rest)) => (name, parse_labels(rest.strip_suffix('}')?)?),
        None => (head, Vec::new()),
    };
    Some(Sample {
        name,
        labels,
        value,
    })
}

fn parse_labels(text: &str) -> Option<Vec<(&str, String)>> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (key, after) = rest.split_once("=\"")?;
        let mut value = String::new();
        let mut chars = after.char_indices();
        let mut end = None;
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, other)) => value.push(other),
                    None => return None,
                },
                '"' => {
                    end = Some(i);
                    break;
                }
                c => value.push(c),
            }
        }
        let end = end?;
        out.push((key.trim_start_matches(','), value));
        rest = after.get(end + 1..)?.trim_start_matches(',');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# HELP x\n\
        dubbo_provider_requests_total{application_name=\"a\",interface=\"org.demo.Greeter\",method=\"sayHello\",group=\"\",version=\"1.0.0\"} 3\n\
        dubbo_provider_rt_milliseconds_p99{application_name=\"a\",interface=\"org.demo.Greeter\",method=\"sayHello\"} 1.5\n\
        dubbo_consumer_requests_total{application_name=\"a\",interface=\"org.demo.Other\",method=\"x\"} 1\n\
        dubbo_thread_pool_core_size{application_name=\"a\",thread_pool_name=\"DubboServerHandler-127.0.0.1:1\"} 200\n\
        dubbo_rs_metrics_folded_calls_total{hostname=\"h\"} 0\n";

    fn entities(v: &Value, category: &str) -> Vec<(String, Value)> {
        let Value::Map(m) = v else { return Vec::new() };
        m.entries
            .iter()
            .filter(|(k, _)| k.get("name").and_then(Value::as_str) == Some(category))
            .flat_map(|(_, list)| list.as_list().map(|l| l.items.clone()).unwrap_or_default())
            .map(|e| {
                let name = e
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned();
                (name, e.get("value").cloned().unwrap_or(Value::Null))
            })
            .collect()
    }

    #[test]
    fn samples_are_grouped_by_javas_categories_with_dotted_names() {
        let all: Vec<String> = CATEGORIES.iter().map(|c| (*c).to_owned()).collect();
        let v = answer(TEXT, &all, None, None);
        assert_eq!(
            entities(&v, "REQUESTS"),
            [
                ("dubbo.provider.requests.total".to_owned(), Value::Long(3)),
                ("dubbo.consumer.requests.total".to_owned(), Value::Long(1)),
            ]
        );
        assert_eq!(
            entities(&v, "RT"),
            [(
                "dubbo.provider.rt.milliseconds.p99".to_owned(),
                Value::Double(1.5)
            )]
        );
        assert_eq!(entities(&v, "THREAD_POOL").len(), 1);
        let Value::Map(m) = &v else { panic!("{v:?}") };
        assert_eq!(m.entries.len(), 3, "dubbo-rs's own families are left out");
        let tags = m.entries[0]
            .1
            .as_list()
            .and_then(|l| l.items[0].get("tags").cloned());
        assert!(format!("{tags:?}").contains("application.name"), "{tags:?}");
    }

    #[test]
    fn filters_by_category_service_and_method() {
        let requests = vec!["REQUESTS".to_owned()];
        let v = answer(TEXT, &requests, Some("org.demo.Greeter"), None);
        assert_eq!(entities(&v, "REQUESTS").len(), 1);
        let v = answer(
            TEXT,
            &requests,
            Some("org.demo.Greeter:1.0.0"),
            Some("sayHello"),
        );
        assert_eq!(entities(&v, "REQUESTS").len(), 1);
        let v = answer(TEXT, &requests, Some("org.demo.Greeter"), Some("nope"));
        assert!(entities(&v, "REQUESTS").is_empty());
        let names = category_names(&Value::list(vec![
            Value::String("QPS".into()),
            category_value("RT"),
            Value::String("BOGUS".into()),
        ]));
        assert_eq!(names, ["QPS", "RT"]);
    }
}
