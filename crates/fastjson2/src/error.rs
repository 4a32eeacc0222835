//! The error type of the codec.

/// Everything that can go wrong while encoding or decoding JSONB.
///
/// Each variant has a stable machine-readable [`code`](Error::code), e.g.
/// `"fastjson2.truncated"`. Decoding never panics: truncated, malformed or hostile input
/// always ends in one of these errors.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input ended in the middle of a value.
    #[error("fastjson2: input truncated at byte {position}")]
    Truncated {
        /// Offset at which more bytes were needed.
        position: usize,
    },
    /// A byte code that is not valid at this point of the stream.
    #[error("fastjson2: unexpected tag 0x{tag:02x} at byte {position} (expected {expected})")]
    UnexpectedTag {
        /// The offending byte.
        tag: u8,
        /// Its offset.
        position: usize,
        /// What the decoder was looking for.
        expected: &'static str,
    },
    /// A string whose bytes are not valid in their declared encoding.
    #[error("fastjson2: invalid string encoding at byte {position}")]
    InvalidString {
        /// Offset of the string.
        position: usize,
    },
    /// A length that is negative or larger than the bytes that remain.
    #[error(
        "fastjson2: {what} length {len} at byte {position} is invalid ({remaining} bytes remain)"
    )]
    InvalidLength {
        /// What was being decoded.
        what: &'static str,
        /// The declared length.
        len: i64,
        /// Offset of the length.
        position: usize,
        /// Bytes left in the input.
        remaining: usize,
    },
    /// Nesting deeper than the decoder's limit.
    #[error("fastjson2: nesting deeper than {limit}")]
    DepthExceeded {
        /// The limit.
        limit: usize,
    },
    /// A symbol id (field or type name) that was never defined, or from a shared symbol
    /// table (negative), which Dubbo does not use.
    #[error("fastjson2: unknown symbol {symbol} at byte {position}")]
    UnknownSymbol {
        /// The id read.
        symbol: i64,
        /// Its offset.
        position: usize,
    },
    /// A reference whose path names no value decoded so far.
    #[error("fastjson2: unresolved reference {path:?} at byte {position}")]
    UnresolvedReference {
        /// The JSONPath of the reference.
        path: String,
        /// Its offset.
        position: usize,
    },
    /// References (and the copies kept for them) would expand the input beyond the decoder's
    /// budget: a small input of references to references must not make a huge tree.
    #[error("fastjson2: references expand beyond the limit of {limit} values")]
    RefExpansion {
        /// The budget, in values.
        limit: usize,
    },
    /// Bytes left after the value (a Dubbo frame holds exactly one).
    #[error("fastjson2: {extra} trailing bytes after the value")]
    TrailingBytes {
        /// How many.
        extra: usize,
    },
    /// A value that JSONB cannot carry as given (e.g. a `BigDecimal` whose text is not a number).
    #[error("fastjson2: cannot encode {what}: {reason}")]
    Unencodable {
        /// The kind of value.
        what: &'static str,
        /// Why.
        reason: String,
    },
}

impl Error {
    /// A stable code naming the kind of error, for logs and RPC status mapping.
    pub fn code(&self) -> &'static str {
        match self {
            Error::Truncated { .. } => "fastjson2.truncated",
            Error::UnexpectedTag { .. } => "fastjson2.unexpected_tag",
            Error::InvalidString { .. } => "fastjson2.invalid_string",
            Error::InvalidLength { .. } => "fastjson2.invalid_length",
            Error::DepthExceeded { .. } => "fastjson2.depth_exceeded",
            Error::UnknownSymbol { .. } => "fastjson2.unknown_symbol",
            Error::UnresolvedReference { .. } => "fastjson2.unresolved_reference",
            Error::RefExpansion { .. } => "fastjson2.ref_expansion",
            Error::TrailingBytes { .. } => "fastjson2.trailing_bytes",
            Error::Unencodable { .. } => "fastjson2.unencodable",
        }
    }
}

/// The codec's result type.
pub type Result<T> = std::result::Result<T, Error>;
