//! An HTTP answer turned back into a call's result: a success body as the result (JSON, or
//! text for the declared type to parse), the status and headers as response attachments, and
//! an error status as a typed error.

use bytes::Bytes;
use dubbo_core::rest::http_status_error;
use dubbo_core::{Attachments, ErrorCode, JsonArg, Payload, RpcError, RpcResponse};

/// The response attachment holding the answer's HTTP status (`"201"`), beside one attachment
/// per response header (its lower-case name).
pub const STATUS_ATTACHMENT: &str = ":status";

/// The result of a successful answer (2xx).
pub(crate) fn success(status: u16, headers: &http::HeaderMap, body: Bytes) -> RpcResponse {
    let mut attachments = Attachments::new();
    attachments.insert(STATUS_ATTACHMENT, status.to_string());
    for (name, value) in headers {
        if let Ok(v) = value.to_str() {
            attachments.insert(name.as_str(), v);
        }
    }
    let content_type = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let value = if body.iter().all(u8::is_ascii_whitespace) {
        // 204, or an empty 200: the result is `null` (`()`, `None`).
        JsonArg::json(Bytes::from_static(b"null"))
    } else if content_type.contains("json") {
        JsonArg::json(body)
    } else if let Some(json) = yaml_as_json(&content_type, &body) {
        JsonArg::json(json)
    } else if content_type.starts_with("text/") || content_type.starts_with("application/octet") {
        // Text is handed over as text: a `String` result takes it whole, a number parses it.
        JsonArg::text(body)
    } else if serde_json::from_slice::<&serde_json::value::RawValue>(&body).is_ok() {
        // No (or an unknown) content type: JSON if it reads as JSON.
        JsonArg::json(body)
    } else {
        JsonArg::text(body)
    };
    let mut response = RpcResponse::new(Payload::Json(value));
    response.attachments = attachments;
    response
}

/// The error an error status (not 2xx) stands for.
///
/// - A body naming an `exception` (what a dubbo-rs provider sends for a business exception)
///   is that business exception.
/// - Statuses that Triple's REST maps from a framework error come back as that error's code:
///   400, 405, 406 and 415 `BadRequest`, 401 `Unauthenticated`, 403 `Forbidden`, 413
///   `PayloadTooLarge`, 429 `LimitExceeded`, 499 `Cancelled`, 501 `MethodNotFound`, 503
///   `ShuttingDown` (unavailable), 504 `Timeout`.
/// - Any other status (404, 409, 500...) is Java's `HttpStatusException` with that status and
///   the body's message ([`dubbo_core::rest::http_status_of_business`] reads it back), the
///   error a service raises with [`http_status_error`].
pub(crate) fn failure(status: u16, body: &[u8]) -> RpcError {
    let parsed: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let field = |k: &str| {
        parsed
            .as_ref()
            .and_then(|v| v.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let message = field("message").unwrap_or_else(|| {
        let text = String::from_utf8_lossy(body);
        let text = text.trim();
        if text.is_empty() {
            format!("HTTP {status}")
        } else {
            // A long HTML error page is cut: the message names the failure, not the page.
            text.chars().take(512).collect()
        }
    });
    if let Some(class) = field("exception").filter(|c| !c.is_empty()) {
        if class != dubbo_core::rest::HTTP_STATUS_EXCEPTION {
            return RpcError::business(class, message);
        }
    }
    let code = match status {
        400 | 405 | 406 | 415 => ErrorCode::BadRequest,
        401 => ErrorCode::Unauthenticated,
        403 => ErrorCode::Forbidden,
        413 => ErrorCode::PayloadTooLarge,
        429 => ErrorCode::LimitExceeded,
        499 => ErrorCode::Cancelled,
        501 => ErrorCode::MethodNotFound,
        503 => ErrorCode::ShuttingDown,
        504 => ErrorCode::Timeout,
        _ => return http_status_error(status, message),
    };
    RpcError::framework(code, format!("HTTP {status}: {message}"))
}

/// A YAML answer (by its content type) as JSON; `None` for other answers, or YAML that does not
/// read (then taken as text).
fn yaml_as_json(content_type: &str, body: &Bytes) -> Option<Bytes> {
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !crate::yaml_body::is_yaml(media) {
        return None;
    }
    crate::yaml_body::to_json(body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dubbo_core::rest::http_status_of_business;

    #[test]
    fn statuses_become_typed_errors() {
        let e = failure(404, br#"{"status":"404","message":"no user with id -1"}"#);
        let b = e.as_business().unwrap();
        assert_eq!(http_status_of_business(b), Some(404));
        assert_eq!(e.message(), "no user with id -1");
        let e = failure(
            500,
            br#"{"status":"500","message":"boom","exception":"java.lang.IllegalStateException"}"#,
        );
        assert_eq!(
            e.as_business().unwrap().class_name,
            "java.lang.IllegalStateException"
        );
        assert_eq!(failure(504, b"").code(), Some(ErrorCode::Timeout));
        assert_eq!(failure(403, b"no").code(), Some(ErrorCode::Forbidden));
        assert_eq!(failure(415, b"").code(), Some(ErrorCode::BadRequest));
        assert_eq!(failure(429, b"").code(), Some(ErrorCode::LimitExceeded));
        let e = failure(502, b"<html>bad gateway</html>");
        assert_eq!(http_status_of_business(e.as_business().unwrap()), Some(502));
        assert_eq!(e.message(), "<html>bad gateway</html>");
    }

    #[test]
    fn bodies_become_results() {
        let mut h = http::HeaderMap::new();
        h.insert("content-type", "text/plain".parse().unwrap());
        h.insert("location", "/users/7".parse().unwrap());
        let r = success(201, &h, Bytes::from_static(b"42"));
        assert_eq!(r.attachments.get_str(STATUS_ATTACHMENT), Some("201"));
        assert_eq!(r.attachments.get_str("location"), Some("/users/7"));
        assert_eq!(r.value.decode::<i64>().unwrap(), 42);
        let r = success(200, &h, Bytes::from_static(b"Hello x"));
        assert_eq!(r.value.decode::<String>().unwrap(), "Hello x");
        let r = success(204, &http::HeaderMap::new(), Bytes::new());
        r.value.decode::<()>().unwrap();
        // YAML is read as the JSON it stands for.
        let mut h = http::HeaderMap::new();
        h.insert(
            "content-type",
            "application/yaml; charset=utf-8".parse().unwrap(),
        );
        let r = success(200, &h, Bytes::from_static(b"- 1\n- 2\n"));
        assert_eq!(r.value.decode::<Vec<i64>>().unwrap(), [1, 2]);
    }
}
