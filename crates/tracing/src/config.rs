//! What a tracer is built from: the `dubbo.tracing` settings of one application.

use std::time::Duration;

use http::uri::{PathAndQuery, Uri};

use crate::error::TracingError;

/// Java Dubbo's default share of new traces that are recorded (`sampling.probability`).
pub const DEFAULT_SAMPLING_PROBABILITY: f64 = 0.1;
/// Java's default OTLP export timeout.
pub const DEFAULT_EXPORT_TIMEOUT: Duration = Duration::from_secs(10);
/// Spans waiting for export beyond this many are dropped (OpenTelemetry's batch default).
pub const DEFAULT_MAX_QUEUE_SIZE: usize = 2048;
/// Spans sent in one export request at most (OpenTelemetry's batch default).
pub const DEFAULT_MAX_EXPORT_BATCH_SIZE: usize = 512;
/// How long a span waits for its batch to fill before it is sent anyway.
pub const DEFAULT_SCHEDULE_DELAY: Duration = Duration::from_secs(1);

/// The settings of one application's tracer.
#[derive(Debug, Clone, PartialEq)]
pub struct TracerConfig {
    /// The application name: the exported resource's `service.name`, and the `application`
    /// URL parameter whose calls the tracer records.
    pub application: String,
    /// The share of new traces recorded, 0 to 1.
    pub sampling_probability: f64,
    /// Where spans are sent; `None` records nothing but still propagates the trace context.
    pub otlp: Option<OtlpConfig>,
    /// Spans waiting for export at most.
    pub max_queue_size: usize,
    /// Spans per export request at most.
    pub max_export_batch_size: usize,
    /// The longest a span waits before its batch is sent.
    pub schedule_delay: Duration,
}

impl TracerConfig {
    /// Java's defaults for `application`, without an exporter.
    pub fn new(application: impl Into<String>) -> Self {
        Self {
            application: application.into(),
            sampling_probability: DEFAULT_SAMPLING_PROBABILITY,
            otlp: None,
            max_queue_size: DEFAULT_MAX_QUEUE_SIZE,
            max_export_batch_size: DEFAULT_MAX_EXPORT_BATCH_SIZE,
            schedule_delay: DEFAULT_SCHEDULE_DELAY,
        }
    }
}

/// An OTLP/HTTP receiver (`tracing-exporter.otlp-config`).
#[derive(Debug, Clone, PartialEq)]
pub struct OtlpConfig {
    /// The receiver's URL, `http://host:port` (spans go to `/v1/traces` under it) or the full
    /// `http://host:port/v1/traces`.
    pub endpoint: String,
    /// How long one export may take before its spans are given up.
    pub timeout: Duration,
    /// Extra request headers (authentication tokens, tenant ids).
    pub headers: Vec<(String, String)>,
}

impl OtlpConfig {
    /// An exporter to `endpoint` with Java's default timeout and no extra headers.
    pub fn new(endpoint: impl Into<String>) -> Self {
        Self {
            endpoint: endpoint.into(),
            timeout: DEFAULT_EXPORT_TIMEOUT,
            headers: Vec::new(),
        }
    }
}

/// Where export requests go, checked once when the tracer is built.
#[derive(Debug, Clone)]
pub(crate) struct ExportTarget {
    /// `host:port`, for connecting and for the `Host` header.
    pub(crate) authority: String,
    /// The full URI, for messages.
    pub(crate) uri: Uri,
    /// The request target: origin form, as a server (not a proxy) expects it.
    pub(crate) path: Uri,
}

/// The path OTLP/HTTP receivers take trace exports on.
const TRACES_PATH: &str = "/v1/traces";

impl ExportTarget {
    pub(crate) fn parse(endpoint: &str) -> Result<Self, TracingError> {
        let bad = |why: String| TracingError::BadEndpoint {
            endpoint: endpoint.into(),
            why,
        };
        let uri: Uri = endpoint.trim().parse().map_err(|e| bad(format!("{e}")))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some(other) => return Err(bad(format!("scheme {other} is not supported (http only)"))),
            None => return Err(bad("has no scheme (http://host:port)".into())),
        }
        let host = uri
            .host()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("has no host".into()))?;
        let authority = format!("{host}:{}", uri.port_u16().unwrap_or(80));
        let base = uri.path().trim_end_matches('/');
        let path = if base.ends_with(TRACES_PATH) {
            base.to_owned()
        } else {
            format!("{base}{TRACES_PATH}")
        };
        let path: PathAndQuery = path.parse().map_err(|e| bad(format!("{e}")))?;
        let uri = Uri::builder()
            .scheme("http")
            .authority(authority.as_str())
            .path_and_query(path.clone())
            .build()
            .map_err(|e| bad(format!("{e}")))?;
        Ok(Self {
            authority,
            uri,
            path: Uri::from(path),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_get_the_traces_path_once() {
        let t = ExportTarget::parse("http://127.0.0.1:4318").unwrap();
        assert_eq!(t.authority, "127.0.0.1:4318");
        assert_eq!(t.uri.to_string(), "http://127.0.0.1:4318/v1/traces");
        assert_eq!(t.path.to_string(), "/v1/traces");
        let t = ExportTarget::parse("http://collector/otlp/").unwrap();
        assert_eq!(t.uri.to_string(), "http://collector:80/otlp/v1/traces");
        let t = ExportTarget::parse("http://c:4318/v1/traces").unwrap();
        assert_eq!(t.uri.path(), "/v1/traces");
    }

    #[test]
    fn refuses_what_it_cannot_reach() {
        for bad in [
            "",
            "collector:4318",
            "https://c:4318",
            "grpc://c:4317",
            "http://",
        ] {
            let err = ExportTarget::parse(bad).unwrap_err();
            assert_eq!(err.code(), "tracing_bad_endpoint", "{bad:?}");
        }
    }
}
