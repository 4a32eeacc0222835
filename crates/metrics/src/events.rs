//! Metrics of the work around calls rather than of calls: registrations, subscriptions and
//! address notifications, metadata publishing and fetching, config-centre changes. Java Dubbo
//! 3.3 keeps them in its registry, metadata and config-centre collectors; the names and labels
//! here are those collectors' (see docs/observability.md).
//!
//! These events are rare (a registration at start, a notification when providers change), so
//! the series sit in one map behind a mutex: nothing here is on a call's path.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// One metric family of [`EventMetrics`], in rendering order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum EventFamily {
    RegisterRequests,
    RegisterSucceed,
    RegisterFailed,
    RegisterServiceRequests,
    RegisterServiceSucceed,
    RegisterServiceFailed,
    SubscribeNum,
    SubscribeSucceed,
    SubscribeFailed,
    SubscribeServiceNum,
    SubscribeServiceSucceed,
    SubscribeServiceFailed,
    NotifyRequests,
    NotifyNumLast,
    MetadataPushNum,
    MetadataPushSucceed,
    MetadataPushFailed,
    MetadataSubscribeNum,
    MetadataSubscribeSucceed,
    MetadataSubscribeFailed,
    ConfigCenterTotal,
    /// Response times of one operation: rendered as its `_last`, `_min`, `_max`, `_sum` and
    /// `_avg` families.
    Rt(RtOp),
}

/// The operations whose durations are kept, with Java's type names (`dubbo_<type>_rt_…`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RtOp {
    Register,
    RegisterService,
    Subscribe,
    SubscribeService,
    Notify,
    MetadataPush,
}

impl RtOp {
    fn prefix(self) -> &'static str {
        match self {
            RtOp::Register => "dubbo_register",
            RtOp::RegisterService => "dubbo_register_service",
            RtOp::Subscribe => "dubbo_subscribe",
            RtOp::SubscribeService => "dubbo_subscribe_service",
            RtOp::Notify => "dubbo_notify",
            RtOp::MetadataPush => "dubbo_push",
        }
    }
}

/// Whether a family counts or measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FamilyKind {
    Counter,
    Gauge,
}

impl EventFamily {
    /// Name, help text and type of a counted or measured family (not [`EventFamily::Rt`]).
    pub(crate) fn describe(self) -> (&'static str, &'static str, FamilyKind) {
        use EventFamily::*;
        use FamilyKind::{Counter, Gauge};
        match self {
            RegisterRequests => (
                "dubbo_registry_register_requests_total",
                "Total Register Requests",
                Counter,
            ),
            RegisterSucceed => (
                "dubbo_registry_register_requests_succeed_total",
                "Succeed Register Requests",
                Counter,
            ),
            RegisterFailed => (
                "dubbo_registry_register_requests_failed_total",
                "Failed Register Requests",
                Counter,
            ),
            RegisterServiceRequests => (
                "dubbo_registry_register_service_total",
                "Total Service-Level Register Requests",
                Counter,
            ),
            RegisterServiceSucceed => (
                "dubbo_registry_register_service_succeed_total",
                "Succeed Service-Level Register Requests",
                Counter,
            ),
            RegisterServiceFailed => (
                "dubbo_registry_register_service_failed_total",
                "Failed Service-Level Register Requests",
                Counter,
            ),
            SubscribeNum => (
                "dubbo_registry_subscribe_num_total",
                "Total Subscribe Num",
                Counter,
            ),
            SubscribeSucceed => (
                "dubbo_registry_subscribe_num_succeed_total",
                "Succeed Subscribe Num",
                Counter,
            ),
            SubscribeFailed => (
                "dubbo_registry_subscribe_num_failed_total",
                "Failed Subscribe Num",
                Counter,
            ),
            SubscribeServiceNum => (
                "dubbo_registry_subscribe_service_num_total",
                "Total Service-Level Subscribe Num",
                Counter,
            ),
            SubscribeServiceSucceed => (
                "dubbo_registry_subscribe_service_num_succeed_total",
                "Succeed Service-Level Num",
                Counter,
            ),
            SubscribeServiceFailed => (
                "dubbo_registry_subscribe_service_num_failed_total",
                "Failed Service-Level Num",
                Counter,
            ),
            NotifyRequests => (
                "dubbo_registry_notify_requests_total",
                "Total Notify Requests",
                Counter,
            ),
            NotifyNumLast => ("dubbo_registry_notify_num_last", "Last Notify Nums", Gauge),
            MetadataPushNum => ("dubbo_metadata_push_num_total", "Total Push Num", Counter),
            MetadataPushSucceed => (
                "dubbo_metadata_push_num_succeed_total",
                "Succeed Push Num",
                Counter,
            ),
            MetadataPushFailed => (
                "dubbo_metadata_push_num_failed_total",
                "Failed Push Num",
                Counter,
            ),
            MetadataSubscribeNum => (
                "dubbo_metadata_subscribe_num_total",
                "Total Metadata Subscribe Num",
                Counter,
            ),
            MetadataSubscribeSucceed => (
                "dubbo_metadata_subscribe_num_succeed_total",
                "Succeed Metadata Subscribe Num",
                Counter,
            ),
            MetadataSubscribeFailed => (
                "dubbo_metadata_subscribe_num_failed_total",
                "Failed Metadata Subscribe Num",
                Counter,
            ),
            ConfigCenterTotal => ("dubbo_configcenter_total", "Config Changed Total", Gauge),
            Rt(op) => (op.prefix(), "", Gauge),
        }
    }
}

