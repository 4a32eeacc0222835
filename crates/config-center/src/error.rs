//! [`ConfigCenterError`]: what can go wrong talking to a config centre, with stable codes.

use thiserror::Error;

/// An error from a config centre.
///
/// Each variant has a stable [`code`](Self::code) that logs and metrics can key on.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum ConfigCenterError {
    /// The config centre cannot be reached, or the session to it is lost.
    #[error("config centre {address} is unreachable: {reason}")]
    Unreachable {
        /// The config centre address.
        address: String,
        /// What failed.
        reason: String,
    },
    /// The config centre URL, a parameter of it, a key or a group is not usable.
    #[error("bad config centre configuration {key}: {reason}")]
    Config {
        /// The URL, parameter, key or group at fault.
        key: String,
        /// Why.
        reason: String,
    },
    /// No config centre is known under this URL scheme.
    #[error("no config centre is known for scheme {scheme:?}")]
    UnknownScheme {
        /// The scheme asked for.
        scheme: String,
    },
    /// The config centre was closed; nothing more can be done with it.
    #[error("config centre {address} is closed")]
    Closed {
        /// The config centre address.
        address: String,
    },
    /// A local file or directory (the file config centre) could not be read or written.
    #[error("config centre file {path}: {reason}")]
    Io {
        /// The file or directory.
        path: String,
        /// The operating system's error.
        reason: String,
    },
    /// The server answered with an error.
    #[error("config centre {address} refused {operation}: {reason}")]
    Refused {
        /// The config centre address.
        address: String,
        /// What was asked (`publish dubbo/app.configurators`, ...).
        operation: String,
        /// The server's answer.
        reason: String,
    },
}

impl ConfigCenterError {
    /// A stable, machine-readable code for the error kind.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigCenterError::Unreachable { .. } => "CONFIG_CENTER_UNREACHABLE",
            ConfigCenterError::Config { .. } => "CONFIG_CENTER_CONFIG",
            ConfigCenterError::UnknownScheme { .. } => "CONFIG_CENTER_UNKNOWN_SCHEME",
            ConfigCenterError::Closed { .. } => "CONFIG_CENTER_CLOSED",
            ConfigCenterError::Io { .. } => "CONFIG_CENTER_IO",
            ConfigCenterError::Refused { .. } => "CONFIG_CENTER_REFUSED",
        }
    }

    /// An [`Io`](Self::Io) error for `path`.
    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
        ConfigCenterError::Io {
            path: path.display().to_string(),
            reason: err.to_string(),
        }
    }

    /// Whether trying the same operation again later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ConfigCenterError::Unreachable { .. }
                | ConfigCenterError::Refused { .. }
                | ConfigCenterError::Io { .. }
        )
    }
}
