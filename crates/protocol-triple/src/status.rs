//! gRPC status: the code and message every Triple call ends with, carried in the
//! `grpc-status` / `grpc-message` trailers.

use std::fmt;

use http::{HeaderMap, HeaderValue};

use crate::headers::{GRPC_MESSAGE, GRPC_STATUS};

/// The standard gRPC status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(i32)]
pub enum Code {
    /// Not an error.
    Ok = 0,
    /// The operation was cancelled, typically by the caller.
    Cancelled = 1,
    /// Unknown error.
    Unknown = 2,
    /// The client specified an invalid argument.
    InvalidArgument = 3,
    /// The deadline expired before the operation could complete.
    DeadlineExceeded = 4,
    /// Some requested entity was not found.
    NotFound = 5,
    /// The entity a client attempted to create already exists.
    AlreadyExists = 6,
    /// The caller lacks permission.
    PermissionDenied = 7,
    /// Some resource has been exhausted (quota, message size, flow-control window).
    ResourceExhausted = 8,
    /// The system is not in a state required for the operation.
    FailedPrecondition = 9,
    /// The operation was aborted.
    Aborted = 10,
    /// The operation was attempted past the valid range.
    OutOfRange = 11,
    /// The operation is not implemented or supported (unknown service or method).
    Unimplemented = 12,
    /// An internal invariant was broken (malformed frame, undecodable message).
    Internal = 13,
    /// The service is unavailable; a transport failure. Retrying may succeed.
    Unavailable = 14,
    /// Unrecoverable data loss.
    DataLoss = 15,
    /// The request lacks valid authentication credentials.
    Unauthenticated = 16,
}

impl Code {
    /// The code for a numeric value; values outside 0..=16 are `Unknown`.
    pub fn from_i32(v: i32) -> Code {
        match v {
            0 => Code::Ok,
            1 => Code::Cancelled,
            2 => Code::Unknown,
            3 => Code::InvalidArgument,
            4 => Code::DeadlineExceeded,
            5 => Code::NotFound,
            6 => Code::AlreadyExists,
            7 => Code::PermissionDenied,
            8 => Code::ResourceExhausted,
            9 => Code::FailedPrecondition,
            10 => Code::Aborted,
            11 => Code::OutOfRange,
            12 => Code::Unimplemented,
            13 => Code::Internal,
            14 => Code::Unavailable,
            15 => Code::DataLoss,
            16 => Code::Unauthenticated,
            _ => Code::Unknown,
        }
    }

    /// The numeric value.
    pub fn as_i32(self) -> i32 {
        self as i32
    }

