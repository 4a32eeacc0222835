//! Errors of the framing and body layers, and their conversion into [`RpcError`].

use dubbo_core::{ErrorCode, RpcError};

/// Why a byte stream could not be cut into frames. Every variant but [`Io`](Self::Io) means
/// the peer sent something that is not dubbo://; the connection is closed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The frame does not start with `0xdabb`.
    #[error("bad magic 0x{:02x}{:02x} (expected 0xdabb)", .0[0], .0[1])]
    BadMagic([u8; 2]),
    /// The header declares a negative body length.
    #[error("negative body length {0}")]
    NegativeLength(i32),
    /// The header declares a body larger than the payload limit.
    #[error("Data length too large: {len}, max payload: {limit}")]
    PayloadTooLarge {
        /// Declared body length.
        len: usize,
        /// The configured limit.
        limit: usize,
    },
    /// Not enough bytes (a header shorter than 16 bytes, or a stream that ended mid-frame).
    #[error("truncated frame: needed {needed} bytes, had {available}")]
    Truncated {
        /// Bytes needed.
        needed: usize,
        /// Bytes available.
        available: usize,
    },
    /// The socket failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

impl FrameError {
    /// Whether this is the peer closing the connection rather than anything it sent: the
    /// socket ended, was reset, or (over TLS) ended without a `close_notify`, as `openssl
    /// s_client` and many clients end their connections. Logged as an ordinary close.
    pub fn is_peer_close(&self) -> bool {
        use std::io::ErrorKind;
        matches!(
            self,
            FrameError::Io(e) if matches!(
                e.kind(),
                ErrorKind::UnexpectedEof
                    | ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
            )
        )
    }

    /// The matching framework error.
    pub fn to_rpc_error(&self, context: &str) -> RpcError {
        let code = match self {
            FrameError::PayloadTooLarge { .. } => ErrorCode::PayloadTooLarge,
            FrameError::Io(_) => ErrorCode::Network,
            _ => ErrorCode::Codec,
        };
        RpcError::framework(code, format!("{context}: {self}"))
    }
}

/// Why a frame body could not be decoded.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum BodyError {
    /// The hessian2 stream is malformed.
    #[error("{0}")]
    Hessian(#[from] dubbo_hessian2::Error),
    /// The fastjson2 (JSONB) stream is malformed.
    #[error("{0}")]
    Fastjson2(#[from] dubbo_fastjson2::Error),
    /// The stream is well-formed but does not hold what the protocol expects.
    #[error("{0}")]
    Invalid(String),
    /// The body uses a serialization this implementation does not speak.
    #[error("unsupported serialization id {0}")]
    UnsupportedSerialization(u8),
}

impl BodyError {
    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        BodyError::Invalid(msg.into())
    }

    /// The matching framework error ([`ErrorCode::Codec`]).
    pub fn to_rpc_error(&self, context: &str) -> RpcError {
        RpcError::framework(ErrorCode::Codec, format!("{context}: {self}"))
    }
}
