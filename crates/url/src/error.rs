//! The one error type of this crate.

use thiserror::Error;

/// Longest piece of the offending input an error keeps (in characters).
const SNIPPET_CHARS: usize = 256;

/// Everything that can go wrong while parsing, building or reading a [`Url`](crate::Url).
///
/// Parsing never panics: every input either yields a `Url` or one of these. Each variant has a
/// stable, dotted [`code`](UrlError::code) that logs, metrics and other crates can match on
/// without depending on the message text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum UrlError {
    /// The text has `://` or `:/` at its very start, so the protocol would be empty
    /// (Java: `IllegalStateException("url missing protocol: ...")`).
    #[error("url missing protocol: \"{input}\"")]
    MissingProtocol {
        /// The offending input (shortened when long).
        input: String,
    },

    /// The text after the last `:` of the authority is not a Java `int`
    /// (Java: `NumberFormatException` from `Integer.parseInt`).
    #[error("invalid port {text:?} in url \"{input}\"")]
    InvalidPort {
        /// The text that should have been a port.
        text: String,
        /// The offending input (shortened when long).
        input: String,
    },

    /// The port is a valid Java `int` but does not fit a TCP port. Java keeps such a port and
    /// fails later when it connects; we refuse it when parsing.
    #[error("port {port} is out of range 0..=65535")]
    PortOutOfRange {
        /// The parsed number.
        port: i64,
    },

    /// A `%` is not followed by two more characters.
    #[error("unterminated escape sequence at index {index}")]
    UnterminatedEscape {
        /// Position of the `%` in the input.
        index: usize,
    },

    /// A `%` is followed by characters that are not hexadecimal digits.
    #[error("invalid hex escape at index {index}")]
    InvalidEscape {
        /// Position of the `%` in the input.
        index: usize,
    },

    /// Percent-escaped bytes do not form valid UTF-8 (only the strict URL-string parser reports
    /// this; [`decode`](crate::decode) substitutes U+FFFD like Java's `URLDecoder`).
    #[error("escaped bytes starting at index {index} are not valid UTF-8")]
    InvalidUtf8 {
        /// Position of the first `%` of the bad run.
        index: usize,
    },

    /// A password was given without a username
    /// (Java: `IllegalArgumentException("Invalid url, password without username!")`).
    #[error("Invalid url, password without username!")]
    PasswordWithoutUsername,

    /// An address list was empty (Java `UrlUtils.parseURL`).
    #[error("Address is not allowed to be empty, please re-enter.")]
    EmptyAddress,

    /// A parameter exists but its value does not parse as the requested type.
    #[error("parameter {key:?} has value {value:?}, which is not a valid {expected}")]
    InvalidParameter {
        /// The parameter key (for method parameters, `method.key`).
        key: String,
        /// The raw value.
        value: String,
        /// What the caller asked for, e.g. `"u64"`.
        expected: &'static str,
    },
}

impl UrlError {
    /// A stable identifier for the error kind, e.g. `"url.invalid_port"`.
    pub fn code(&self) -> &'static str {
        match self {
            UrlError::MissingProtocol { .. } => "url.missing_protocol",
            UrlError::InvalidPort { .. } => "url.invalid_port",
            UrlError::PortOutOfRange { .. } => "url.port_out_of_range",
            UrlError::UnterminatedEscape { .. } => "url.unterminated_escape",
            UrlError::InvalidEscape { .. } => "url.invalid_escape",
            UrlError::InvalidUtf8 { .. } => "url.invalid_utf8",
            UrlError::PasswordWithoutUsername => "url.password_without_username",
            UrlError::EmptyAddress => "url.empty_address",
            UrlError::InvalidParameter { .. } => "url.invalid_parameter",
        }
    }
}

/// Shortens `s` for inclusion in an error, so a huge registry entry cannot blow up logs.
pub(crate) fn snippet(s: &str) -> String {
    match s.char_indices().nth(SNIPPET_CHARS) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.to_owned(),
    }
}
