//! Errors of the bootstrap API.

use dubbo_core::RpcError;

use crate::config::ConfigError;

/// Why starting, exporting, referring or stopping failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DubboError {
    /// The configuration is invalid; the message names the key.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A protocol or a remote call failed.
    #[error(transparent)]
    Rpc(#[from] RpcError),
    /// A URL could not be parsed.
    #[error("bad URL {url:?}: {reason}")]
    Url {
        /// The text.
        url: String,
        /// Why.
        reason: String,
    },
    /// The application has been shut down.
    #[error("application {0} is shut down")]
    ShutDown(String),
}

impl DubboError {
    /// A stable code for the kind of error.
    pub fn code(&self) -> &'static str {
        match self {
            DubboError::Config(e) => e.code(),
            DubboError::Rpc(e) => e.code().map(|c| c.as_str()).unwrap_or("business"),
            DubboError::Url { .. } => "url",
            DubboError::ShutDown(_) => "shut_down",
        }
    }
}
