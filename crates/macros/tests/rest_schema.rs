//! `#[derive(RestSchema)]` and the `#[service]` macro's use of it: the schemas a REST document
//! gets for derived types (fields under serde's names, `required`, nested types by `$ref`) and
//! for types without it (their names only).

#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::collections::HashMap;

use dubbo_core::rest_schema::{RestSchema, RestSchemas};
use dubbo_core::{RpcError, ServiceHandler};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod dubbo_rs {
    pub use dubbo_core as core;
    pub use dubbo_hessian2 as hessian2;
    pub use dubbo_url as url;
}

/// A person.
#[derive(Serialize, Deserialize, dubbo_macros::RestSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[rest_schema(crate = "crate::dubbo_rs")]
struct Person {
    /// Unique.
    person_id: i64,
    #[serde(rename = "fullName")]
    name: Option<String>,
    #[serde(skip)]
    cache: u8,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    boss: Option<Box<Person>>,
    kind: Kind,
    scores: HashMap<String, f64>,
    /// A type without RestSchema: its name only.
    badge: Badge,
    id: Id,
    #[serde(with = "as_text")]
    custom: u32,
}

mod as_text {
    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.to_string())
    }
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        let t: String = serde::Deserialize::deserialize(d)?;
        t.parse().map_err(serde::de::Error::custom)
    }
}

#[derive(Serialize, Deserialize, dubbo_macros::RestSchema)]
#[serde(rename_all = "kebab-case")]
#[rest_schema(crate = "crate::dubbo_rs", name = "PersonKind")]
enum Kind {
    Staff,
    #[serde(rename = "ext")]
    ExternalContractor,
    PartTime,
}

#[derive(Serialize, Deserialize)]
struct Badge {
    number: u32,
}

dubbo_hessian2::java_type!(Person => "org.example.Person");
dubbo_hessian2::java_type!(Badge => "org.example.Badge");

#[derive(Serialize, Deserialize, dubbo_macros::RestSchema)]
#[rest_schema(crate = "crate::dubbo_rs")]
struct Id(i64);

#[derive(Serialize, Deserialize, dubbo_macros::RestSchema)]
#[serde(transparent)]
#[rest_schema(crate = "crate::dubbo_rs")]
struct Wrapper {
    inner: Vec<Kind>,
}

#[test]
fn a_struct_lists_its_fields_as_serde_writes_them() {
    let mut s = RestSchemas::new();
    assert_eq!(
        Person::rest_schema(&mut s),
        json!({"$ref": "#/components/schemas/Person"})
    );
    let person = s.get("Person").unwrap();
    assert_eq!(
        person,
        &json!({
            "type": "object",
            "description": "A person.",
            "additionalProperties": false,
            "properties": {
                "personId": {"type": "integer", "format": "int64", "description": "Unique."},
                "fullName": {"type": "string", "nullable": true},
                "tags": {"type": "array", "items": {"type": "string"}},
                "boss": {"allOf": [{"$ref": "#/components/schemas/Person"}], "nullable": true},
                "kind": {"$ref": "#/components/schemas/PersonKind"},
                "scores": {"type": "object", "additionalProperties": {"type": "number", "format": "double"}},
                "badge": {"$ref": "#/components/schemas/Badge"},
                "id": {"type": "integer", "format": "int64"},
                "custom": {},
            },
            "required": ["personId", "kind", "scores", "badge", "id", "custom"],
        })
    );
    assert_eq!(
        s.get("PersonKind"),
        Some(&json!({"type": "string", "enum": ["staff", "ext", "part-time"]}))
    );
    assert_eq!(
        s.get("Badge"),
        Some(&json!({"type": "object", "title": "Badge"}))
    );
    assert_eq!(
        Wrapper::rest_schema(&mut s),
        json!({"type": "array", "items": {"$ref": "#/components/schemas/PersonKind"}})
    );
}

#[dubbo_macros::service(interface = "org.example.People", crate = "crate::dubbo_rs")]
trait People: Send + Sync + 'static {
    #[post("/people")]
    async fn add(&self, person: Person) -> Result<Vec<Person>, RpcError>;
    async fn badge(&self, b: Option<Badge>) -> Result<Badge, RpcError>;
}

struct Nobody;

impl People for Nobody {
    async fn add(&self, _: Person) -> Result<Vec<Person>, RpcError> {
        Ok(Vec::new())
    }
    async fn badge(&self, b: Option<Badge>) -> Result<Badge, RpcError> {
        Ok(b.unwrap_or(Badge { number: 0 }))
    }
}

#[test]
fn the_service_mapping_takes_the_derived_schemas_and_falls_back_on_names() {
    let server = PeopleServer::new(Nobody);
    let rest = server.rest().unwrap();
    let mut s = RestSchemas::new();
    let add = &rest.methods[0];
    let schema = add.params[0].schema.unwrap();
    assert_eq!(
        schema(&mut s),
        json!({"$ref": "#/components/schemas/Person"})
    );
    assert_eq!(
        add.returns_schema.unwrap()(&mut s),
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Person"}})
    );
    assert!(s.get("Person").unwrap()["properties"]["personId"].is_object());
    let badge = &rest.methods[1];
    assert_eq!(
        badge.params[0].schema.unwrap()(&mut s),
        json!({"allOf": [{"$ref": "#/components/schemas/Badge"}], "nullable": true})
    );
    assert_eq!(
        s.get("Badge"),
        Some(&json!({"type": "object", "title": "Badge"}))
    );
}
