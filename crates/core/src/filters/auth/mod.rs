//! Authentication of calls with Java Dubbo's `dubbo-auth` keys and wire format.
//!
//! A service or reference URL with `auth=true` runs [`ConsumerSignFilter`] (consumer) and
//! [`ProviderAuthFilter`] (provider). `authenticator` picks the scheme, `basic` by default as in
//! Java: [`accesskey`](AccessKeyAuthenticator) signs every call with HMAC-SHA256 in the
//! `signature`, `timestamp`, `ak` and `consumer` attachments; [`basic`](basic) sends
//! `authorization: Basic …`, which Triple carries as the HTTP header of that name.
//!
//! Credentials are URL parameters that are never registered: `.accessKeyId` and
//! `.secretAccessKey` (Java's names; a key starting with `.` is kept off the registry), and
//! `username` / `password` for `basic`.

mod access_key;
mod basic;
mod consumer_sign;
mod provider_auth;
mod signature;

pub use access_key::{AccessKeyAuthenticator, DEFAULT_TIMESTAMP_WINDOW};
pub use basic::{basic_header_value, BasicAuthenticator};
pub use consumer_sign::ConsumerSignFilter;
pub use provider_auth::ProviderAuthFilter;
pub use signature::{call_signature, colon_separated_key, same_signature, sign, signing_string};

use dubbo_url::Url;

use crate::error::{ErrorCode, RpcError};

/// URL key that switches authentication on (`auth=true`).
pub const AUTH_KEY: &str = "auth";
/// URL key naming the authenticator: `accesskey` or `basic` (the default, as in Java).
pub const AUTHENTICATOR_KEY: &str = "authenticator";
/// URL key of the access key id (Java's; starts with `.`, so it is never registered).
pub const ACCESS_KEY_ID_KEY: &str = ".accessKeyId";
/// URL key of the secret access key (Java's; starts with `.`, so it is never registered).
pub const SECRET_ACCESS_KEY_KEY: &str = ".secretAccessKey";
/// URL key of the HTTP Basic user name (Java's `username`).
pub const USERNAME_KEY: &str = "username";
/// URL key of the HTTP Basic password (Java's `password`; never registered).
pub const PASSWORD_KEY: &str = "password";
/// Java's switch for signing the arguments too. Java Dubbo 3.3 no longer reads it (only 3.2
/// and older did, over Java serialisation), so `true` is refused rather than silently ignored.
pub const PARAM_SIGN_KEY: &str = "param.sign";
/// URL key (dubbo-rs only): how far, in milliseconds, a call's `timestamp` may be from the
/// provider's clock, either way, before the call is refused as a replay. Default
/// [`DEFAULT_TIMESTAMP_WINDOW`]; `0` turns the check off (Java's behaviour).
pub const TIMESTAMP_WINDOW_KEY: &str = "auth.timestamp.window";

/// Attachment carrying the access-key signature.
pub const SIGNATURE_ATTACHMENT: &str = "signature";
/// Attachment carrying the signing time, milliseconds since the epoch as decimal text.
pub const TIMESTAMP_ATTACHMENT: &str = "timestamp";
/// Attachment carrying the access key id.
pub const AK_ATTACHMENT: &str = "ak";
/// Attachment carrying the consumer's application name.
pub const CONSUMER_ATTACHMENT: &str = "consumer";
/// Attachment (and, over Triple, HTTP header) carrying HTTP Basic credentials.
pub const AUTHORIZATION_ATTACHMENT: &str = "authorization";

/// The exception class Java's `ProviderAuthFilter` answers a refused call with over dubbo://
/// (see [`refusal`] for why dubbo-rs sends its message instead).
pub const RPC_AUTHENTICATION_EXCEPTION: &str =
    "org.apache.dubbo.auth.exception.RpcAuthenticationException";

/// Why a call, or a URL's authentication settings, were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// An attachment the scheme needs is missing or empty (Java's text).
    #[error("Failed to authenticate, maybe consumer side did not enable the auth")]
    NotSigned,
    /// The signature does not match the one the provider computes (Java's text).
    #[error("Failed to authenticate, signature is not correct")]
    BadSignature,
    /// The call names an access key id other than the provider's.
    #[error("Failed to authenticate, access key id {0} is not the provider's")]
    UnknownAccessKey(String),
    /// The `timestamp` attachment is not a number of milliseconds.
    #[error("Failed to authenticate, timestamp {0:?} is not a number of milliseconds")]
    BadTimestamp(String),
    /// The call was signed too long before (or after) the provider's clock: a replay.
    #[error("Failed to authenticate, timestamp {timestamp} is {skew_ms} ms from the provider's clock, outside {TIMESTAMP_WINDOW_KEY}={window_ms} ms")]
    StaleTimestamp {
        /// The call's timestamp (ms since the epoch).
        timestamp: i64,
        /// How far it is from the provider's clock, in ms.
        skew_ms: u64,
        /// The window allowed, in ms.
        window_ms: u64,
    },
    /// `authenticator` names no known scheme.
    #[error("{AUTHENTICATOR_KEY}={0} is not an authenticator (accesskey, basic)")]
    UnknownAuthenticator(String),
    /// A credential the scheme needs is not configured.
    #[error("{AUTHENTICATOR_KEY}={authenticator} needs {key}, which is not configured")]
    MissingCredential {
        /// The scheme.
        authenticator: &'static str,
        /// The URL key of the missing credential.
        key: &'static str,
    },
    /// `param.sign=true`, which Java Dubbo 3.3 does not implement either.
    #[error("{PARAM_SIGN_KEY}=true is not supported: Java Dubbo 3.3 signs the service, method and timestamp only and ignores it, so arguments would go unsigned")]
    ParamSignUnsupported,
    /// A setting has a value it cannot have.
    #[error("{key}={value} is not valid: {why}")]
    BadSetting {
        /// The URL key.
        key: &'static str,
        /// Its value.
        value: String,
        /// What it must be.
        why: &'static str,
    },
}

