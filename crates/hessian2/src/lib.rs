//! Hessian 2 serialization for dubbo-rs, byte-for-byte compatible with
//! `com.alibaba:hessian-lite` 4.0.x, the codec Java Dubbo 3.3 uses for `dubbo://`
//! bodies and for Triple's interface (wrapper) mode.
//!
//! # Layers
//!
//! - [`Hessian2Writer`] / [`Hessian2Reader`]: one Hessian stream each, with its
//!   class-definition, type-name and reference tables. Everything written through one
//!   writer (or read through one reader) shares them, like the fields of one `dubbo://`
//!   body; [`Hessian2Writer::reset_tables`] starts a fresh stream, as each argument of a
//!   Triple wrapper needs.
//! - [`Value`]: a dynamic value (like `serde_json::Value`) for generic invocation; any
//!   stream decodes into it and encodes back, keeping class names, collection types and
//!   field order.
//! - serde: [`to_vec`], [`from_slice`], [`to_value`], [`from_value`],
//!   [`Hessian2Writer::serialize`], [`Hessian2Reader::deserialize`]. A struct's Java
//!   class is its serde name (`#[serde(rename = "org.apache.dubbo.interop.User")]`).
//! - [`java`]: `BigDecimal`, `BigInteger`, `Date`, exceptions, typed arrays and
//!   collections, JVM descriptors and [`java::JavaType`].
//!
//! # Example
//!
//! ```
//! use std::collections::HashMap;
//! use dubbo_hessian2::{Hessian2Reader, Hessian2Writer, Value};
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! #[serde(rename = "org.apache.dubbo.interop.User")]
//! struct User {
//!     id: i64,
//!     name: String,
//!     age: i32,
//!     tags: Vec<String>,
//!     attrs: HashMap<String, String>,
//! }
//!
//! let user = User { id: 7, name: "alice".into(), age: 27, tags: vec!["t7".into()], attrs: HashMap::new() };
//!
//! // A dubbo:// response body: one stream, several values.
//! let mut w = Hessian2Writer::new();
//! w.write_int(4); // RESPONSE_VALUE_WITH_ATTACHMENTS
//! w.serialize(&user)?;
//! w.write_value(&Value::map(vec![("dubbo".into(), "2.0.2".into())]))?;
//! let body = w.into_bytes();
//!
//! let mut r = Hessian2Reader::new(&body);
//! assert_eq!(r.read_int()?, 4);
//! let back: User = r.deserialize()?;
//! assert_eq!(back, user);
//! let attachments = r.read_value()?;
//! assert_eq!(attachments.get("dubbo").and_then(Value::as_str), Some("2.0.2"));
//!
//! // The same bytes read dynamically: class name and hessian-lite's field order
//! // (primitive/java.lang fields, then the others, reversed).
//! let mut r = Hessian2Reader::new(&body);
//! r.read_int()?;
//! let v = r.read_value()?;
//! let obj = v.as_object().unwrap();
//! assert_eq!(obj.class, "org.apache.dubbo.interop.User");
//! let order: Vec<&str> = obj.fields.iter().map(|(k, _)| k.as_str()).collect();
//! assert_eq!(order, ["attrs", "tags", "age", "name", "id"]);
//! # Ok::<(), dubbo_hessian2::Error>(())
//! ```
//!
//! # Rust to Java mapping
//!
//! `Option` ↔ null; `bool`; `i8`/`i16`/`i32`/`u8`/`u16` ↔ int; `i64`/`u32`/`u64` ↔
//! long; `f64` ↔ double; `f32` ↔ double (a struct field declared `f32` is widened like a
//! Java `float` field, any other `f32` goes through its decimal text like a boxed
//! `Float`); `char`/`String` ↔ string; `Vec`, tuples ↔ `ArrayList`; `HashMap`/`BTreeMap`
//! ↔ `HashMap`; bytes ([`java::ByteBuf`], `#[serde(with = "serde_bytes")]`) ↔ `byte[]`;
//! [`java::Date`] (and `SystemTime` via [`java::system_time`]) ↔ `java.util.Date`;
//! unit-only Rust enums ↔ Java enums (class = the enum's serde name, `name` = the
//! variant; repeated constants are back-references, as Java's identity tracking makes
//! them); structs ↔ POJOs. Decoding matches fields by name and skips unknown ones; a
//! `HashMap` (Java generic calls send POJOs as maps with a `"class"` key) decodes into a
//! struct too, and an unknown class decodes into [`Value::Object`] — never an error.
//!
//! **Field order.** hessian-lite's class definition lists the fields that are primitives
//! or `java.lang.*` (except `Object`) first and the others second, in declaration order,
//! then reverses the whole list. The serializer derives the same order from the Rust
//! field types (`std::any::type_name`: integers, floats, `bool`, `char`, `String`,
//! `Option` of those count as primitive), so a struct declaring its fields in Java
//! declaration order is byte-identical to Java. The order is learnt from the first
//! instance of each class name per thread and cached. Later instances write each field
//! straight into the output as serde hands it over (usually in the reverse of wire
//! order) and, when the struct ends, move the fields' bytes into wire order (one copy of
//! the struct's bytes); only a field whose bytes depend on that order (one that brings a
//! class definition or type name new to the stream, a first enum constant, a
//! back-reference into the struct, a binary) is buffered as a [`Value`] and written in
//! its turn.
//!
//! # Strings
//!
//! Lengths count UTF-16 units; supplementary characters are written as two 3-byte
//! surrogates (CESU-8), chunked with `R` every 0x8000 units without splitting a pair.
//! Reading accepts CESU-8, modified UTF-8 (`C0 80`) and lenient 4-byte UTF-8; an
//! unpaired surrogate (which Java strings may hold, Rust strings cannot) becomes
//! U+FFFD. Invalid lead bytes are an [`Error::InvalidString`].
//!
//! # Borrowing from the input
//!
//! [`from_slice`] and [`Hessian2Reader::deserialize`] take any `Deserialize<'de>`, so a
//! type may point into the bytes it was decoded from instead of copying them. Use
//! [`CowStr`] for text: it borrows a string sent in one chunk that is valid UTF-8 (every
//! string without characters outside the BMP, up to Java's 32 K chunk), copies the others,
//! and borrows inside `Vec`s and as `HashMap` keys too, where a serde `Cow<str>` always
//! copies. `&str` and `&[u8]` (`serde_bytes::Bytes`) borrow as well but fail on values that
//! cannot be borrowed. Skipping the copies (and their allocations and frees) makes decoding
//! text-heavy POJOs about 1.5× faster (see *Performance*).
//!
//! ```
//! use dubbo_hessian2::{from_slice, to_vec, CowStr};
//! use serde::Deserialize;
//!
//! #[derive(Deserialize)]
//! #[serde(rename = "org.apache.dubbo.interop.User")]
//! struct UserRef<'a> {
//!     id: i64,
//!     #[serde(borrow)]
//!     name: CowStr<'a>,
//!     #[serde(borrow)]
//!     tags: Vec<CowStr<'a>>,
//! }
//!
//! # #[derive(serde::Serialize)]
//! # #[serde(rename = "org.apache.dubbo.interop.User")]
//! # struct User { id: i64, name: String, tags: Vec<String> }
//! let bytes = to_vec(&User { id: 1, name: "alice".into(), tags: vec!["t1".into()] })?;
//! let user: UserRef = from_slice(&bytes)?;
//! assert_eq!(&*user.name, "alice");
//! assert!(user.name.is_borrowed() && user.tags[0].is_borrowed());
//! # Ok::<(), dubbo_hessian2::Error>(())
//! ```
//!
//! # References
//!
//! A `Q` back-reference to a value that is complete decodes as a copy of it (re-read
//! from the input, bounded by [`Limits::max_ref_replay`]); a `Q` to a value still being
//! built (a cycle, like a Java exception whose `cause` is itself) decodes as
//! [`Value::Ref`]`(k)`, counting enclosing containers outwards from 0. Typed targets see
//! such a cycle as `None`/unit.
//!
//! # Hostile input
//!
//! Decoding never panics: truncated, malformed or hostile bytes give a typed [`Error`]
//! (with a stable [`Error::code`]). Nothing is allocated beyond what the remaining input
//! can fill (a declared length of 2^31 allocates nothing), nesting is capped by
//! [`Limits::max_depth`] (128), and reference, class and type indexes are checked.
//!
//! A cargo-fuzz target ships in `crates/hessian2/fuzz` (its own workspace):
//!
//! ```text
//! cd crates/hessian2/fuzz && cargo +nightly fuzz run decode_value -- -max_total_time=300
//! cd crates/hessian2/fuzz && cargo +nightly fuzz run roundtrip -- -max_total_time=300
//! ```
//!
//! `decode_value` reads values until the input ends (also through the typed serde
//! path); `roundtrip` checks decode → encode → decode gives equal values.
//!
//! # Performance
//!
//! Throughput relative to Java's hessian-lite 4.0.4 (Java's CPU time per operation
//! divided by Rust's: 3× means Rust does the work in a third of the time), same machine,
//! same run, same values; figures, method and history in `docs/performance-hessian.md`:
//!
//! | case | encode (glibc / mimalloc) | decode (glibc / mimalloc) | decode, borrowing types |
//! |---|---:|---:|---:|
//! | `pojo_1k`: one 10-field POJO, 690 B | 4.0× / 3.9× | 2.2× / 1.8× | 4.0× / 4.0× |
//! | `pojos_100`: a list of 100 of them, 61 KB | 3.4× / 3.5× | 1.4× / 2.1× | 3.3× / 3.2× |
//! | `string_64k`: 65,536 ASCII chars | 47× / 51× | 36× / 45× | |
//! | `binary_64k`: a 64 KB `byte[]` | 2.7× / 2.3× | 84× / 55× | |
//! | `users_100`: 100 five-field `User`s, 2.5 KB | 2.5× / 2.3× | 0.6× / 0.9× | 1.1× / 1.3× |
//!
//! (10th percentile of the CPU time per op, each side pinned to one CPU of a 2-CPU AMD
//! EPYC VM shared with other work; 2026-11-30; "glibc" is Rust's default allocator,
//! "mimalloc" the same harness with mimalloc as global allocator, as the dubbo-rs binaries
//! use; "borrowing types" decode into structs whose strings are [`CowStr`]s.) The 3× bar is
//! met for encoding POJOs and strings, for decoding strings and binaries, and for decoding
//! POJOs into borrowing types. It is missed in two places. Decoding POJOs into owned types
//! is dominated by building the result: 35 allocations, frees and copies and 10 SipHashed
//! map keys per `BenchPojo`, where the JVM bumps a pointer and collects on another thread.
//! Encoding a binary is one 64 KB memory copy. The benchmark times that copy alone on both
//! sides (1.5 µs), which caps any encoder at about 2.8× Java's two-copy encode on this
//! machine.
//!
//! Reproduce (builds both harnesses, runs Java, Rust and Rust with mimalloc pinned to one
//! CPU, rewrites the table in `docs/performance-hessian.md`):
//!
//! ```text
//! scripts/bench-hessian.sh [--rounds 2]
//! ```
//!
//! The criterion benches of the same cases: `cargo bench -p dubbo-hessian2 --bench codec`.
//! Writers and readers keep their tables' allocations in a thread-local pool between
//! messages; a struct's field order is computed once per type.
//!
//! # Known limits
//!
//! - Rust has no object identity: sharing inside a [`Value`] or a Rust struct is
//!   written as copies, except enum constants and `Collections$EmptyList`/`EmptySet`/
//!   `EmptyMap`, which are shared like Java's singletons. Use
//!   [`Hessian2Writer::write_ref`] to express sharing explicitly.
//! - Struct layouts are cached per class name and thread: two Rust types serialized
//!   under the same class name must have the same fields. Fields skipped with
//!   `skip_serializing_if` are written as null (hessian-lite always writes every field).
//! - hessian-lite splits a large `byte[]` into chunks at its 8 KiB buffer boundaries;
//!   the writer mirrors that buffer exactly, except after struct fields that were
//!   moved into wire order, where the mirrored position is approximated.
//!   Chunking of a later large binary in the same stream may then differ from Java's
//!   (the bytes are still valid Hessian that Java reads back).

