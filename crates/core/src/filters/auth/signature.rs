//! The access-key signature of Java Dubbo's `dubbo-auth`: HMAC-SHA256 keyed with the secret
//! key over `"{service}#{method}#{secret}#{timestamp}"`, Base64 encoded.
//!
//! `{service}` is Java's `URL.getColonSeparatedKey()`: `interface:version:group`, a missing
//! version or group left empty (`org.example.Greeter:1.0.0:`, `org.example.Greeter::`).
//! Java Dubbo 3.3 signs nothing else: its `param.sign` key is still defined but no longer read
//! (3.2 and older serialised the arguments with Java's `ObjectOutputStream` and signed those).

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Java's `URL.getColonSeparatedKey()` for a service: `interface:version:group`, with empty
/// parts for a missing (or blank) version or group.
pub fn colon_separated_key(interface: &str, version: Option<&str>, group: Option<&str>) -> String {
    fn part(p: Option<&str>) -> &str {
        p.filter(|s| !s.trim().is_empty()).unwrap_or("")
    }
    format!("{interface}:{}:{}", part(version), part(group))
}

/// The text that is signed: `"{service}#{method}#{secret}#{timestamp}"` (Java's
/// `SIGNATURE_STRING_FORMAT`, `%s#%s#%s#%s`).
pub fn signing_string(service: &str, method: &str, secret: &str, timestamp: &str) -> String {
    format!("{service}#{method}#{secret}#{timestamp}")
}

/// HMAC-SHA256 of `data` keyed with `secret`, Base64 encoded with padding (Java's
/// `SignatureUtils.sign(String, String)`: the key and the data as UTF-8 bytes).
pub fn sign(data: &str, secret: &str) -> String {
    // Hmac accepts keys of any length (longer ones are hashed first, as javax.crypto does);
    // new_from_slice fails for no length, so the fallback is never taken.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return String::new();
    };
    mac.update(data.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

/// The signature of one call, as the consumer sends it and the provider recomputes it.
pub fn call_signature(service: &str, method: &str, secret: &str, timestamp: &str) -> String {
    sign(&signing_string(service, method, secret, timestamp), secret)
}

/// Compares two signatures in time that does not depend on where they differ, so a caller
/// cannot find a valid signature byte by byte from response times.
pub fn same_signature(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_keys_leave_missing_parts_empty() {
        assert_eq!(
            colon_separated_key("a.B", Some("1.0.0"), Some("g")),
            "a.B:1.0.0:g"
        );
        assert_eq!(
            colon_separated_key("a.B", Some("1.0.0"), None),
            "a.B:1.0.0:"
        );
        assert_eq!(colon_separated_key("a.B", None, Some(" ")), "a.B::");
    }

    #[test]
    fn rfc4231_case_2() {
        // RFC 4231 test case 2 (key "Jefe"), the published HMAC-SHA256 in Base64.
        assert_eq!(
            sign("what do ya want for nothing?", "Jefe"),
            "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM="
        );
    }

    #[test]
    fn comparison() {
        assert!(same_signature("abc", "abc"));
        assert!(!same_signature("abc", "abd"));
        assert!(!same_signature("abc", "abcd"));
    }
}
