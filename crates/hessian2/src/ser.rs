//! serde serialization.

/// Reusable buffers of the serializer.
#[derive(Debug, Default)]
pub(crate) struct Scratch {}
