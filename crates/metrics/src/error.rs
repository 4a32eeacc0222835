//! The errors of this crate, each with a stable code.

/// Why a metrics operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsError {
    /// The sliding window's settings make no sense.
    #[error("[metrics_invalid_window] {0}")]
    InvalidWindow(String),
}

impl MetricsError {
    /// The stable code, e.g. `"metrics_invalid_window"`.
    pub fn code(&self) -> &'static str {
        match self {
            MetricsError::InvalidWindow(_) => "metrics_invalid_window",
        }
    }
}
