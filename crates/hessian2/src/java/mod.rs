//! Java-specific helpers: `BigDecimal`/`BigInteger`, `java.util.Date`, exceptions,
//! typed arrays and collections, JVM descriptors and Java type names.
//!
//! `byte[]` is [`serde_bytes::ByteBuf`] (re-exported here as [`ByteBuf`]); use it, or
//! `#[serde(with = "serde_bytes")]` on a `Vec<u8>` field, for Java `byte[]`: a plain
//! `Vec<u8>` serializes as a list of ints (`List<Integer>`), as serde describes it.

mod bigdecimal;
mod collections;
mod date;
mod definition;
mod descriptor;
mod exception;
mod java_type;

pub use bigdecimal::{BigDecimal, BigInteger};
pub use collections::{
    concurrent_hash_map, empty_list, hash_set, linked_hash_map, Array, TypedList, TypedMap,
};
pub use date::{system_time, Date};
pub use definition::{
    ByDefinition, ByName, DefinitionProbe, JavaTypeDefinition, TypeDefinition, TypeDefinitions,
};
pub use descriptor::{
    class_get_name, descriptor_to_java_name, java_name_to_descriptor, split_descriptors,
};
pub use exception::JavaException;
pub use java_type::{hessian_array_type, JavaType};
pub use serde_bytes::ByteBuf;
