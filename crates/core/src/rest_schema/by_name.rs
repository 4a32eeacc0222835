//! The schema of a type known only by the way it is written (`Option<Vec<User>>`): what the
//! `#[service]` macro records of a type that does not implement
//! [`RestSchema`](super::RestSchema).

use serde_json::{json, Value};

use super::{nullable, RestSchemas};

/// The generic arguments of `Name<A, B>`, split at top-level commas.
fn generic_args(ty: &str) -> Option<(&str, Vec<&str>)> {
    let open = ty.find('<')?;
    let inner = ty[open + 1..].strip_suffix('>')?;
    let mut args = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in inner.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                args.push(inner[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(inner[start..].trim());
    Some((&ty[..open], args))
}

/// The schema of a Rust type as written (`Option<Vec<User>>`): numbers, strings, booleans,
/// byte arrays, `Vec`, sets, maps, `Option` and `Box`/`Arc` fully; any other type a named
/// object in `schemas` known by its name only ([`RestSchemas::name_only`]).
pub fn by_type_name(ty: &str, schemas: &mut RestSchemas) -> Value {
    let ty = ty.trim();
    if let Some((name, args)) = generic_args(ty) {
        let last = name.rsplit("::").next().unwrap_or(name);
        return match (last, args.as_slice()) {
            ("Option", [t]) => nullable(by_type_name(t, schemas)),
            ("Vec" | "VecDeque", [t]) => {
                json!({"type": "array", "items": by_type_name(t, schemas)})
            }
            ("HashSet" | "BTreeSet", [t, ..]) => {
                json!({"type": "array", "items": by_type_name(t, schemas), "uniqueItems": true})
            }
            ("HashMap" | "BTreeMap", [_, v, ..]) => {
                json!({"type": "object", "additionalProperties": by_type_name(v, schemas)})
            }
            ("Box" | "Arc" | "Rc", [t]) => by_type_name(t, schemas),
            _ => schemas.name_only(last),
        };
    }
    let last = ty.rsplit("::").next().unwrap_or(ty);
    match last {
        "i8" | "i16" | "i32" | "u8" | "u16" => json!({"type": "integer", "format": "int32"}),
        "i64" | "u32" | "u64" | "i128" | "u128" | "isize" | "usize" => {
            json!({"type": "integer", "format": "int64"})
        }
        "f32" => json!({"type": "number", "format": "float"}),
        "f64" | "BigDecimal" => json!({"type": "number", "format": "double"}),
        "bool" => json!({"type": "boolean"}),
        "String" | "char" | "str" => json!({"type": "string"}),
        "ByteBuf" | "Bytes" => {
            json!({"type": "array", "items": {"type": "integer", "format": "int32"}})
        }
        "Date" => {
            json!({"type": "integer", "format": "int64", "description": "epoch milliseconds"})
        }
        "()" | "Value" => json!({}),
        other => schemas.name_only(other),
    }
}
