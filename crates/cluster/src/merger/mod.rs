//! Result mergers: how the answers of several service groups become one (Java's `Merger`).
//!
//! A reference to several groups (`group="*"` or `group="a,b"`) with `merger` set calls one
//! provider of every group and merges the results (see
//! [`Mergeable`](crate::strategy::Mergeable)). Mergers are `Arc<dyn Merger>` entries in the
//! framework's [`Extensions`], registered under Java Dubbo's names by [`register_mergers`]:
//!
//! | name | declared return type | result |
//! |---|---|---|
//! | `list` | `java.util.List` | the lists concatenated, in group order |
//! | `set` | `java.util.Set` | the union, first occurrence kept |
//! | `map` | `java.util.Map` | every entry; a key in several results takes the last value |
//! | `boolean`, `byte`, `char`, `short`, `int`, `long`, `float`, `double` | that primitive's array | the arrays concatenated |
//! | `array` | any object array (`String[]`, `Foo[]`) | the arrays concatenated |
//!
//! `merger=true` (or `default`) picks the merger by the method's declared return type, as
//! Java's `MergerFactory` does; `merger=<name>` names one, including your own (register it
//! before the reference is made). Null results are left out before merging, as Java's mergers
//! do.

use std::sync::Arc;

use dubbo_core::{ErrorCode, Extensions, RpcError};
use dubbo_hessian2::Value;

mod arrays;
mod collections;

pub use arrays::{ArrayMerger, PrimitiveArrayMerger};
pub use collections::{ListMerger, MapMerger, SetMerger};

/// Merges the results of a call made to several groups into the one the caller gets.
pub trait Merger: Send + Sync + 'static {
    /// Merges `results` (one per group that answered, in group order, nulls already removed;
    /// at least two). Values are plain trees (already resolved from any encoded form).
    fn merge(&self, results: Vec<Value>) -> Result<Value, RpcError>;
}

/// The built-in mergers and the declared return types (`Class.getName()` form) each is chosen
/// for by `merger=true`. Object arrays (`[L...;`) go to `array`.
const BY_RETURN_TYPE: &[(&str, &str)] = &[
    ("java.util.List", "list"),
    ("java.util.Set", "set"),
    ("java.util.Map", "map"),
    ("[Z", "boolean"),
    ("[B", "byte"),
    ("[C", "char"),
    ("[S", "short"),
    ("[I", "int"),
    ("[J", "long"),
    ("[F", "float"),
    ("[D", "double"),
];

/// The name of the merger `merger=true` uses for a method returning `return_type`
/// (`Class.getName()` form), if there is one.
pub fn merger_name_for(return_type: &str) -> Option<&'static str> {
    if let Some((_, name)) = BY_RETURN_TYPE.iter().find(|(t, _)| *t == return_type) {
        return Some(name);
    }
    // A multi-dimensional array is an array of objects too.
    return_type.starts_with('[').then_some("array")
}

/// Registers the built-in mergers under Java Dubbo's names (see the module documentation).
pub fn register_mergers(extensions: &Extensions) {
    let reg = |name: &str, m: Arc<dyn Merger>| extensions.register::<dyn Merger>(name, m);
    reg("list", Arc::new(ListMerger));
    reg("set", Arc::new(SetMerger));
    reg("map", Arc::new(MapMerger));
    reg("array", Arc::new(ArrayMerger));
    for kind in arrays::Primitive::ALL {
        reg(kind.name(), Arc::new(PrimitiveArrayMerger(kind)));
    }
}

/// A value the merger cannot use: `ErrorCode::Internal`, naming the merger and what it got.
pub(crate) fn not_mergeable(merger: &str, got: &Value) -> RpcError {
    RpcError::framework(
        ErrorCode::Internal,
        format!(
            "merger {merger} cannot merge a result of kind {}",
            kind_of(got)
        ),
    )
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "int",
        Value::Long(_) => "long",
        Value::Double(_) => "double",
        Value::String(_) => "string",
        Value::Binary(_) => "byte[]",
        Value::Date(_) => "date",
        Value::List(_) => "list",
        Value::Map(_) => "map",
        Value::Object(_) => "object",
        _ => "other",
    }
}

#[cfg(test)]
mod tests;
