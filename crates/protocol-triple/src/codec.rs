//! Turning messages into payload bytes and back: protobuf for IDL services.

use bytes::Bytes;

use crate::status::Status;

/// A function decoding one payload into a message.
pub type DecodeFn<T> = fn(Bytes) -> Result<T, Status>;

/// Encodes a protobuf message.
pub fn encode_prost<M: prost::Message>(message: &M) -> Bytes {
    Bytes::from(message.encode_to_vec())
}

/// Decodes a protobuf message; failure is `INTERNAL`, as in gRPC.
pub fn decode_prost<M: prost::Message + Default>(payload: Bytes) -> Result<M, Status> {
    M::decode(payload).map_err(Status::from)
}
