//! Call metrics of dubbo-rs, with Java Dubbo 3.3's names, units and labels.
//!
//! A [`MetricsStore`] keeps one [`MethodMetrics`] per [`MetricKey`] (application, interface,
//! method, group, version, side): calls total, succeeded and failed by [`FailureKind`], calls in
//! flight, response time last/min/max/sum/avg, and over a sliding window (Java's
//! `bucket-num` 10 across `time-window-seconds` 120) the counts, QPS and the p50/p90/p95/p99
//! response times. The store belongs to a framework, never to the process: the
//! [`MetricsFilter`] records into the store it was built with, and [`prometheus::render`]
//! writes it out in the Prometheus text format.
//!
//! ```
//! use std::sync::Arc;
//! use std::time::Instant;
//! use dubbo_metrics::{prometheus, FailureKind, KeyRef, MetricsStore};
//! use dubbo_core::Side;
//!
//! let store = Arc::new(MetricsStore::default());
//! let key = KeyRef {
//!     side: Side::Provider,
//!     application: "demo",
//!     interface: "org.example.Greeter",
//!     method: "sayHello",
//!     group: "",
//!     version: "",
//! };
//! if let Some(m) = store.get(&key) {
//!     m.record(Instant::now(), 1_200, None); // 1.2 ms, succeeded
//!     m.record(Instant::now(), 5_000, Some(FailureKind::Timeout));
//! }
//! let text = prometheus::render(&store, &prometheus::HostLabels::default(), Instant::now());
//! assert!(text.contains("dubbo_provider_requests_total{"));
//! assert!(text.contains("dubbo_provider_requests_timeout_total{"));
//! ```

mod clock;
mod error;
mod events;
mod failure;
mod filter;
mod histogram;
mod key;
mod method_metrics;
pub mod prometheus;
mod store;
mod window;

pub use error::MetricsError;
pub use events::EventMetrics;
pub use failure::FailureKind;
pub use filter::{MetricsFilter, METRICS_FILTER_NAME};
pub use histogram::RELATIVE_ERROR;
pub use key::{KeyRef, MetricKey};
pub use method_metrics::{MethodMetrics, MetricsSnapshot};
pub use store::{MetricsStore, DEFAULT_MAX_KEYS, DEFAULT_MAX_METHODS_PER_SERVICE, FOLDED_METHOD};
pub use window::{
    WindowConfig, WindowSnapshot, DEFAULT_BUCKET_NUM, DEFAULT_TIME_WINDOW_SECONDS, QUANTILES,
};
