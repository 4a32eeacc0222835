//! Why a call failed, in the kinds Java Dubbo's metrics count separately.

use dubbo_core::{ErrorCode, RpcError};

/// The kind a failed call is counted under. Every failure is also counted in the total of
/// failed calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The service implementation threw (a business exception).
    Business,
    /// The call did not complete before its deadline.
    Timeout,
    /// A concurrency, rate or thread-pool limit rejected the call.
    Limit,
    /// The connection failed, closed or could not be made.
    Network,
    /// Bytes could not be encoded or decoded, or exceeded the payload limit.
    Codec,
    /// No provider was available (Java's "service unavailable").
    ServiceUnavailable,
    /// Any other framework failure.
    Unknown,
}

impl FailureKind {
    /// Every kind, in the order of [`index`](Self::index).
    pub const ALL: [FailureKind; 7] = [
        FailureKind::Business,
        FailureKind::Timeout,
        FailureKind::Limit,
        FailureKind::Network,
        FailureKind::Codec,
        FailureKind::ServiceUnavailable,
        FailureKind::Unknown,
    ];

    /// The kind of a call's error.
    pub fn of(error: &RpcError) -> FailureKind {
        match error.code() {
            None => FailureKind::Business,
            Some(code) => FailureKind::of_code(code),
        }
    }

    /// The kind of a framework error code.
    pub fn of_code(code: ErrorCode) -> FailureKind {
        match code {
            ErrorCode::Timeout => FailureKind::Timeout,
            // A full worker pool is a limit being reached, as Java counts it.
            ErrorCode::LimitExceeded | ErrorCode::ThreadPoolExhausted => FailureKind::Limit,
            ErrorCode::Network => FailureKind::Network,
            ErrorCode::Codec | ErrorCode::PayloadTooLarge => FailureKind::Codec,
            ErrorCode::NoProvider => FailureKind::ServiceUnavailable,
            _ => FailureKind::Unknown,
        }
    }

    /// A position in [`ALL`](Self::ALL), for counter arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    /// A stable lower-case name, e.g. `"timeout"`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Business => "business",
            FailureKind::Timeout => "timeout",
            FailureKind::Limit => "limit",
            FailureKind::Network => "network",
            FailureKind::Codec => "codec",
            FailureKind::ServiceUnavailable => "service_unavailable",
            FailureKind::Unknown => "unknown",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_kinds() {
        assert_eq!(
            FailureKind::of(&RpcError::business("a.B", "x")),
            FailureKind::Business
        );
        let k = |c| FailureKind::of(&RpcError::framework(c, "x"));
        assert_eq!(k(ErrorCode::Timeout), FailureKind::Timeout);
        assert_eq!(k(ErrorCode::LimitExceeded), FailureKind::Limit);
        assert_eq!(k(ErrorCode::ThreadPoolExhausted), FailureKind::Limit);
        assert_eq!(k(ErrorCode::Network), FailureKind::Network);
        assert_eq!(k(ErrorCode::Codec), FailureKind::Codec);
        assert_eq!(k(ErrorCode::NoProvider), FailureKind::ServiceUnavailable);
        assert_eq!(k(ErrorCode::Internal), FailureKind::Unknown);
        for (i, kind) in FailureKind::ALL.iter().enumerate() {
            assert_eq!(kind.index(), i);
        }
    }
}
