//! The two kinds of failure a call can end in: the provider's own exception, or the framework's.

use dubbo_hessian2::{java::JavaException, Value};

/// A framework failure's stable code. [`as_str`](Self::as_str) never changes for a variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// The call did not complete before its deadline.
    Timeout,
    /// No provider is available for the service.
    NoProvider,
    /// A concurrency, rate or flow-control limit rejected the call.
    LimitExceeded,
    /// The connection failed, closed, or could not be made.
    Network,
    /// Bytes could not be encoded or decoded.
    Codec,
    /// The provider exports no service with the requested key.
    ServiceNotFound,
    /// The service has no such method.
    MethodNotFound,
    /// The provider's worker pool was full.
    ThreadPoolExhausted,
    /// The request or a response exceeded the payload limit.
    PayloadTooLarge,
    /// The request was malformed.
    BadRequest,
    /// The caller is not allowed to make the call (token, auth).
    Forbidden,
    /// The caller did not prove who it is: credentials missing or wrong (access-key signature,
    /// HTTP Basic). Triple's `UNAUTHENTICATED`, HTTP 401.
    Unauthenticated,
    /// The call was cancelled before completing.
    Cancelled,
    /// The provider is shutting down and accepts no new calls.
    ShuttingDown,
    /// The configuration is invalid.
    Config,
    /// The provider failed while handling the call in a way that is not a business exception.
    Internal,
    /// The peer reported a failure the framework has no better code for.
    Unknown,
}

impl ErrorCode {
    /// Every code, for tables and parsers.
    pub const ALL: [ErrorCode; 17] = [
        ErrorCode::Timeout,
        ErrorCode::NoProvider,
        ErrorCode::LimitExceeded,
        ErrorCode::Network,
        ErrorCode::Codec,
        ErrorCode::ServiceNotFound,
        ErrorCode::MethodNotFound,
        ErrorCode::ThreadPoolExhausted,
        ErrorCode::PayloadTooLarge,
        ErrorCode::BadRequest,
        ErrorCode::Forbidden,
        ErrorCode::Unauthenticated,
        ErrorCode::Cancelled,
        ErrorCode::ShuttingDown,
        ErrorCode::Config,
        ErrorCode::Internal,
        ErrorCode::Unknown,
    ];

    /// The code whose [`as_str`](Self::as_str) is `s`.
    pub fn from_code_str(s: &str) -> Option<ErrorCode> {
        Self::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// The stable, lower-case code string, e.g. `"timeout"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Timeout => "timeout",
            ErrorCode::NoProvider => "no_provider",
            ErrorCode::LimitExceeded => "limit_exceeded",
            ErrorCode::Network => "network",
            ErrorCode::Codec => "codec",
            ErrorCode::ServiceNotFound => "service_not_found",
            ErrorCode::MethodNotFound => "method_not_found",
            ErrorCode::ThreadPoolExhausted => "thread_pool_exhausted",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::Unauthenticated => "unauthenticated",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::Config => "config",
            ErrorCode::Internal => "internal",
            ErrorCode::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An exception thrown by the service implementation, carried back as Java does.
#[derive(Debug, Clone, PartialEq)]
pub struct BusinessError {
    /// The Java class name, e.g. `java.lang.IllegalStateException`.
    pub class_name: String,
    /// The exception's message (`getMessage()`), if any.
    pub message: Option<String>,
    /// The exception object as it came off the wire, when it did; `None` when built locally.
    pub raw: Option<Value>,
}

impl BusinessError {
    /// A business exception with a JDK class name and a message.
    pub fn new(class_name: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            class_name: class_name.into(),
            message: Some(message.into()),
            raw: None,
        }
    }

    /// Reads an exception object decoded from the wire; anything else is handed back.
    pub fn from_value(value: Value) -> Result<Self, Value> {
        match JavaException::from_value(&value) {
            Some(ex) => Ok(Self {
                class_name: ex.class_name,
                message: ex.message,
                raw: Some(value),
            }),
            None => Err(value),
        }
    }

    /// The exception object to put on the wire: the original object when there is one,
    /// otherwise a JDK-compatible exception Java can rethrow.
    pub fn to_value(&self) -> Value {
        if let Some(raw) = &self.raw {
            return raw.clone();
        }
        JavaException {
            class_name: self.class_name.clone(),
            message: self.message.clone(),
            cause: None,
        }
        .to_value()
    }
}

/// Why a call failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum RpcError {
    /// The provider's implementation threw (returned) an exception.
    #[error("{}: {}", .0.class_name, .0.message.as_deref().unwrap_or(""))]
    Business(BusinessError),
    /// The framework could not complete the call.
    #[error("[{code}] {message}")]
    Framework {
        /// What kind of failure.
        code: ErrorCode,
        /// A human-readable explanation naming what failed (service, method, endpoint).
        message: String,
    },
}

impl RpcError {
    /// A framework error with a code and a message.
    pub fn framework(code: ErrorCode, message: impl Into<String>) -> Self {
        RpcError::Framework {
            code,
            message: message.into(),
        }
    }

    /// A business exception of the given Java class.
    pub fn business(class_name: impl Into<String>, message: impl Into<String>) -> Self {
        RpcError::Business(BusinessError::new(class_name, message))
    }

    /// The framework code, or `None` for a business exception.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            RpcError::Business(_) => None,
            RpcError::Framework { code, .. } => Some(*code),
        }
    }

    /// Whether this is a business exception.
    pub fn is_business(&self) -> bool {
        matches!(self, RpcError::Business(_))
    }

    /// Whether this is a timeout.
    pub fn is_timeout(&self) -> bool {
        self.code() == Some(ErrorCode::Timeout)
    }

    /// The business exception, if this is one.
    pub fn as_business(&self) -> Option<&BusinessError> {
        match self {
            RpcError::Business(b) => Some(b),
            RpcError::Framework { .. } => None,
        }
    }

    /// The message without the code prefix.
    pub fn message(&self) -> &str {
        match self {
            RpcError::Business(b) => b.message.as_deref().unwrap_or(""),
            RpcError::Framework { message, .. } => message,
        }
    }
}

impl From<dubbo_hessian2::Error> for RpcError {
    fn from(e: dubbo_hessian2::Error) -> Self {
        RpcError::framework(ErrorCode::Codec, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_parses_back() {
        for c in ErrorCode::ALL {
            assert_eq!(ErrorCode::from_code_str(c.as_str()), Some(c));
        }
        assert_eq!(ErrorCode::from_code_str("nope"), None);
    }

    #[test]
    fn codes_are_stable() {
        assert_eq!(ErrorCode::Timeout.as_str(), "timeout");
        assert_eq!(
            ErrorCode::ThreadPoolExhausted.as_str(),
            "thread_pool_exhausted"
        );
        let e = RpcError::framework(ErrorCode::NoProvider, "no provider for a.B");
        assert_eq!(e.to_string(), "[no_provider] no provider for a.B");
        assert!(!e.is_business());
    }

    #[test]
    fn business_display() {
        let e = RpcError::business("java.lang.IllegalStateException", "boom");
        assert_eq!(e.to_string(), "java.lang.IllegalStateException: boom");
        assert!(e.code().is_none());
    }
}
