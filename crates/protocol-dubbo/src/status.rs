//! The response status byte, and how it maps to and from [`RpcError`].

use dubbo_core::filters::auth::RPC_AUTHENTICATION_EXCEPTION;
use dubbo_core::filters::is_token_refusal;
use dubbo_core::{ErrorCode, RpcError};

/// The status byte of a response (`org.apache.dubbo.remoting.exchange.Response`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Status {
    /// The call completed; the body holds a result (possibly an exception).
    Ok = 20,
    /// The provider could not serialize its response, e.g. it exceeded the payload limit.
    SerializationError = 25,
    /// The consumer gave up waiting (local only).
    ClientTimeout = 30,
    /// The provider gave up (local only).
    ServerTimeout = 31,
    /// The channel was inactive (local only).
    ChannelInactive = 35,
    /// The provider could not decode the request.
    BadRequest = 40,
    /// The provider failed to encode its response.
    BadResponse = 50,
    /// Defined but never sent by Java 3.3 (it sends 70 instead).
    ServiceNotFound = 60,
    /// The service (or the framework around it) failed while handling the call.
    ServiceError = 70,
    /// A dispatcher failure on the provider.
    ServerError = 80,
    /// A local decode failure on the consumer.
    ClientError = 90,
    /// The provider's worker pool was full.
    ThreadPoolExhausted = 100,
}

impl Status {
    /// The status for a byte, if it is one Dubbo defines.
    pub fn from_u8(b: u8) -> Option<Status> {
        Some(match b {
            20 => Status::Ok,
            25 => Status::SerializationError,
            30 => Status::ClientTimeout,
            31 => Status::ServerTimeout,
            35 => Status::ChannelInactive,
            40 => Status::BadRequest,
            50 => Status::BadResponse,
            60 => Status::ServiceNotFound,
            70 => Status::ServiceError,
            80 => Status::ServerError,
            90 => Status::ClientError,
            100 => Status::ThreadPoolExhausted,
            _ => return None,
        })
    }

    /// The byte on the wire.
    pub fn as_u8(self) -> u8 {
        self as u8
    }
}

/// The Java exception class a provider's status message starts with for framework errors.
pub(crate) const RPC_EXCEPTION: &str = "org.apache.dubbo.rpc.RpcException";
/// The Java exception class of "Not found exported service".
pub(crate) const REMOTING_EXCEPTION: &str = "org.apache.dubbo.remoting.RemotingException";
/// The text Java puts in a SERVICE_ERROR response when no exporter matches.
pub(crate) const NOT_FOUND_EXPORTED: &str = "Not found exported service";

/// The phrase of Java's `ExecuteLimitFilter` refusal (`executes` exceeded).
const EXECUTES_EXCEEDED: &str = "The service using threads greater than <dubbo:service executes=";

/// The status and message a provider sends for a framework error raised while handling a call.
///
/// Java sends every exception thrown out of the reply handler as SERVICE_ERROR (70) with
/// `exception.toString()`. We do the same, except for the few codes that have their own status.
/// The message keeps our [`ErrorCode`] in brackets (`[limit_exceeded] ...`) so that a dubbo-rs
/// consumer can restore it; a Java consumer just sees the text.
pub fn status_for_error(code: ErrorCode, message: &str) -> (Status, String) {
    match code {
        ErrorCode::BadRequest => (
            Status::BadRequest,
            format!("Fail to decode request due to: {message}"),
        ),
        ErrorCode::ThreadPoolExhausted => (Status::ThreadPoolExhausted, message.to_owned()),
        ErrorCode::PayloadTooLarge => (Status::SerializationError, message.to_owned()),
        ErrorCode::ServiceNotFound if message.starts_with(NOT_FOUND_EXPORTED) => (
            Status::ServiceError,
            format!("{REMOTING_EXCEPTION}: {message}"),
        ),
        // Java's own text, so a Java consumer sees what a Java provider sends; a dubbo-rs
        // consumer knows these by their phrases.
        ErrorCode::Forbidden if is_token_refusal(message) => {
            (Status::ServiceError, format!("{RPC_EXCEPTION}: {message}"))
        }
        ErrorCode::LimitExceeded if message.contains(EXECUTES_EXCEEDED) => {
            (Status::ServiceError, format!("{RPC_EXCEPTION}: {message}"))
        }
        _ => (
            Status::ServiceError,
            format!("{RPC_EXCEPTION}: [{code}] {message}"),
        ),
    }
}

