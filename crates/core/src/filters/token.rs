use std::net::SocketAddr;

use crate::attachments::keys;
use crate::error::{ErrorCode, RpcError};
use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

/// The start of the message of a refusal by the provider-side token check over dubbo:// (Java's
/// `TokenFilter`); consumers recognise a refusal by it.
pub const INVALID_TOKEN_PREFIX: &str = "Invalid token! ";

/// The phrase every token refusal carries, over dubbo:// (`TokenFilter`) and tri://
/// (`TokenHeaderFilter`, which leaves out [`INVALID_TOKEN_PREFIX`]).
pub const FORBID_INVOKE_PHRASE: &str = "Forbid invoke remote service ";

/// Whether a token setting is "no token", as Java's `ConfigUtils.isEmpty`: empty, `false`, `0`,
/// `null` or `N/A` (case-insensitive).
pub fn is_empty_token(value: &str) -> bool {
    value.is_empty()
        || ["false", "0", "null", "N/A"]
            .iter()
            .any(|v| v.eq_ignore_ascii_case(value))
}

/// The token a provider URL should carry for a configured `token` setting, as Java's
/// `ServiceConfig` decides it: `None` for an empty setting ([`is_empty_token`]), a fresh random
/// token for `true` or `default`, and the setting itself otherwise.
pub fn resolve_token(setting: &str) -> Option<String> {
    if is_empty_token(setting) {
        None
    } else if setting.eq_ignore_ascii_case("true") || setting.eq_ignore_ascii_case("default") {
        Some(generate_token())
    } else {
        Some(setting.to_owned())
    }
}

/// A random token in the form of Java's `UUID.randomUUID().toString()`: a version-4 UUID,
/// 36 lower-case characters such as `3f0c5e2a-9b1d-4c6e-8f7a-2d4b6c8e0a1f`.
///
/// The 122 random bits come from the operating system.
pub fn generate_token() -> String {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // The OS source failed (extremely unlikely): fall back to the process's randomly keyed
        // hasher, still unpredictable to a remote consumer.
        use std::hash::{BuildHasher, Hasher};
        for (i, chunk) in b.chunks_mut(8).enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or_default(),
            );
            chunk.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// The provider-side token check, Java's `TokenFilter` (and, over tri://, `TokenHeaderFilter`).
///
/// Active when the provider URL has a non-empty `token` parameter: a call whose `token`
/// attachment is missing or different is refused with [`ErrorCode::Forbidden`] and Java's
/// message. Over dubbo:// the message starts with [`INVALID_TOKEN_PREFIX`] as `TokenFilter`'s
/// does; over tri:// it has no prefix, as `TokenHeaderFilter`'s, which Java runs before the
/// filter chain on that protocol.
#[derive(Debug, Default, Clone, Copy)]
pub struct TokenFilter;

impl Filter for TokenFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let url = next.url();
        let Some(token) = url.parameter(keys::TOKEN).filter(|t| !is_empty_token(t)) else {
            return next.run(invocation);
        };
        let remote = invocation.attachments().get_str(keys::TOKEN);
        if remote == Some(token) {
            return next.run(invocation);
        }
        let prefix = match url.protocol() {
            Some(p) if dubbo_url::is_triple(p) => "",
            _ => INVALID_TOKEN_PREFIX,
        };
        let message = format!(
            "{prefix}{FORBID_INVOKE_PHRASE}interface {} method {}() from consumer {} to provider {}, consumer incorrect token is {}",
            invocation.service().interface(),
            invocation.method_name(),
            host_of(invocation.context().remote_addr()),
            invocation
                .context()
                .local_addr()
                .map(|a| a.ip().to_string())
                .or_else(|| url.host().map(str::to_owned))
                .unwrap_or_else(|| "null".to_owned()),
            remote.unwrap_or("null"),
        );
        Box::pin(async move { Err(RpcError::framework(ErrorCode::Forbidden, message)) })
    }
}

/// Java's `getRemoteHost()` / `getLocalHost()`: the IP address alone, `null` when unknown.
fn host_of(addr: Option<SocketAddr>) -> String {
    match addr {
        Some(a) => a.ip().to_string(),
        None => "null".to_owned(),
    }
}

/// Whether a refusal message is one of a token check (Java's or ours), on either protocol.
pub fn is_token_refusal(message: &str) -> bool {
    message.contains(FORBID_INVOKE_PHRASE) && message.contains("consumer incorrect token is")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_look_like_java_uuids() {
        let a = generate_token();
        let b = generate_token();
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert!(matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'));
        assert!(a
            .chars()
            .all(|c| c == '-' || c.is_ascii_digit() || ('a'..='f').contains(&c)));
    }

    #[test]
    fn settings_resolve_as_java_does() {
        for empty in ["", "false", "FALSE", "0", "null", "n/a"] {
            assert_eq!(resolve_token(empty), None, "{empty}");
        }
        assert_eq!(resolve_token("s3cret").as_deref(), Some("s3cret"));
        assert_eq!(resolve_token("true").map(|t| t.len()), Some(36));
        assert_eq!(resolve_token("Default").map(|t| t.len()), Some(36));
    }

    #[test]
    fn refusals_are_recognised() {
        assert!(is_token_refusal("org.apache.dubbo.rpc.RpcException: Invalid token! Forbid invoke remote service interface a.B method m() from consumer 1.2.3.4 to provider 5.6.7.8, consumer incorrect token is null"));
        assert!(is_token_refusal("Forbid invoke remote service interface a.B method m() from consumer null to provider 5.6.7.8, consumer incorrect token is x"));
        assert!(!is_token_refusal("Forbid invoke remote service a.B"));
    }
}
