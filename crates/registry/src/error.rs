//! [`RegistryError`]: what can go wrong talking to a registry, with stable codes.

use thiserror::Error;

/// An error from a registry, a service discovery, or a metadata report.
///
/// Each variant has a stable [`code`](Self::code) that logs and metrics can key on.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum RegistryError {
    /// The registry server cannot be reached, or the session to it is lost.
    #[error("registry {address} is unreachable: {reason}")]
    Unreachable {
        /// The registry address.
        address: String,
        /// What failed.
        reason: String,
    },
    /// A node or file held data that could not be understood; it was skipped.
    #[error("bad registry data at {path}: {reason}")]
    BadData {
        /// The node path or file the data came from.
        path: String,
        /// Why it could not be read.
        reason: String,
    },
    /// A compare-and-set lost to a concurrent writer; the caller re-reads and tries again.
    #[error("registry data at {path} changed concurrently")]
    Conflict {
        /// The node path or file.
        path: String,
    },
    /// The registry URL or a parameter of it is not usable.
    #[error("bad registry configuration {key}: {reason}")]
    Config {
        /// The URL or the parameter at fault.
        key: String,
        /// Why.
        reason: String,
    },
    /// No registry, discovery or metadata report is known under this URL scheme.
    #[error("no registry is known for scheme {scheme:?}")]
    UnknownScheme {
        /// The scheme asked for.
        scheme: String,
    },
    /// The registry was destroyed; nothing more can be done with it.
    #[error("registry {address} is closed")]
    Closed {
        /// The registry address.
        address: String,
    },
    /// A local file or directory (file registry, cache file) could not be read or written.
    #[error("registry file {path}: {reason}")]
    Io {
        /// The file or directory.
        path: String,
        /// The operating system's error.
        reason: String,
    },
    /// The server answered with an error.
    #[error("registry {address} refused {operation}: {reason}")]
    Refused {
        /// The registry address.
        address: String,
        /// What was asked (`register /dubbo/...`, `subscribe ...`).
        operation: String,
        /// The server's answer.
        reason: String,
    },
    /// The registry cannot do what was asked (listing everything, for one).
    #[error("{what} is not supported by this registry")]
    Unsupported {
        /// What was asked.
        what: String,
    },
}

impl RegistryError {
    /// A stable, machine-readable code for the error kind.
    pub fn code(&self) -> &'static str {
        match self {
            RegistryError::Unreachable { .. } => "REGISTRY_UNREACHABLE",
            RegistryError::BadData { .. } => "REGISTRY_BAD_DATA",
            RegistryError::Conflict { .. } => "REGISTRY_CONFLICT",
            RegistryError::Config { .. } => "REGISTRY_CONFIG",
            RegistryError::UnknownScheme { .. } => "REGISTRY_UNKNOWN_SCHEME",
            RegistryError::Unsupported { .. } => "REGISTRY_UNSUPPORTED",
            RegistryError::Closed { .. } => "REGISTRY_CLOSED",
            RegistryError::Refused { .. } => "REGISTRY_REFUSED",
            RegistryError::Io { .. } => "REGISTRY_IO",
        }
    }

    /// An [`Io`](Self::Io) error for `path`.
    pub fn io(path: &std::path::Path, err: &std::io::Error) -> Self {
        RegistryError::Io {
            path: path.display().to_string(),
            reason: err.to_string(),
        }
    }

    /// Whether trying the same operation again later may succeed (failback retries these).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            RegistryError::Unreachable { .. }
                | RegistryError::Conflict { .. }
                | RegistryError::Refused { .. }
                | RegistryError::Io { .. }
        )
    }
}

/// The file config centre shares the file registry's machinery; its errors keep their kind.
impl From<RegistryError> for dubbo_config_center::ConfigCenterError {
    fn from(e: RegistryError) -> Self {
        use dubbo_config_center::ConfigCenterError as C;
        match e {
            RegistryError::Unreachable { address, reason } => C::Unreachable { address, reason },
            RegistryError::Config { key, reason } => C::Config { key, reason },
            RegistryError::UnknownScheme { scheme } => C::UnknownScheme { scheme },
            RegistryError::Closed { address } => C::Closed { address },
            RegistryError::Io { path, reason } => C::Io { path, reason },
            RegistryError::Refused {
                address,
                operation,
                reason,
            } => C::Refused {
                address,
                operation,
                reason,
            },
            RegistryError::BadData { path, reason } => C::Io { path, reason },
            RegistryError::Conflict { path } => C::Refused {
                address: path,
                operation: "write".to_owned(),
                reason: "changed concurrently".to_owned(),
            },
            RegistryError::Unsupported { what } => C::Config {
                key: "registry".to_owned(),
                reason: format!("{what} is not supported"),
            },
        }
    }
}