/// The error a consumer reports for a non-OK response with status byte `status` and the
/// provider's `message`.
pub fn error_for_status(status: u8, message: Option<String>, context: &str) -> RpcError {
    let message = message.unwrap_or_default();
    let code = match Status::from_u8(status) {
        Some(Status::ClientTimeout) | Some(Status::ServerTimeout) => ErrorCode::Timeout,
        Some(Status::ChannelInactive) => ErrorCode::Network,
        Some(Status::BadRequest) => ErrorCode::BadRequest,
        Some(Status::ServiceError) | Some(Status::ServiceNotFound) => {
            code_of_service_error(&message)
        }
        Some(Status::ThreadPoolExhausted) => ErrorCode::ThreadPoolExhausted,
        // A Java provider with dubbo-auth fails to encode its RpcAuthenticationException under
        // Java's STRICT serialization check and answers BAD_RESPONSE naming it.
        Some(Status::BadResponse) if message.contains(RPC_AUTHENTICATION_EXCEPTION) => {
            ErrorCode::Unauthenticated
        }
        Some(Status::SerializationError) if message.contains("Data length too large") => {
            ErrorCode::PayloadTooLarge
        }
        Some(Status::SerializationError)
        | Some(Status::BadResponse)
        | Some(Status::ClientError) => ErrorCode::Codec,
        Some(Status::ServerError) => ErrorCode::Internal,
        Some(Status::Ok) | None => ErrorCode::Unknown,
    };
    RpcError::framework(
        code,
        format!("{context}: status {status} from provider: {message}"),
    )
}

/// Reads the code back out of a SERVICE_ERROR message: our own `[code]` marker first, then the
/// phrases Java uses.
fn code_of_service_error(message: &str) -> ErrorCode {
    if let Some(code) = bracketed_code(message) {
        return code;
    }
    if message.contains(NOT_FOUND_EXPORTED) {
        ErrorCode::ServiceNotFound
    } else if is_token_refusal(message) {
        ErrorCode::Forbidden
    } else if message.contains(RPC_AUTHENTICATION_EXCEPTION) {
        ErrorCode::Unauthenticated
    } else if message.contains(EXECUTES_EXCEEDED) {
        ErrorCode::LimitExceeded
    } else if message.contains("Not found method") || message.contains("NoSuchMethodException") {
        ErrorCode::MethodNotFound
    } else {
        ErrorCode::Internal
    }
}

/// `"org.apache.dubbo.rpc.RpcException: [limit_exceeded] ..."` → `LimitExceeded`.
fn bracketed_code(message: &str) -> Option<ErrorCode> {
    let rest = message
        .strip_prefix(RPC_EXCEPTION)
        .and_then(|r| r.strip_prefix(": "))
        .unwrap_or(message);
    let rest = rest.strip_prefix('[')?;
    let end = rest.find(']')?;
    code_from_str(&rest[..end])
}