/// The labels of one series besides the process's (`hostname`, `ip`, ...): always
/// `application_name`, then those of its family, as (name, value) sorted by name.
pub(crate) type EventLabels = Vec<(&'static str, String)>;

/// Durations of one operation and series, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RtStat {
    pub(crate) last: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) sum: f64,
    pub(crate) count: u64,
}

/// The value of one series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum EventValue {
    Count(u64),
    Gauge(f64),
    Rt(RtStat),
}

/// The registry, metadata and config-centre metrics of one framework.
///
/// Recorded by the registration task, the subscriptions and the governance watchers of the
/// applications built from the framework; rendered next to the call metrics by
/// [`prometheus::render_events`](crate::prometheus::render_events).
#[derive(Debug, Default)]
pub struct EventMetrics {
    series: Mutex<BTreeMap<(EventFamily, EventLabels), EventValue>>,
    push_failures: AtomicU64,
}

impl EventMetrics {
    /// An application-level registration (the application's instance) in `registry` (its id,
    /// the `registry_cluster` label) ended, after `took`.
    pub fn registered(&self, app: &str, registry: &str, ok: bool, took: Duration) {
        let labels = labels(app, &[("registry_cluster", registry)]);
        self.outcome(
            &labels,
            ok,
            [
                EventFamily::RegisterRequests,
                EventFamily::RegisterSucceed,
                EventFamily::RegisterFailed,
            ],
        );
        self.rt(RtOp::Register, labels, took);
    }

    /// An interface-level registration of `service` (its service key) in `registry` ended.
    pub fn service_registered(
        &self,
        app: &str,
        service: &str,
        registry: &str,
        ok: bool,
        took: Duration,
    ) {
        let labels = labels(
            app,
            &[("interface", service), ("registry_cluster", registry)],
        );
        self.outcome(
            &labels,
            ok,
            [
                EventFamily::RegisterServiceRequests,
                EventFamily::RegisterServiceSucceed,
                EventFamily::RegisterServiceFailed,
            ],
        );
        self.rt(RtOp::RegisterService, labels, took);
    }

    /// An application-level subscription (to the instances of a provider application) ended.
    pub fn subscribed(&self, app: &str, ok: bool, took: Duration) {
        let labels = labels(app, &[]);
        self.outcome(
            &labels,
            ok,
            [
                EventFamily::SubscribeNum,
                EventFamily::SubscribeSucceed,
                EventFamily::SubscribeFailed,
            ],
        );
        self.rt(RtOp::Subscribe, labels, took);
    }

    /// An interface-level subscription of `service` in `registry` ended.
    pub fn service_subscribed(
        &self,
        app: &str,
        service: &str,
        registry: &str,
        ok: bool,
        took: Duration,
    ) {
        let labels = labels(
            app,
            &[("interface", service), ("registry_cluster", registry)],
        );
        self.outcome(
            &labels,
            ok,
            [
                EventFamily::SubscribeServiceNum,
                EventFamily::SubscribeServiceSucceed,
                EventFamily::SubscribeServiceFailed,
            ],
        );
        self.rt(RtOp::SubscribeService, labels, took);
    }

    /// A reference of `service` was given a new provider list of `urls` addresses, applied
    /// in `took`.
    pub fn notified(&self, app: &str, service: &str, urls: usize, took: Duration) {
        let app_labels = labels(app, &[]);
        self.add(EventFamily::NotifyRequests, app_labels.clone(), 1);
        self.set(
            EventFamily::NotifyNumLast,
            labels(app, &[("interface", service)]),
            urls as f64,
        );
        self.rt(RtOp::Notify, app_labels, took);
    }

    /// The application's metadata was published to a metadata centre.
    pub fn metadata_pushed(&self, app: &str, ok: bool, took: Duration) {
        let labels = labels(app, &[]);
        self.outcome(
            &labels,
            ok,
            [
                EventFamily::MetadataPushNum,
                EventFamily::MetadataPushSucceed,
                EventFamily::MetadataPushFailed,
            ],
        );
        self.rt(RtOp::MetadataPush, labels, took);
    }

