//! [`RestSchema`] for the types serde writes as JSON primitives, arrays and objects.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{json, Value};

use super::{nullable, RestSchema, RestSchemas};

macro_rules! fixed {
    ($($t:ty),* => $schema:tt) => {$(
        impl RestSchema for $t {
            fn rest_schema(_: &mut RestSchemas) -> Value {
                json!($schema)
            }
        }
    )*};
}

fixed!(i8, i16, i32, u8, u16 => {"type": "integer", "format": "int32"});
fixed!(i64, u32, u64, i128, u128, isize, usize => {"type": "integer", "format": "int64"});
fixed!(f32 => {"type": "number", "format": "float"});
fixed!(f64 => {"type": "number", "format": "double"});
fixed!(bool => {"type": "boolean"});
fixed!(String, str, char => {"type": "string"});
fixed!(dubbo_hessian2::java::ByteBuf => {"type": "array", "items": {"type": "integer", "format": "int32"}});
fixed!(Value => {});

impl<T: RestSchema> RestSchema for Option<T> {
    fn rest_schema(schemas: &mut RestSchemas) -> Value {
        nullable(T::rest_schema(schemas))
    }
}

macro_rules! wrapper {
    ($($w:ident),*) => {$(
        impl<T: RestSchema + ?Sized> RestSchema for $w<T> {
            fn rest_schema(schemas: &mut RestSchemas) -> Value {
                T::rest_schema(schemas)
            }
        }
    )*};
}

wrapper!(Box, Arc, Rc);

macro_rules! array {
    ($($c:ident),* => $unique:expr) => {$(
        impl<T: RestSchema> RestSchema for $c<T> {
            fn rest_schema(schemas: &mut RestSchemas) -> Value {
                let mut s = json!({"type": "array", "items": T::rest_schema(schemas)});
                if $unique {
                    s["uniqueItems"] = Value::Bool(true);
                }
                s
            }
        }
    )*};
}

array!(Vec, VecDeque => false);
array!(BTreeSet => true);

impl<T: RestSchema, S> RestSchema for HashSet<T, S> {
    fn rest_schema(schemas: &mut RestSchemas) -> Value {
        json!({"type": "array", "items": T::rest_schema(schemas), "uniqueItems": true})
    }
}

impl<T: RestSchema> RestSchema for [T] {
    fn rest_schema(schemas: &mut RestSchemas) -> Value {
        Vec::<T>::rest_schema(schemas)
    }
}

impl<T: RestSchema, const N: usize> RestSchema for [T; N] {
    fn rest_schema(schemas: &mut RestSchemas) -> Value {
        json!({"type": "array", "items": T::rest_schema(schemas), "minItems": N, "maxItems": N})
    }
}

// JSON object keys are text whatever the key type (serde writes `1` as `"1"`).
impl<K, V: RestSchema, S> RestSchema for HashMap<K, V, S> {
    fn rest_schema(schemas: &mut RestSchemas) -> Value {
        json!({"type": "object", "additionalProperties": V::rest_schema(schemas)})
    }
}

impl<K, V: RestSchema> RestSchema for BTreeMap<K, V> {
    fn rest_schema(schemas: &mut RestSchemas) -> Value {
        json!({"type": "object", "additionalProperties": V::rest_schema(schemas)})
    }
}
