//! [`CliError`]: every way a `dubbo` command fails, each with a stable code.

use dubbo_config_center::ConfigCenterError;
use dubbo_registry::RegistryError;
use dubbo_rs::core::RpcError;
use dubbo_rs::tls::TlsError;
use dubbo_rs::DubboError;

/// A failed `dubbo` command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The registry or metadata report failed.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The config centre failed.
    #[error(transparent)]
    ConfigCenter(#[from] ConfigCenterError),
    /// Building the calling application or its reference failed.
    #[error(transparent)]
    Dubbo(#[from] DubboError),
    /// The call failed: a framework error, or the provider's business exception.
    #[error(transparent)]
    Rpc(#[from] RpcError),
    /// The TLS flags' files could not be loaded (`--tls-ca`, `--tls-cert`, `--tls-key`).
    #[error(transparent)]
    Tls(#[from] TlsError),
    /// An argument does not make sense (a target, a JSON text, `K=V`).
    #[error("{what}: {reason}")]
    BadArgument {
        /// Which argument.
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Nothing matches (a service without a definition, a method without that name).
    #[error("{0}")]
    NotFound(String),
    /// Standard output or a file could not be written or read.
    #[error("{what}: {reason}")]
    Io {
        /// What was being read or written.
        what: String,
        /// Why it failed.
        reason: String,
    },
}

impl CliError {
    /// The stable code printed with the error.
    pub fn code(&self) -> &'static str {
        match self {
            CliError::Registry(e) => e.code(),
            CliError::ConfigCenter(e) => e.code(),
            CliError::Dubbo(e) => e.code(),
            CliError::Rpc(e) => e.code().map_or("BUSINESS_EXCEPTION", |c| c.as_str()),
            CliError::Tls(e) => e.code(),
            CliError::BadArgument { .. } => "CLI_BAD_ARGUMENT",
            CliError::NotFound(_) => "CLI_NOT_FOUND",
            CliError::Io { .. } => "CLI_IO",
        }
    }

    /// A bad argument `what`.
    pub fn bad(what: impl Into<String>, reason: impl Into<String>) -> Self {
        CliError::BadArgument {
            what: what.into(),
            reason: reason.into(),
        }
    }

    /// An I/O failure on `what`.
    pub fn io(what: impl Into<String>, e: &dyn std::fmt::Display) -> Self {
        CliError::Io {
            what: what.into(),
            reason: e.to_string(),
        }
    }
}