    /// A provider application's metadata was fetched (from its MetadataService or a metadata
    /// centre). Java keeps no duration of this under a name of its own, so none is kept.
    pub fn metadata_subscribed(&self, app: &str, ok: bool) {
        self.outcome(
            &labels(app, &[]),
            ok,
            [
                EventFamily::MetadataSubscribeNum,
                EventFamily::MetadataSubscribeSucceed,
                EventFamily::MetadataSubscribeFailed,
            ],
        );
    }

    /// A watched config-centre key changed: `change` is `added`, `modified` or `deleted`,
    /// `center` the config centre's protocol (`zookeeper`, `etcd3`, `file`, ...).
    pub fn config_changed(&self, app: &str, key: &str, group: &str, center: &str, change: &str) {
        let labels = labels(
            app,
            &[
                ("change_type", change),
                ("config_center", center),
                ("group", group),
                ("key", key),
            ],
        );
        self.add(EventFamily::ConfigCenterTotal, labels, 1);
    }

    /// A push of the metrics to a Prometheus Pushgateway failed (refused, timed out, or the
    /// previous push was still running).
    pub fn push_failed(&self) {
        self.push_failures.fetch_add(1, Ordering::Relaxed);
    }

    /// Pushes to a Pushgateway that failed so far.
    pub fn push_failures(&self) -> u64 {
        self.push_failures.load(Ordering::Relaxed)
    }

    /// Every series, in rendering order.
    pub(crate) fn snapshot(&self) -> Vec<(EventFamily, EventLabels, EventValue)> {
        self.lock()
            .iter()
            .map(|((f, l), v)| (*f, l.clone(), *v))
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<(EventFamily, EventLabels), EventValue>> {
        self.series.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn outcome(&self, labels: &EventLabels, ok: bool, families: [EventFamily; 3]) {
        let [total, succeeded, failed] = families;
        self.add(total, labels.clone(), 1);
        // Both outcomes appear from the first event on, as Java's collectors show them.
        self.add(succeeded, labels.clone(), u64::from(ok));
        self.add(failed, labels.clone(), u64::from(!ok));
    }

    fn add(&self, family: EventFamily, labels: EventLabels, by: u64) {
        let mut series = self.lock();
        let value = series
            .entry((family, labels))
            .or_insert(EventValue::Count(0));
        match value {
            EventValue::Count(n) => *n += by,
            EventValue::Gauge(_) | EventValue::Rt(_) => {}
        }
    }

    fn set(&self, family: EventFamily, labels: EventLabels, v: f64) {
        self.lock().insert((family, labels), EventValue::Gauge(v));
    }

    fn rt(&self, op: RtOp, labels: EventLabels, took: Duration) {
        let ms = took.as_secs_f64() * 1000.0;
        let mut series = self.lock();
        let value = series
            .entry((EventFamily::Rt(op), labels))
            .or_insert(EventValue::Rt(RtStat {
                last: ms,
                min: ms,
                max: ms,
                sum: 0.0,
                count: 0,
            }));
        if let EventValue::Rt(rt) = value {
            rt.last = ms;
            rt.min = rt.min.min(ms);
            rt.max = rt.max.max(ms);
            rt.sum += ms;
            rt.count += 1;
        }
    }
}

/// `application_name` and `extra`, sorted by name as Micrometer writes them.
fn labels(app: &str, extra: &[(&'static str, &str)]) -> EventLabels {
    let mut out: EventLabels = Vec::with_capacity(extra.len() + 1);
    out.push(("application_name", app.to_owned()));
    out.extend(extra.iter().map(|(k, v)| (*k, (*v).to_owned())));
    out.sort_by_key(|(k, _)| *k);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_count_both_ways_and_rt_accumulates() {
        let m = EventMetrics::default();
        m.registered("app", "zk", true, Duration::from_millis(4));
        m.registered("app", "zk", false, Duration::from_millis(2));
        let all = m.snapshot();
        let count = |f: EventFamily| all.iter().find(|(x, _, _)| *x == f).map(|(_, _, v)| *v);
        assert_eq!(
            count(EventFamily::RegisterRequests),
            Some(EventValue::Count(2))
        );
        assert_eq!(
            count(EventFamily::RegisterSucceed),
            Some(EventValue::Count(1))
        );
        assert_eq!(
            count(EventFamily::RegisterFailed),
            Some(EventValue::Count(1))
        );
        let Some(EventValue::Rt(rt)) = count(EventFamily::Rt(RtOp::Register)) else {
            panic!("no rt in {all:?}");
        };
        assert_eq!(
            (rt.last, rt.min, rt.max, rt.sum, rt.count),
            (2.0, 2.0, 4.0, 6.0, 2)
        );
    }
}