/// The [`ErrorCode`] whose [`as_str`](ErrorCode::as_str) is `s`.
pub fn code_from_str(s: &str) -> Option<ErrorCode> {
    ErrorCode::from_code_str(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes() {
        for b in 0..=255u8 {
            if let Some(s) = Status::from_u8(b) {
                assert_eq!(s.as_u8(), b);
            }
        }
        assert_eq!(Status::ThreadPoolExhausted.as_u8(), 100);
    }

    #[test]
    fn codes_survive_a_round_trip() {
        for code in [
            ErrorCode::LimitExceeded,
            ErrorCode::MethodNotFound,
            ErrorCode::Forbidden,
            ErrorCode::Internal,
            ErrorCode::ShuttingDown,
            ErrorCode::Unauthenticated,
        ] {
            let (status, msg) = status_for_error(code, "nope");
            assert_eq!(status, Status::ServiceError);
            let e = error_for_status(status.as_u8(), Some(msg), "call");
            assert_eq!(e.code(), Some(code), "{e}");
        }
        let (status, msg) = status_for_error(ErrorCode::BadRequest, "bad");
        assert_eq!(status, Status::BadRequest);
        assert_eq!(msg, "Fail to decode request due to: bad");
        let e = error_for_status(status.as_u8(), Some(msg), "call");
        assert_eq!(e.code(), Some(ErrorCode::BadRequest));
    }

    #[test]
    fn token_refusals_carry_java_text() {
        let m = "Invalid token! Forbid invoke remote service interface a.B method m() from consumer 127.0.0.1 to provider 127.0.0.1, consumer incorrect token is null";
        let (status, msg) = status_for_error(ErrorCode::Forbidden, m);
        assert_eq!(status, Status::ServiceError);
        assert_eq!(msg, format!("org.apache.dubbo.rpc.RpcException: {m}"));
        let e = error_for_status(status.as_u8(), Some(msg), "call");
        assert_eq!(e.code(), Some(ErrorCode::Forbidden));
    }

    #[test]
    fn java_auth_refusal_is_unauthenticated() {
        // What a Java 3.3 provider with dubbo-auth answers a wrong signature with (trimmed).
        let m = "Failed to send response: Response [id=1, version=2.0.2, status=20, event=false, error=null, result=AppResponse [value=null, exception=org.apache.dubbo.auth.exception.RpcAuthenticationException: Failed to authenticate, signature is not correct]], cause: java.io.IOException: ...";
        let e = error_for_status(50, Some(m.into()), "call");
        assert_eq!(e.code(), Some(ErrorCode::Unauthenticated));
        assert_eq!(
            error_for_status(50, Some("boom".into()), "call").code(),
            Some(ErrorCode::Codec)
        );
    }

    #[test]
    fn java_messages() {
        let e = error_for_status(
            70,
            Some("org.apache.dubbo.remoting.RemotingException: Not found exported service: a.B:20880 in [], may be version or group mismatch".into()),
            "call",
        );
        assert_eq!(e.code(), Some(ErrorCode::ServiceNotFound));
        // Java's TokenFilter, with the stack trace Java appends.
        let e = error_for_status(
            70,
            Some("org.apache.dubbo.rpc.RpcException: Invalid token! Forbid invoke remote service interface a.B method m() from consumer 10.0.0.2 to provider 10.0.0.1, consumer incorrect token is null\n\tat org.apache.dubbo.rpc.filter.TokenFilter.invoke(TokenFilter.java:53)".into()),
            "call",
        );
        assert_eq!(e.code(), Some(ErrorCode::Forbidden));
        let e = error_for_status(
            70,
            Some("org.apache.dubbo.rpc.RpcException: Failed to invoke method m in provider dubbo://x, cause: The service using threads greater than <dubbo:service executes=\"1\" /> limited.".into()),
            "call",
        );
        assert_eq!(e.code(), Some(ErrorCode::LimitExceeded));
        let e = error_for_status(70, Some("java.lang.NullPointerException".into()), "c");
        assert_eq!(e.code(), Some(ErrorCode::Internal));
        for (s, c) in [
            (30, ErrorCode::Timeout),
            (31, ErrorCode::Timeout),
            (40, ErrorCode::BadRequest),
            (100, ErrorCode::ThreadPoolExhausted),
            (25, ErrorCode::Codec),
            (50, ErrorCode::Codec),
            (90, ErrorCode::Codec),
            (80, ErrorCode::Internal),
            (7, ErrorCode::Unknown),
        ] {
            assert_eq!(error_for_status(s, None, "c").code(), Some(c), "{s}");
        }
        assert_eq!(
            error_for_status(
                25,
                Some("Data length too large: 9, max payload: 8".into()),
                "c"
            )
            .code(),
            Some(ErrorCode::PayloadTooLarge)
        );
    }
}
