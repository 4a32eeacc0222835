use std::collections::HashMap;

use serde_json::json;

use super::*;

#[test]
fn written_names() {
    let mut s = RestSchemas::new();
    assert_eq!(
        by_type_name("Option<Vec<User>>", &mut s),
        json!({"type": "array", "items": {"$ref": "#/components/schemas/User"}, "nullable": true})
    );
    assert_eq!(
        s.get("User"),
        Some(&json!({"type": "object", "title": "User"}))
    );
    assert_eq!(
        by_type_name("HashMap<String,i32>", &mut s),
        json!({"type": "object", "additionalProperties": {"type": "integer", "format": "int32"}})
    );
    assert_eq!(
        by_type_name("Option<crate::User>", &mut s),
        json!({"allOf": [{"$ref": "#/components/schemas/User"}], "nullable": true})
    );
}

struct Node;

impl RestSchema for Node {
    fn rest_schema(schemas: &mut RestSchemas) -> Value {
        schemas.define("Node", |s| {
            json!({"type": "object", "properties": {"next": Option::<Box<Node>>::rest_schema(s)}})
        })
    }
}

#[test]
fn types_describe_themselves_and_may_contain_themselves() {
    let mut s = RestSchemas::new();
    // A name-only entry first is replaced by the definition.
    by_type_name("Node", &mut s);
    let r = Vec::<Node>::rest_schema(&mut s);
    assert_eq!(
        r,
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Node"}})
    );
    assert_eq!(
        s.get("Node"),
        Some(&json!({"type": "object", "properties": {"next":
            {"allOf": [{"$ref": "#/components/schemas/Node"}], "nullable": true}}}))
    );
    // ... and a later name-only use keeps it.
    by_type_name("Node", &mut s);
    assert!(s.get("Node").is_some_and(|n| n.get("properties").is_some()));
    assert_eq!(
        HashMap::<i64, Option<u8>>::rest_schema(&mut s),
        json!({"type": "object", "additionalProperties": {"type": "integer", "format": "int32", "nullable": true}})
    );
}

#[test]
#[allow(clippy::needless_borrow)]
fn the_probe_falls_back_on_the_written_name() {
    #[allow(unused_imports)]
    use super::{BySchema as _, ByTypeName as _};
    struct Plain;
    let mut s = RestSchemas::new();
    assert_eq!(
        (&SchemaProbe::<Vec<Node>>::new()).rest_schema_of(&mut s, "Vec<Node>"),
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Node"}})
    );
    assert!(s.get("Node").is_some_and(|n| n.get("properties").is_some()));
    assert_eq!(
        (&SchemaProbe::<Vec<Plain>>::new()).rest_schema_of(&mut s, "Vec<Plain>"),
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Plain"}})
    );
    assert_eq!(
        s.get("Plain"),
        Some(&json!({"type": "object", "title": "Plain"}))
    );
}
