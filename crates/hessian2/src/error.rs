//! The error type of the codec.

use std::fmt;

/// Everything that can go wrong while encoding or decoding Hessian 2.
///
/// Each variant has a stable machine-readable [`code`](Error::code), e.g.
/// `"hessian2.truncated"`, that callers may log or map to RPC status codes.
/// Decoding never panics: truncated, malformed or hostile input always ends in
/// one of these errors.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ended in the middle of a value.
    #[error("hessian2: input truncated at byte {position}")]
    Truncated {
        /// Offset at which more bytes were needed.
        position: usize,
    },
    /// A byte code that is not valid at this point of the stream.
    #[error("hessian2: unexpected tag 0x{tag:02x} at byte {position} (expected {expected})")]
    UnexpectedTag {
        /// The offending byte.
        tag: u8,
        /// Its offset.
        position: usize,
        /// What the decoder was looking for.
        expected: &'static str,
    },
    /// A string whose bytes are not valid (CESU-8 / UTF-8).
    #[error("hessian2: invalid string encoding at byte {position}")]
    InvalidString {
        /// Offset of the bad byte.
        position: usize,
    },
    /// Nesting deeper than [`Limits::max_depth`](crate::Limits::max_depth).
    #[error("hessian2: nesting deeper than {limit}")]
    DepthExceeded {
        /// The configured limit.
        limit: usize,
    },
    /// A length (list, map, string, binary) above the configured limit, or negative.
    #[error("hessian2: {what} length {len} invalid or above limit {limit}")]
    LengthLimit {
        /// What was being decoded.
        what: &'static str,
        /// The declared length (negative lengths are reported as `i64`).
        len: i64,
        /// The configured limit.
        limit: usize,
    },
    /// A `Q` back-reference to an index that was never defined.
    #[error("hessian2: invalid reference index {index} at byte {position}")]
    InvalidRef {
        /// The index read.
        index: i64,
        /// Offset of the reference.
        position: usize,
    },
    /// An object instance naming a class definition that was never written.
    #[error("hessian2: invalid class definition index {index} at byte {position}")]
    InvalidClassRef {
        /// The index read.
        index: i64,
        /// Offset of the instance.
        position: usize,
    },
    /// A type reference (int form of a list/map type) that was never defined.
    #[error("hessian2: invalid type index {index} at byte {position}")]
    InvalidTypeRef {
        /// The index read.
        index: i64,
        /// Offset of the type.
        position: usize,
    },
    /// Back-references expanded more input than [`Limits::max_ref_replay`](crate::Limits::max_ref_replay) allows.
    #[error("hessian2: back-references expand beyond the limit of {limit} bytes")]
    RefExpansion {
        /// The configured limit.
        limit: usize,
    },
    /// A value of another kind than the caller asked for.
    #[error("hessian2: expected {expected}, found {found}")]
    TypeMismatch {
        /// What was asked for.
        expected: &'static str,
        /// What the stream (or value) held.
        found: String,
    },
    /// A number that does not fit the requested type.
    #[error("hessian2: number {value} out of range for {target}")]
    OutOfRange {
        /// The value, printed.
        value: String,
        /// The requested type.
        target: &'static str,
    },
    /// Bytes left after the value in [`from_slice`](crate::from_slice).
    #[error("hessian2: {count} trailing bytes after the value")]
    TrailingBytes {
        /// Number of unread bytes.
        count: usize,
    },
    /// A Rust value that has no Hessian/Java representation (e.g. `u128`).
    #[error("hessian2: unsupported: {0}")]
    Unsupported(String),
    /// A malformed JVM descriptor or Java type name.
    #[error("hessian2: invalid descriptor {0:?}")]
    InvalidDescriptor(String),
    /// A message from a serde `Serialize`/`Deserialize` implementation.
    #[error("hessian2: {0}")]
    Custom(String),
}

impl Error {
    /// A stable, machine-readable code for the error kind, e.g. `"hessian2.truncated"`.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Truncated { .. } => "hessian2.truncated",
            Error::UnexpectedTag { .. } => "hessian2.unexpected_tag",
            Error::InvalidString { .. } => "hessian2.invalid_string",
            Error::DepthExceeded { .. } => "hessian2.depth_exceeded",
            Error::LengthLimit { .. } => "hessian2.length_limit",
            Error::InvalidRef { .. } => "hessian2.invalid_ref",
            Error::InvalidClassRef { .. } => "hessian2.invalid_class_ref",
            Error::InvalidTypeRef { .. } => "hessian2.invalid_type_ref",
            Error::RefExpansion { .. } => "hessian2.ref_expansion",
            Error::TypeMismatch { .. } => "hessian2.type_mismatch",
            Error::OutOfRange { .. } => "hessian2.out_of_range",
            Error::TrailingBytes { .. } => "hessian2.trailing_bytes",
            Error::Unsupported(_) => "hessian2.unsupported",
            Error::InvalidDescriptor(_) => "hessian2.invalid_descriptor",
            Error::Custom(_) => "hessian2.custom",
        }
    }

    pub(crate) fn mismatch(expected: &'static str, found: impl fmt::Display) -> Self {
        Error::TypeMismatch {
            expected,
            found: found.to_string(),
        }
    }
}

impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::Custom(msg.to_string())
    }
}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::Custom(msg.to_string())
    }
}