    /// The canonical upper-case name, e.g. `"DEADLINE_EXCEEDED"`.
    pub fn name(self) -> &'static str {
        match self {
            Code::Ok => "OK",
            Code::Cancelled => "CANCELLED",
            Code::Unknown => "UNKNOWN",
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
            Code::NotFound => "NOT_FOUND",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::PermissionDenied => "PERMISSION_DENIED",
            Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Aborted => "ABORTED",
            Code::OutOfRange => "OUT_OF_RANGE",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Internal => "INTERNAL",
            Code::Unavailable => "UNAVAILABLE",
            Code::DataLoss => "DATA_LOSS",
            Code::Unauthenticated => "UNAUTHENTICATED",
        }
    }

    /// The code a gRPC client derives from a non-200 HTTP status when no `grpc-status` came
    /// (the mapping of the gRPC HTTP/2 spec).
    pub fn from_http_status(status: u16) -> Code {
        match status {
            400 => Code::Internal,
            401 => Code::Unauthenticated,
            403 => Code::PermissionDenied,
            404 => Code::Unimplemented,
            429 | 502..=504 => Code::Unavailable,
            _ => Code::Unknown,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The outcome of a call: a [`Code`] and a message; also the error type of every Triple API.
#[derive(Clone, PartialEq, Eq)]
pub struct Status {
    code: Code,
    message: String,
    // Boxed to keep `Result<_, Status>` small.
    metadata: Box<HeaderMap>,
}

/// The Dubbo name of this type.
pub type TriStatus = Status;

impl Status {
    /// A status with a code and a message.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            metadata: Box::default(),
        }
    }

    /// `OK` with no message.
    pub fn ok() -> Self {
        Self::new(Code::Ok, "")
    }

    /// `CANCELLED`.
    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new(Code::Cancelled, message)
    }
    /// `UNKNOWN`.
    pub fn unknown(message: impl Into<String>) -> Self {
        Self::new(Code::Unknown, message)
    }
    /// `INVALID_ARGUMENT`.
    pub fn invalid_argument(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidArgument, message)
    }
    /// `DEADLINE_EXCEEDED`.
    pub fn deadline_exceeded(message: impl Into<String>) -> Self {
        Self::new(Code::DeadlineExceeded, message)
    }
    /// `NOT_FOUND`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }
    /// `RESOURCE_EXHAUSTED`.
    pub fn resource_exhausted(message: impl Into<String>) -> Self {
        Self::new(Code::ResourceExhausted, message)
    }
    /// `UNIMPLEMENTED`.
    pub fn unimplemented(message: impl Into<String>) -> Self {
        Self::new(Code::Unimplemented, message)
    }
    /// `INTERNAL`.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Code::Internal, message)
    }
    /// `UNAVAILABLE`.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(Code::Unavailable, message)
    }
    /// `PERMISSION_DENIED`.
    pub fn permission_denied(message: impl Into<String>) -> Self {
        Self::new(Code::PermissionDenied, message)
    }

    /// The code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Extra headers sent with the status (response attachments on the server side; the
    /// trailers that carried the status on the client side).
    pub fn metadata(&self) -> &HeaderMap {
        &self.metadata
    }

    /// Extra headers, mutable.
    pub fn metadata_mut(&mut self) -> &mut HeaderMap {
        &mut self.metadata
    }

    /// Whether the code is `OK`.
    pub fn is_ok(&self) -> bool {
        self.code == Code::Ok
    }

    /// Reads `grpc-status` and `grpc-message` from trailers (or a trailers-only response).
    /// `None` when there is no `grpc-status`.
    pub fn from_header_map(headers: &HeaderMap) -> Option<Status> {
        let raw = headers.get(GRPC_STATUS)?;
        let code = raw
            .to_str()
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            .map(Code::from_i32)
            .unwrap_or(Code::Unknown);
        let message = headers
            .get(GRPC_MESSAGE)
            .map(|v| percent_decode(v.as_bytes()))
            .unwrap_or_default();
        let mut status = Status::new(code, message);
        status.metadata = Box::new(headers.clone());
        Some(status)
    }

    /// Writes `grpc-status` and, when there is one, the percent-encoded `grpc-message`.
    pub fn add_to_headers(&self, headers: &mut HeaderMap) {
        headers.insert(GRPC_STATUS, HeaderValue::from(self.code.as_i32()));
        if !self.message.is_empty() {
            let encoded = percent_encode_message(&self.message);
            if let Ok(v) = HeaderValue::from_str(&encoded) {
                headers.insert(GRPC_MESSAGE, v);
            }
        }
    }

    /// The status for an HTTP/2 failure: a broken or closed connection is `UNAVAILABLE` (so
    /// callers may retry elsewhere), a peer's cancel is `CANCELLED`, a refused stream is
    /// `UNAVAILABLE`, a flow-control or size violation `RESOURCE_EXHAUSTED`/`INTERNAL`.
    pub fn from_h2_error(err: &h2::Error) -> Status {
        if let Some(reason) = err.reason() {
            let code = match reason {
                h2::Reason::CANCEL => Code::Cancelled,
                h2::Reason::REFUSED_STREAM => Code::Unavailable,
                h2::Reason::ENHANCE_YOUR_CALM => Code::ResourceExhausted,
                h2::Reason::INADEQUATE_SECURITY => Code::PermissionDenied,
                h2::Reason::NO_ERROR if err.is_go_away() => Code::Unavailable,
                h2::Reason::NO_ERROR => Code::Internal,
                h2::Reason::FLOW_CONTROL_ERROR | h2::Reason::FRAME_SIZE_ERROR => Code::Internal,
                _ if err.is_go_away() || err.is_io() => Code::Unavailable,
                _ => Code::Internal,
            };
            return Status::new(code, format!("h2: {err}"));
        }
        Status::unavailable(format!("transport: {err}"))
    }

    /// The status for an I/O failure of the connection: `UNAVAILABLE`.
    pub fn from_io_error(err: &std::io::Error) -> Status {
        Status::unavailable(format!("transport: {err}"))
    }
}

impl fmt::Debug for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Status")
            .field("code", &self.code)
            .field("message", &self.message)
            .finish()
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Status {}

impl From<h2::Error> for Status {
    fn from(e: h2::Error) -> Self {
        Status::from_h2_error(&e)
    }
}

impl From<std::io::Error> for Status {
    fn from(e: std::io::Error) -> Self {
        Status::from_io_error(&e)
    }
}

impl From<prost::DecodeError> for Status {
    fn from(e: prost::DecodeError) -> Self {
        Status::internal(format!("failed to decode protobuf message: {e}"))
    }
}

