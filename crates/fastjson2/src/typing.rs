//! What a JSONB type name (`WriteClassName`) makes of the value it precedes in the dynamic
//! tree: a bean's fields become an [`Object`] of that class, a map or collection class
//! becomes the type name of a [`Map`] or [`List`], and the type names Java writes before
//! values that carry their own type (`[B` before `byte[]`, boxed numbers) change nothing.

use dubbo_hessian2::{List, Map, Object, Value};

/// The collection class Java writes no name for (`NotWriteHashMapArrayListClassName`).
pub(crate) const PLAIN_LIST: &str = "java.util.ArrayList";
/// The map class Java writes no name for.
pub(crate) const PLAIN_MAP: &str = "java.util.HashMap";

/// Whether `class` names a `java.util.Map` implementation rather than a bean. fastjson2's own
/// `JSONObject` is one too.
pub(crate) fn is_map_class(class: &str) -> bool {
    class.ends_with("Map")
        || class == "com.alibaba.fastjson2.JSONObject"
        || class == "java.util.Properties"
}

/// The class a type name stands for. fastjson2 writes the `java.lang` exceptions and errors
/// it has name mappings for by their simple name (`IllegalStateException`), and reads that
/// name back as the class; the tree carries the full name, as Hessian 2 writes it.
pub(crate) fn full_class_name(class: String) -> String {
    let java_lang = !class.contains('.')
        && !class.starts_with('[')
        && (class.ends_with("Exception") || class.ends_with("Error") || class == "Throwable");
    if java_lang {
        format!("java.lang.{class}")
    } else {
        class
    }
}

/// Applies the type name `class` to the value read after it.
pub(crate) fn apply_type(class: String, value: Value) -> Value {
    let class = full_class_name(class);
    match value {
        // A map under a `java.math` name has no bean form here (the tree carries those as
        // their text), so it stays a map of that type and is written back as one.
        Value::Map(map) if is_map_class(&class) || class.starts_with("java.math.") => {
            let type_name = (class != PLAIN_MAP).then_some(class);
            Value::Map(Map {
                type_name,
                entries: map.entries,
            })
        }
        Value::Map(map) => {
            // A bean: its names are strings; any other key means this was a map after all.
            if map
                .entries
                .iter()
                .all(|(k, _)| matches!(k, Value::String(_)))
            {
                let fields = map.entries.into_iter().filter_map(|(k, v)| match k {
                    Value::String(k) => Some((k, v)),
                    _ => None,
                });
                Value::Object(Object::new(class, fields))
            } else {
                Value::Map(Map {
                    type_name: Some(class),
                    entries: map.entries,
                })
            }
        }
        Value::List(list) => {
            // Array classes (`[Ljava.lang.String;`, `[I`) decode as plain lists, as Java
            // converts a list to the array type it expects.
            let type_name = (class != PLAIN_LIST && !class.starts_with('[')).then_some(class);
            Value::List(List {
                type_name,
                items: list.items,
            })
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_lang_exceptions_by_simple_name_get_their_package() {
        assert_eq!(
            full_class_name("IllegalStateException".into()),
            "java.lang.IllegalStateException"
        );
        assert_eq!(full_class_name("Throwable".into()), "java.lang.Throwable");
        assert_eq!(full_class_name("a.b.MyException".into()), "a.b.MyException");
        assert_eq!(
            full_class_name("[Ljava.lang.Error;".into()),
            "[Ljava.lang.Error;"
        );
        assert_eq!(full_class_name("User".into()), "User");
    }
}
