//! HTTP statuses of failed calls, and the JSON error body.

use bytes::Bytes;
use dubbo_core::{ErrorCode, RpcError};
use http::StatusCode;

use crate::status::{code_of, Code};

/// The HTTP status a framework error is answered with: the codes with an HTTP meaning of
/// their own first (404 for an unknown service or method, 400 for arguments that do not
/// decode, 413), then the error's gRPC code as HTTP gateways map it (and Java's triple rest
/// does): CANCELLED 499, DEADLINE_EXCEEDED 504, PERMISSION_DENIED 403, RESOURCE_EXHAUSTED
/// 429, UNIMPLEMENTED 501, UNAVAILABLE 503, UNAUTHENTICATED 401, and so on.
pub fn http_status_of(e: &RpcError) -> StatusCode {
    match e.code() {
        Some(ErrorCode::ServiceNotFound | ErrorCode::MethodNotFound) => StatusCode::NOT_FOUND,
        Some(ErrorCode::BadRequest | ErrorCode::Codec) => StatusCode::BAD_REQUEST,
        Some(ErrorCode::PayloadTooLarge) => StatusCode::PAYLOAD_TOO_LARGE,
        Some(ErrorCode::LimitExceeded) => StatusCode::TOO_MANY_REQUESTS,
        // No worker free now: try later, as for a provider going away.
        Some(ErrorCode::NoProvider | ErrorCode::Network | ErrorCode::ThreadPoolExhausted) => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        Some(code) => http_status_of_grpc(code_of(code)),
        None => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The HTTP status of a gRPC status code.
pub fn http_status_of_grpc(code: Code) -> StatusCode {
    let n = match code {
        Code::Ok => 200,
        Code::Cancelled => 499,
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => 400,
        Code::DeadlineExceeded => 504,
        Code::NotFound => 404,
        Code::AlreadyExists | Code::Aborted => 409,
        Code::PermissionDenied => 403,
        Code::ResourceExhausted => 429,
        Code::Unimplemented => 501,
        Code::Unavailable => 503,
        Code::Unauthenticated => 401,
        Code::Unknown | Code::Internal | Code::DataLoss => 500,
    };
    StatusCode::from_u16(n).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// An error answer with Dubbo's JSON body `{"status": "...", "message": "..."}`.
pub(crate) fn json_error(status: StatusCode, message: &str) -> http::Response<Bytes> {
    let body = serde_json::json!({
        "status": status.as_u16().to_string(),
        "message": message,
    });
    let mut resp = http::Response::new(Bytes::from(body.to_string()));
    *resp.status_mut() = status;
    resp.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    // RFC 9110: a 401 names the scheme the client should answer with (HTTP Basic here, the
    // only credentials the HTTP forms take).
    if status == StatusCode::UNAUTHORIZED {
        resp.headers_mut().insert(
            http::header::WWW_AUTHENTICATE,
            http::HeaderValue::from_static("Basic realm=\"dubbo\""),
        );
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        let s = |c| http_status_of(&RpcError::framework(c, "x")).as_u16();
        assert_eq!(s(ErrorCode::MethodNotFound), 404);
        assert_eq!(s(ErrorCode::BadRequest), 400);
        assert_eq!(s(ErrorCode::Timeout), 504);
        assert_eq!(s(ErrorCode::Forbidden), 403);
        assert_eq!(s(ErrorCode::LimitExceeded), 429);
        assert_eq!(s(ErrorCode::Cancelled), 499);
        assert_eq!(s(ErrorCode::ThreadPoolExhausted), 503);
        assert_eq!(s(ErrorCode::ShuttingDown), 503);
        assert_eq!(s(ErrorCode::PayloadTooLarge), 413);
        assert_eq!(http_status_of_grpc(Code::Unimplemented).as_u16(), 501);
        assert_eq!(http_status_of_grpc(Code::Unauthenticated).as_u16(), 401);
    }
}
