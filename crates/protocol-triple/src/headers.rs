//! Header names of gRPC and Triple, `grpc-timeout`, and Dubbo's rules for carrying attachments
//! in headers.
//!
//! Attachments become headers the way Java Triple writes them: keys are lower-cased, Triple's own
//! headers and a few Dubbo keys (`group`, `interface`, `path`, ...) are never sent as
//! attachments, string values go as they are, byte arrays go under `key-bin` in base64 without
//! padding, and when a key had upper-case letters, the header `tri-header-convert` carries a
//! percent-encoded JSON map from the lower-case key back to the original.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};

/// `grpc-status`.
pub const GRPC_STATUS: &str = "grpc-status";
/// `grpc-message`.
pub const GRPC_MESSAGE: &str = "grpc-message";
/// `grpc-status-details-bin`.
pub const GRPC_STATUS_DETAILS: &str = "grpc-status-details-bin";
/// `grpc-timeout`.
pub const GRPC_TIMEOUT: &str = "grpc-timeout";
/// `grpc-encoding`.
pub const GRPC_ENCODING: &str = "grpc-encoding";
/// `grpc-accept-encoding`.
pub const GRPC_ACCEPT_ENCODING: &str = "grpc-accept-encoding";
/// `te`.
pub const TE: &str = "te";
/// `tri-service-version`.
pub const TRI_SERVICE_VERSION: &str = "tri-service-version";
/// `tri-service-group`.
pub const TRI_SERVICE_GROUP: &str = "tri-service-group";
/// `tri-service-timeout` (HTTP/1.1 form; milliseconds).
pub const TRI_SERVICE_TIMEOUT: &str = "tri-service-timeout";
/// `tri-consumer-appname`.
pub const TRI_CONSUMER_APPNAME: &str = "tri-consumer-appname";
/// `tri-header-convert`.
pub const TRI_HEADER_CONVERT: &str = "tri-header-convert";
/// `tri-exception-code`: set on a wrapper-mode response whose body is an exception.
pub const TRI_EXCEPTION_CODE: &str = "tri-exception-code";
/// `rest-service-version` (HTTP/1.1 form).
pub const REST_SERVICE_VERSION: &str = "rest-service-version";
/// `rest-service-group` (HTTP/1.1 form).
pub const REST_SERVICE_GROUP: &str = "rest-service-group";
/// The content type a Triple client sends.
pub const CONTENT_TYPE_GRPC_PROTO: &str = "application/grpc+proto";
/// The content type a Dubbo 3.3 server answers with.
pub const CONTENT_TYPE_GRPC: &str = "application/grpc";
/// Suffix of binary headers.
pub const BIN_SUFFIX: &str = "-bin";

/// The names a server reads on every request, as [`HeaderName`]s: a lookup by `&str` parses and
/// hashes the text each time, by `HeaderName` it only hashes (about 150 instructions a lookup).
pub(crate) mod name {
    use http::header::HeaderName;

    pub(crate) const GRPC_TIMEOUT: HeaderName = HeaderName::from_static(super::GRPC_TIMEOUT);
    pub(crate) const GRPC_ENCODING: HeaderName = HeaderName::from_static(super::GRPC_ENCODING);
    pub(crate) const GRPC_ACCEPT_ENCODING: HeaderName =
        HeaderName::from_static(super::GRPC_ACCEPT_ENCODING);
    pub(crate) const TRI_SERVICE_GROUP: HeaderName =
        HeaderName::from_static(super::TRI_SERVICE_GROUP);
    pub(crate) const TRI_SERVICE_VERSION: HeaderName =
        HeaderName::from_static(super::TRI_SERVICE_VERSION);
    pub(crate) const TRI_CONSUMER_APPNAME: HeaderName =
        HeaderName::from_static(super::TRI_CONSUMER_APPNAME);
    pub(crate) const TRI_HEADER_CONVERT: HeaderName =
        HeaderName::from_static(super::TRI_HEADER_CONVERT);
}

/// Header names that are Triple's own (Java's `TripleHeaderEnum`) or that Dubbo never sends as
/// attachments; an attachment with one of these keys is dropped, and such a header is never
/// turned into an attachment.
const EXCLUDED: &[&str] = &[
    "http-status",
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    "grpc-timeout",
    "content-type",
    "application/grpc+proto",
    "application/grpc",
    "grpc-encoding",
    "grpc-accept-encoding",
    "tri-consumer-appname",
    "tri-service-version",
    "tri-service-group",
    "tri-service-timeout",
    "tri-header-convert",
    "tri-exception-code",
    "group",
    "interface",
    "path",
    "remote.application",
    "application",
    "serialization",
    "rest-service-version",
    "rest-service-group",
    // HTTP/2 connection-level and request headers that are not Dubbo metadata.
    "te",
    "user-agent",
    "content-length",
    "accept-encoding",
    "host",
    "connection",
    "keep-alive",
    "transfer-encoding",
    "upgrade",
];

