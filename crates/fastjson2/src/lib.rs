//! fastjson2's JSONB binary format for dubbo-rs: Dubbo serialization id 23, the default of
//! Java Dubbo 3.2 applications that have fastjson2 on their classpath (and an option of 3.3).
//!
//! Values decode into, and encode from, the project's dynamic [`Value`]
//! (`dubbo_hessian2::Value`), the tree every payload form converts to, so that a call can
//! carry fastjson2 bytes wherever it carries Hessian 2 ones.
//!
//! # Layers
//!
//! - [`constants`]: the JSONB byte codes.
//! - [`JsonbReader`]: one JSONB stream to a [`Value`], with its symbol table (type and field
//!   names written once, then by id) and references (`$[0]`, `$.field`, `#-1`).
//! - [`JsonbWriter`]: a [`Value`] to JSONB with the writer features Java Dubbo's
//!   `FastJson2ObjectOutput` passes: `WriteClassName`, `FieldBased`, `ReferenceDetection`,
//!   `WriteNulls`, `NotWriteDefaultValue`, `NotWriteHashMapArrayListClassName`,
//!   `WriteNameAsSymbol` (and `ErrorOnNoneSerializable`, which only concerns Java classes).
//! - [`write_object`], [`FrameReader`]: Dubbo's framing, a 4-byte length before each value.
//!
//! # Mapping
//!
//! int ↔ [`Value::Int`] (byte and short decode as it too); long ↔ [`Value::Long`]; double and
//! float ↔ [`Value::Double`]; `String` and `char` ↔ [`Value::String`]; `byte[]` ↔
//! [`Value::Binary`]; `java.util.Date` (epoch milliseconds) ↔ [`Value::Date`]; arrays and
//! collections ↔ [`Value::List`] (a class name other than `ArrayList` kept as its type name);
//! objects ↔ [`Value::Map`] when untyped or of a `Map` class, [`Value::Object`] when a bean's
//! class name precedes them; `BigDecimal`/`BigInteger` ↔ an [`Object`](dubbo_hessian2::Object)
//! of that class with its `toString()` text in field `value`, as the Hessian codec has them.
//! A reference to a completed value decodes as a copy of it; one to an enclosing value (a
//! cycle) as [`Value::Ref`].
//!
//! # Example
//!
//! ```
//! use dubbo_fastjson2::{write_object, FrameReader};
//! use dubbo_hessian2::Value;
//!
//! let user = Value::object(
//!     "org.apache.dubbo.interop.User",
//!     vec![("id", Value::Long(7)), ("name", Value::string("alice"))],
//! );
//! let mut body = Vec::new();
//! write_object(&mut body, &user)?;
//! write_object(&mut body, &Value::Int(42))?;
//!
//! let mut r = FrameReader::new(&body);
//! assert_eq!(r.read_object()?, user);
//! assert_eq!(r.read_object()?, Value::Int(42));
//! assert!(r.is_empty());
//! # Ok::<(), dubbo_fastjson2::Error>(())
//! ```
//!
//! Decoding never panics and never allocates more than the input could fill: every length is
//! checked against the bytes that remain, nesting is bounded, and symbol ids from the input
//! index a map, not a vector.

pub mod constants;
mod decimal;
mod error;
mod frame;
mod reader;
mod typing;
mod writer;

pub use dubbo_hessian2::Value;
pub use error::{Error, Result};
pub use frame::{from_jsonb, to_jsonb, write_bytes, write_object, FrameReader};
pub use reader::{JsonbReader, DEFAULT_MAX_DEPTH};
pub use writer::JsonbWriter;

/// Dubbo's serialization id for fastjson2 (`FastJson2Serialization.getContentTypeId()`).
pub const SERIALIZATION_ID: u8 = 23;

/// Dubbo's name of the serialization (`serialization=fastjson2`, `prefer.serialization`).
pub const SERIALIZATION_NAME: &str = "fastjson2";