/// Percent-encodes a `grpc-message` as the gRPC HTTP/2 spec says: bytes outside printable
/// ASCII, and `%` itself, become `%XX`.
pub fn percent_encode_message(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    for &b in message.as_bytes() {
        if (0x20..=0x7e).contains(&b) && b != b'%' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes; malformed escapes are kept as they are, and invalid UTF-8 is
/// replaced rather than rejected, so a peer's odd message never fails a call.
pub fn percent_decode(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' && i + 2 < raw.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(raw[i + 1]), hex(raw[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

mod rpc_error {
    use dubbo_core::{ErrorCode, RpcError};

    use super::{Code, Status};

    /// The gRPC code a framework error travels as.
    pub fn code_of(code: ErrorCode) -> Code {
        match code {
            ErrorCode::Timeout => Code::DeadlineExceeded,
            // Java's TriRpcStatus sends LIMIT_EXCEEDED_EXCEPTION (executes, tps) as UNAVAILABLE.
            ErrorCode::Network
            | ErrorCode::NoProvider
            | ErrorCode::ShuttingDown
            | ErrorCode::LimitExceeded => Code::Unavailable,
            ErrorCode::ServiceNotFound | ErrorCode::MethodNotFound => Code::Unimplemented,
            ErrorCode::ThreadPoolExhausted | ErrorCode::PayloadTooLarge => Code::ResourceExhausted,
            ErrorCode::BadRequest => Code::InvalidArgument,
            ErrorCode::Codec | ErrorCode::Internal => Code::Internal,
            ErrorCode::Cancelled => Code::Cancelled,
            ErrorCode::Forbidden => Code::PermissionDenied,
            ErrorCode::Unauthenticated => Code::Unauthenticated,
            ErrorCode::Config => Code::FailedPrecondition,
            _ => Code::Unknown,
        }
    }

    /// Whether an UNAVAILABLE status is a provider's limit refusal rather than a lost
    /// connection: Java sends both as UNAVAILABLE, and only the text of its `executes` and
    /// `tps` refusals tells them apart.
    fn is_limit_refusal(message: &str) -> bool {
        message.contains("executes=") && message.ends_with("limited.")
            || message.contains("exceed max service tps")
    }

    /// The framework error code a gRPC code stands for.
    pub fn error_code_of(code: Code, message: &str) -> ErrorCode {
        match code {
            Code::DeadlineExceeded => ErrorCode::Timeout,
            Code::Unavailable if is_limit_refusal(message) => ErrorCode::LimitExceeded,
            Code::Unavailable => ErrorCode::Network,
            Code::Unimplemented if message.starts_with("service ") => ErrorCode::ServiceNotFound,
            Code::Unimplemented => ErrorCode::MethodNotFound,
            Code::ResourceExhausted => ErrorCode::LimitExceeded,
            Code::InvalidArgument => ErrorCode::BadRequest,
            Code::Internal | Code::DataLoss => ErrorCode::Codec,
            Code::Cancelled => ErrorCode::Cancelled,
            Code::PermissionDenied => ErrorCode::Forbidden,
            Code::Unauthenticated => ErrorCode::Unauthenticated,
            _ => ErrorCode::Unknown,
        }
    }

    impl From<RpcError> for Status {
        fn from(e: RpcError) -> Self {
            Status::from(&e)
        }
    }

    impl From<&RpcError> for Status {
        fn from(e: &RpcError) -> Self {
            match e {
                RpcError::Business(b) => Status::new(
                    Code::Unknown,
                    match &b.message {
                        Some(m) => format!("{}: {m}", b.class_name),
                        None => b.class_name.clone(),
                    },
                ),
                other => {
                    let code = other.code().map(code_of).unwrap_or(Code::Unknown);
                    Status::new(code, other.message())
                }
            }
        }
    }

    impl From<Status> for RpcError {
        fn from(s: Status) -> Self {
            RpcError::framework(error_code_of(s.code(), s.message()), s.message().to_owned())
        }
    }
}

pub use rpc_error::{code_of, error_code_of};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_encoding_round_trip() {
        let m = "bad 100% – ünïcode\n";
        let e = percent_encode_message(m);
        assert!(e.is_ascii());
        assert_eq!(percent_decode(e.as_bytes()), m);
        assert_eq!(percent_decode(b"50%"), "50%");
        assert_eq!(percent_decode(b"%4"), "%4");
    }

    #[test]
    fn limit_refusals_travel_as_java_sends_them() {
        let refusal = dubbo_core::RpcError::framework(
            dubbo_core::ErrorCode::LimitExceeded,
            "Failed to invoke method m in provider tri://x, cause: The service using threads greater than <dubbo:service executes=\"1\" /> limited.",
        );
        let status = Status::from(&refusal);
        assert_eq!(status.code(), Code::Unavailable);
        let back = dubbo_core::RpcError::from(status);
        assert_eq!(back.code(), Some(dubbo_core::ErrorCode::LimitExceeded));
        let lost = dubbo_core::RpcError::from(Status::new(Code::Unavailable, "connection reset"));
        assert_eq!(lost.code(), Some(dubbo_core::ErrorCode::Network));
    }

    #[test]
    fn headers_round_trip() {
        let mut h = HeaderMap::new();
        Status::new(Code::Unimplemented, "no such method: x").add_to_headers(&mut h);
        assert_eq!(h.get("grpc-status").unwrap(), "12");
        let s = Status::from_header_map(&h).unwrap();
        assert_eq!(s.code(), Code::Unimplemented);
        assert_eq!(s.message(), "no such method: x");
        assert_eq!(Code::from_i32(99), Code::Unknown);
    }
}
