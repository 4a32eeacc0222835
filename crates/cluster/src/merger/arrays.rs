//! Mergers for Java arrays: one per primitive type, and `array` for arrays of objects.

use dubbo_core::RpcError;
use dubbo_hessian2::{List, Value};

use super::{not_mergeable, Merger};

/// A primitive element type, as Java names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    /// `boolean[]`
    Boolean,
    /// `byte[]`, which Hessian writes as binary.
    Byte,
    /// `char[]`, which Hessian writes as a string.
    Char,
    /// `short[]`
    Short,
    /// `int[]`
    Int,
    /// `long[]`
    Long,
    /// `float[]`
    Float,
    /// `double[]`
    Double,
}

impl Primitive {
    /// Every primitive type.
    pub const ALL: [Primitive; 8] = [
        Primitive::Boolean,
        Primitive::Byte,
        Primitive::Char,
        Primitive::Short,
        Primitive::Int,
        Primitive::Long,
        Primitive::Float,
        Primitive::Double,
    ];

    /// The Java name, which is also the merger's name.
    pub fn name(self) -> &'static str {
        match self {
            Primitive::Boolean => "boolean",
            Primitive::Byte => "byte",
            Primitive::Char => "char",
            Primitive::Short => "short",
            Primitive::Int => "int",
            Primitive::Long => "long",
            Primitive::Float => "float",
            Primitive::Double => "double",
        }
    }

    /// The Hessian type of an array of this type (`[int`).
    fn hessian_array_type(self) -> String {
        format!("[{}", self.name())
    }
}

/// Concatenates arrays of one primitive type (Java's `IntArrayMerger` and its siblings).
#[derive(Debug, Clone, Copy)]
pub struct PrimitiveArrayMerger(pub Primitive);

impl Merger for PrimitiveArrayMerger {
    fn merge(&self, results: Vec<Value>) -> Result<Value, RpcError> {
        let name = self.0.name();
        match self.0 {
            Primitive::Byte => {
                let mut bytes = Vec::new();
                for r in results {
                    match r {
                        Value::Binary(b) => bytes.extend(b),
                        Value::List(l) => {
                            for item in l.items {
                                let Value::Int(i) = item else {
                                    return Err(not_mergeable(name, &item));
                                };
                                // A byte travels as an int; the cast keeps its two's-complement bits.
                                bytes.push(i as u8);
                            }
                        }
                        other => return Err(not_mergeable(name, &other)),
                    }
                }
                Ok(Value::Binary(bytes))
            }
            Primitive::Char => {
                let mut text = String::new();
                for r in results {
                    match r {
                        Value::String(s) => text.push_str(&s),
                        Value::List(l) => {
                            for item in l.items {
                                let Value::String(s) = item else {
                                    return Err(not_mergeable(name, &item));
                                };
                                text.push_str(&s);
                            }
                        }
                        other => return Err(not_mergeable(name, &other)),
                    }
                }
                Ok(Value::String(text))
            }
            _ => concat(name, Some(self.0.hessian_array_type()), results),
        }
    }
}

/// `array`: concatenates arrays of objects; the result keeps the first array's element type
/// (Java's `ArrayMerger` makes an array of the first result's component type).
#[derive(Debug, Default, Clone, Copy)]
pub struct ArrayMerger;

impl Merger for ArrayMerger {
    fn merge(&self, results: Vec<Value>) -> Result<Value, RpcError> {
        let type_name = results.iter().find_map(|r| match r {
            Value::List(l) => l.type_name.clone(),
            _ => None,
        });
        concat("array", type_name, results)
    }
}

fn concat(name: &str, type_name: Option<String>, results: Vec<Value>) -> Result<Value, RpcError> {
    let mut items = Vec::new();
    for r in results {
        match r {
            Value::List(l) => items.extend(l.items),
            other => return Err(not_mergeable(name, &other)),
        }
    }
    Ok(Value::List(List { type_name, items }))
}
