//! Hessian 2 serialization for dubbo-rs, byte-for-byte compatible with the
//! `com.alibaba:hessian-lite` 4.0.x codec that Java Dubbo 3.3 uses.
//!
//! Placeholder docs; see the full crate documentation below.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod constants;
mod error;
mod fxhash;
mod reader;
mod ser;
mod value;
mod writer;

pub use error::Error;
pub use reader::{Hessian2Reader, Limits};
pub use value::{List, Map, Object, Value};
pub use writer::Hessian2Writer;