// One audited exception: `copy::ascii_str`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod constants;
mod copy;
mod cow_str;
mod de;
mod error;
mod fxhash;
pub mod java;
#[cfg(feature = "json")]
pub mod json;
mod reader;
mod ser;
mod typed;
mod value;
mod writer;

pub use cow_str::CowStr;
pub use de::ValueDeserializer;
pub use error::Error;
pub use reader::{Hessian2Reader, Limits};
pub use typed::{Encoded, Typed};
pub use value::{List, Map, Object, Value};
pub use writer::Hessian2Writer;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Serializes `v` as one Hessian 2 stream (fresh tables).
pub fn to_vec<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, Error> {
    let mut w = Hessian2Writer::new();
    w.serialize(v)?;
    Ok(w.into_bytes())
}

/// Deserializes one value from `bytes`, which must hold exactly that value. `T` may
/// borrow from `bytes` (see [`Hessian2Reader::deserialize`]).
pub fn from_slice<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    let mut r = Hessian2Reader::new(bytes);
    let v = r.deserialize()?;
    if r.remaining() > 0 {
        return Err(Error::TrailingBytes {
            count: r.remaining(),
        });
    }
    Ok(v)
}

/// Converts any `Serialize` value into a [`Value`], with the same mapping (class
/// names, field order, enum objects...) the writer uses.
pub fn to_value<T: Serialize + ?Sized>(v: &T) -> Result<Value, Error> {
    v.serialize(ser::ValueSer::plain())
}

