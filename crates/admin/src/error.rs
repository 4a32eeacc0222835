//! [`AdminError`]: every way an admin request or the admin's start fails, each with a stable
//! code and the HTTP status it answers with.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use dubbo_cli::dubbo::CliError;
use dubbo_config_center::ConfigCenterError;
use dubbo_registry::RegistryError;

/// A failed admin request or start.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    /// Reading the registry, the metadata report or the config centre, or calling, failed.
    #[error(transparent)]
    Cli(#[from] CliError),
    /// The registry or metadata report failed.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The config centre failed.
    #[error(transparent)]
    ConfigCenter(#[from] ConfigCenterError),
    /// The request is not valid (a rule that does not parse, a bad argument).
    #[error("{0}")]
    BadRequest(String),
    /// Nothing has that name.
    #[error("{0}")]
    NotFound(String),
    /// No session, or a session that is not valid (any more).
    #[error("not logged in")]
    Unauthenticated,
    /// The session's role may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// The configuration cannot be used (the admin does not start).
    #[error("configuration: {0}")]
    Config(String),
    /// A file of the admin's data directory could not be read or written.
    #[error("{what}: {reason}")]
    Io {
        /// Which file.
        what: String,
        /// Why.
        reason: String,
    },
}

impl AdminError {
    /// The stable code, in answers and logs.
    pub fn code(&self) -> &'static str {
        match self {
            AdminError::Cli(e) => e.code(),
            AdminError::Registry(e) => e.code(),
            AdminError::ConfigCenter(e) => e.code(),
            AdminError::BadRequest(_) => "ADMIN_BAD_REQUEST",
            AdminError::NotFound(_) => "ADMIN_NOT_FOUND",
            AdminError::Unauthenticated => "ADMIN_UNAUTHENTICATED",
            AdminError::Forbidden(_) => "ADMIN_FORBIDDEN",
            AdminError::Config(_) => "ADMIN_CONFIG",
            AdminError::Io { .. } => "ADMIN_IO",
        }
    }

    /// The HTTP status of the answer.
    pub fn status(&self) -> StatusCode {
        match self {
            AdminError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AdminError::Cli(CliError::BadArgument { .. }) => StatusCode::BAD_REQUEST,
            AdminError::NotFound(_) | AdminError::Cli(CliError::NotFound(_)) => {
                StatusCode::NOT_FOUND
            }
            AdminError::Unauthenticated => StatusCode::UNAUTHORIZED,
            AdminError::Forbidden(_) => StatusCode::FORBIDDEN,
            // The provider answered with an exception, or a framework error on the call.
            AdminError::Cli(CliError::Rpc(_)) => StatusCode::BAD_GATEWAY,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// An I/O failure on `what`.
    pub fn io(what: impl Into<String>, e: &dyn std::fmt::Display) -> Self {
        AdminError::Io {
            what: what.into(),
            reason: e.to_string(),
        }
    }
}

impl IntoResponse for AdminError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "code": self.code(), "message": self.to_string() });
        (self.status(), axum::Json(body)).into_response()
    }
}