impl AuthError {
    /// A stable code for the error, for logs and metrics.
    pub fn code(&self) -> &'static str {
        match self {
            AuthError::NotSigned => "auth_not_signed",
            AuthError::BadSignature => "auth_bad_signature",
            AuthError::UnknownAccessKey(_) => "auth_unknown_access_key",
            AuthError::BadTimestamp(_) => "auth_bad_timestamp",
            AuthError::StaleTimestamp { .. } => "auth_stale_timestamp",
            AuthError::UnknownAuthenticator(_) => "auth_unknown_authenticator",
            AuthError::MissingCredential { .. } => "auth_missing_credential",
            AuthError::ParamSignUnsupported => "auth_param_sign_unsupported",
            AuthError::BadSetting { .. } => "auth_bad_setting",
        }
    }
}

/// A call attribute marking a call as already authenticated, Java's `auth.success`: the
/// provider check lets it through. Only code in the process can set it (attributes never come
/// off the wire); the QoS `invoke` command does, as it adds the service's token, since whoever
/// may run `invoke` is trusted with the service.
#[derive(Debug, Clone, Copy, Default)]
pub struct Authenticated;

/// The authentication scheme a URL asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Authenticator {
    /// `authenticator=accesskey`.
    AccessKey(AccessKeyAuthenticator),
    /// `authenticator=basic` (the default).
    Basic(BasicAuthenticator),
}

impl Authenticator {
    /// The scheme of `url`: `None` unless it says `auth=true`; an error for an unknown
    /// `authenticator`, missing credentials, `param.sign=true` or a bad window.
    pub fn from_url(url: &Url) -> Result<Option<Self>, AuthError> {
        if !url.parameter_bool_or(AUTH_KEY, false) {
            return Ok(None);
        }
        if url.parameter_bool_or(PARAM_SIGN_KEY, false) {
            return Err(AuthError::ParamSignUnsupported);
        }
        match url.parameter(AUTHENTICATOR_KEY).unwrap_or("basic") {
            "accesskey" => Ok(Some(Authenticator::AccessKey(
                AccessKeyAuthenticator::from_url(url)?,
            ))),
            "basic" => Ok(Some(Authenticator::Basic(BasicAuthenticator::from_url(
                url,
            )?))),
            other => Err(AuthError::UnknownAuthenticator(other.to_owned())),
        }
    }
}

/// Checks the authentication settings of a service or reference URL, so that a bad one fails
/// at export or refer, naming the key, instead of on every call.
pub fn check_auth_settings(url: &Url) -> Result<(), AuthError> {
    Authenticator::from_url(url).map(|_| ())
}

/// The error a provider answers a refused call with: [`ErrorCode::Unauthenticated`] with
/// Java's message, on every protocol. Over Triple that is gRPC `UNAUTHENTICATED` (HTTP 401), as
/// Java's `ProviderAuthHeaderFilter` answers. Over dubbo:// it is a SERVICE_ERROR response with
/// the message rather than Java's [`RPC_AUTHENTICATION_EXCEPTION`] object: a Java 3.3 consumer
/// refuses to decode that class under its default STRICT serialization check (and a Java
/// provider fails to encode it, answering BAD_RESPONSE), so the message would be lost.
pub fn refusal(error: &AuthError) -> RpcError {
    RpcError::framework(ErrorCode::Unauthenticated, error.to_string())
}

/// Whether `error` is an authentication refusal, by a dubbo-rs or a Java provider, on either
/// protocol.
pub fn is_auth_refusal(error: &RpcError) -> bool {
    if let Some(b) = error.as_business() {
        return b.class_name == RPC_AUTHENTICATION_EXCEPTION;
    }
    error.code() == Some(ErrorCode::Unauthenticated)
}

/// Milliseconds since the epoch now, as Java's `System.currentTimeMillis()`.
pub(crate) fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// A URL parameter that must be present and not empty.
fn required<'a>(
    url: &'a Url,
    authenticator: &'static str,
    key: &'static str,
) -> Result<&'a str, AuthError> {
    url.parameter(key)
        .filter(|v| !v.is_empty())
        .ok_or(AuthError::MissingCredential { authenticator, key })
}

#[cfg(test)]
mod tests;