/// Whether `key` (lower case) never travels as an attachment.
pub fn is_excluded_key(key: &str) -> bool {
    key.starts_with(':') || EXCLUDED.contains(&key)
}

/// An attachment value as headers can carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetaValue {
    /// A text value.
    Text(String),
    /// A binary value (a Java `byte[]`), sent as base64 under `key-bin`.
    Binary(Bytes),
}

/// Writes attachments into `headers` by Dubbo's rules. Values whose key or text is not a
/// valid header are skipped, as Java logs and skips them.
pub fn put_attachments<'a, I>(headers: &mut HeaderMap, attachments: I)
where
    I: IntoIterator<Item = (&'a str, MetaValue)>,
{
    let mut convert: BTreeMap<String, String> = BTreeMap::new();
    for (key, value) in attachments {
        let lower = key.to_ascii_lowercase();
        if is_excluded_key(&lower) {
            continue;
        }
        let (name, val) = match value {
            MetaValue::Text(s) => (lower.clone(), HeaderValue::from_str(&s).ok()),
            MetaValue::Binary(b) => (
                format!("{lower}{BIN_SUFFIX}"),
                HeaderValue::from_str(&base64::engine::general_purpose::STANDARD_NO_PAD.encode(&b))
                    .ok(),
            ),
        };
        let (Ok(name), Some(val)) = (HeaderName::from_bytes(name.as_bytes()), val) else {
            tracing::debug!(key, "attachment cannot be sent as a header; skipped");
            continue;
        };
        headers.insert(name, val);
        if lower != key {
            convert.insert(lower, key.to_owned());
        }
    }
    if !convert.is_empty() {
        if let Ok(json) = serde_json::to_string(&convert) {
            if let Ok(v) = HeaderValue::from_str(&percent_encode_component(&json)) {
                headers.insert(TRI_HEADER_CONVERT, v);
            }
        }
    }
}

/// Reads attachments out of headers (or trailers): every non-reserved header, `-bin` ones
/// base64-decoded under the key without the suffix, original key case restored from
/// `tri-header-convert`.
pub fn get_attachments(headers: &HeaderMap) -> Vec<(String, MetaValue)> {
    let convert: BTreeMap<String, String> = headers
        .get(name::TRI_HEADER_CONVERT)
        .map(|v| crate::status::percent_decode(v.as_bytes()))
        .and_then(|json| serde_json::from_str(&json).ok())
        .unwrap_or_default();
    let mut out = Vec::new();
    for (name, value) in headers {
        let key = name.as_str();
        if is_excluded_key(key) {
            continue;
        }
        let (key, value) = match key.strip_suffix(BIN_SUFFIX) {
            Some(stripped) if !stripped.is_empty() => {
                match decode_base64_lenient(value.as_bytes()) {
                    Some(b) => (stripped, MetaValue::Binary(Bytes::from(b))),
                    None => {
                        tracing::debug!(key, "undecodable binary header skipped");
                        continue;
                    }
                }
            }
            _ => match value.to_str() {
                Ok(s) => (key, MetaValue::Text(s.to_owned())),
                Err(_) => (
                    key,
                    MetaValue::Text(String::from_utf8_lossy(value.as_bytes()).into_owned()),
                ),
            },
        };
        let key = convert.get(key).cloned().unwrap_or_else(|| key.to_owned());
        out.push((key, value));
    }
    out
}

fn decode_base64_lenient(raw: &[u8]) -> Option<Vec<u8>> {
    let trimmed: Vec<u8> = raw
        .iter()
        .copied()
        .filter(|b| *b != b'=' && !b.is_ascii_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(&trimmed)
        .ok()
        .or_else(|| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(&trimmed)
                .ok()
        })
}

/// Percent-encodes everything but unreserved characters, as a query-string component.
pub fn percent_encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'*' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Parses a `grpc-timeout` value: up to eight digits followed by a unit among `H`, `M`, `S`,
/// `m`, `u`, `n`.
pub fn parse_grpc_timeout(value: &str) -> Option<Duration> {
    let value = value.trim();
    if value.len() < 2 || value.len() > 9 {
        return None;
    }
    let (digits, unit) = value.split_at(value.len() - 1);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.checked_mul(3600)?),
        "M" => Duration::from_secs(n.checked_mul(60)?),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

/// Formats a `grpc-timeout` in milliseconds with unit `m`, as Java Triple does, switching to
/// seconds or larger units only when the value would not fit in eight digits.
pub fn format_grpc_timeout(timeout: Duration) -> String {
    let ms = timeout
        .as_millis()
        .max(if timeout.is_zero() { 0 } else { 1 });
    if ms < 100_000_000 {
        return format!("{ms}m");
    }
    let s = timeout.as_secs();
    if s < 100_000_000 {
        return format!("{s}S");
    }
    let m = s / 60;
    if m < 100_000_000 {
        return format!("{m}M");
    }
    format!("{}H", (s / 3600).min(99_999_999))
}

/// Writes core [`Attachments`](dubbo_core::Attachments) into headers by Dubbo's rules:
/// strings as they are, numbers and booleans as text, byte arrays under `-bin`; other values
/// (which Java cannot send as headers either) are skipped.
pub fn put_core_attachments(headers: &mut HeaderMap, attachments: &dubbo_core::Attachments) {
    use dubbo_hessian2::Value;
    let items: Vec<(&str, MetaValue)> = attachments
        .iter()
        .filter_map(|(k, v)| {
            let mv = match v {
                Value::String(s) => MetaValue::Text(s.clone()),
                Value::Int(i) => MetaValue::Text(i.to_string()),
                Value::Long(i) => MetaValue::Text(i.to_string()),
                Value::Double(d) => MetaValue::Text(d.to_string()),
                Value::Bool(b) => MetaValue::Text(b.to_string()),
                Value::Binary(b) => MetaValue::Binary(Bytes::copy_from_slice(b)),
                _ => return None,
            };
            Some((k, mv))
        })
        .collect();
    put_attachments(headers, items);
}

/// Reads headers (or trailers) into core [`Attachments`](dubbo_core::Attachments): text as
/// strings, `-bin` headers as byte arrays.
pub fn core_attachments(headers: &HeaderMap, into: &mut dubbo_core::Attachments) {
    use dubbo_hessian2::Value;
    for (k, v) in get_attachments(headers) {
        match v {
            MetaValue::Text(s) => into.insert(k, s),
            MetaValue::Binary(b) => into.insert_value(k, Value::Binary(b.to_vec())),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts() {
        assert_eq!(parse_grpc_timeout("100m"), Some(Duration::from_millis(100)));
        assert_eq!(parse_grpc_timeout("2S"), Some(Duration::from_secs(2)));
        assert_eq!(parse_grpc_timeout("1H"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_grpc_timeout("5u"), Some(Duration::from_micros(5)));
        assert_eq!(parse_grpc_timeout("123456789m"), None);
        assert_eq!(parse_grpc_timeout("m"), None);
        assert_eq!(parse_grpc_timeout("-1m"), None);
        assert_eq!(format_grpc_timeout(Duration::from_millis(3000)), "3000m");
        assert_eq!(format_grpc_timeout(Duration::from_micros(10)), "1m");
        assert_eq!(format_grpc_timeout(Duration::from_secs(200_000)), "200000S");
    }

    #[test]
    fn attachments_follow_dubbo_rules() {
        let mut h = HeaderMap::new();
        put_attachments(
            &mut h,
            vec![
                ("traceId", MetaValue::Text("abc".into())),
                ("plain", MetaValue::Text("x".into())),
                (
                    "blob",
                    MetaValue::Binary(Bytes::from_static(&[1, 2, 3, 250])),
                ),
                ("interface", MetaValue::Text("dropped".into())),
                ("Group", MetaValue::Text("dropped".into())),
            ],
        );
        assert_eq!(h.get("traceid").unwrap(), "abc");
        assert_eq!(h.get("blob-bin").unwrap(), "AQID+g");
        assert!(h.get("interface").is_none() && h.get("group").is_none());
        let convert = h.get(TRI_HEADER_CONVERT).unwrap().to_str().unwrap();
        assert!(convert.starts_with("%7B%22traceid%22%3A%22traceId%22"));
        let mut back = get_attachments(&h);
        back.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            back,
            vec![
                (
                    "blob".to_owned(),
                    MetaValue::Binary(Bytes::from_static(&[1, 2, 3, 250]))
                ),
                ("plain".to_owned(), MetaValue::Text("x".into())),
                ("traceId".to_owned(), MetaValue::Text("abc".into())),
            ]
        );
    }
}