/// Deserializes a `T` from a [`Value`].
pub fn from_value<T: DeserializeOwned>(v: Value) -> Result<T, Error> {
    T::deserialize(ValueDeserializer(v))
}

/// Deserializes a `T` from a borrowed [`Value`] (clones it).
pub fn from_value_ref<T: DeserializeOwned>(v: &Value) -> Result<T, Error> {
    from_value(v.clone())
}

impl Hessian2Writer {
    /// Serializes any `Serialize` value into this stream (see the crate docs for the
    /// Rust to Java mapping).
    pub fn serialize<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let res = v.serialize(ser::Ser::new(self));
        if res.is_err() {
            self.seg_reset();
        }
        res
    }
}

impl<'de> Hessian2Reader<'de> {
    /// Skips the next value of the stream without building it (strings and binaries are
    /// not copied), keeping the stream's tables as reading it would.
    pub fn skip_value(&mut self) -> Result<(), Error> {
        self.top_level(Self::skip_value_inner)
    }

    /// Deserializes the next value of the stream into `T`.
    ///
    /// `T` may borrow from the input: [`CowStr`], `&'de str` and `&'de [u8]` take strings
    /// and binaries sent in one chunk (Java splits only those over 32 K chars or bytes)
    /// without copying them, as long as the string is valid UTF-8 (CESU-8 differs from it
    /// only for chars outside the BMP). A `&str` field fails on a string that cannot be
    /// borrowed; `CowStr` copies those instead, so it is the type to use for text from the
    /// wire (see *Borrowing from the input* in the crate docs).
    pub fn deserialize<T: Deserialize<'de>>(&mut self) -> Result<T, Error> {
        self.top_level(|r| T::deserialize(r))
    }
}
