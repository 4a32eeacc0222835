//! The errors of this crate, each with a stable code.

/// Why a tracing operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TracingError {
    /// An incoming `traceparent` does not follow W3C Trace Context; the call is traced as a
    /// new trace instead.
    #[error("[tracing_bad_traceparent] {value:?}: {why}")]
    BadTraceparent {
        /// The value (at most 64 characters of it).
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The OTLP endpoint is not an `http://host[:port][/path]` URL.
    #[error("[tracing_bad_endpoint] {endpoint:?}: {why}")]
    BadEndpoint {
        /// The configured endpoint.
        endpoint: String,
        /// What is wrong with it.
        why: String,
    },
    /// A batch of spans could not be delivered to the OTLP receiver.
    #[error("[tracing_export_failed] {0}")]
    ExportFailed(String),
}

impl TracingError {
    /// The stable code, e.g. `"tracing_bad_traceparent"`.
    pub fn code(&self) -> &'static str {
        match self {
            TracingError::BadTraceparent { .. } => "tracing_bad_traceparent",
            TracingError::BadEndpoint { .. } => "tracing_bad_endpoint",
            TracingError::ExportFailed(_) => "tracing_export_failed",
        }
    }
}
