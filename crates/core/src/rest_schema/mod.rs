//! The JSON Schema of a REST body, for the OpenAPI document (`/dubbo/openapi/api-docs`).
//!
//! A type that implements [`RestSchema`] describes its JSON form itself: primitives, `String`,
//! `Option`, `Vec`, maps and the like here, and a struct or simple enum with
//! `#[derive(dubbo_rs::RestSchema)]` (its fields, as serde names them). Every other type is
//! described from the way its name is written ([`by_type_name`]): a named object without its
//! fields. The `#[service]` macro picks between the two for each parameter and result with
//! [`SchemaProbe`], so a service compiles whether or not its types derive `RestSchema`.

mod by_name;
mod impls;

use std::collections::HashSet;
use std::marker::PhantomData;

pub use by_name::by_type_name;
/// The JSON types the schemas are made of (re-exported for derived code).
pub use serde_json::{json, Map, Value};

/// A type whose JSON form (as serde writes and reads it) has an OpenAPI 3.0 schema.
///
/// Derive it for a struct with named fields, a newtype struct or an enum of unit variants
/// (`#[derive(Serialize, Deserialize, dubbo_rs::RestSchema)]`); implement it by hand for a
/// type whose JSON form is its own.
pub trait RestSchema {
    /// The schema of the type's JSON form. A named type (a derived struct or enum) adds its
    /// definition to `schemas` ([`RestSchemas::define`]) and answers a `$ref` to it.
    fn rest_schema(schemas: &mut RestSchemas) -> Value;
}

/// The named schemas of one document (its `components.schemas`), filled as types are
/// described.
#[derive(Debug, Default)]
pub struct RestSchemas {
    map: Map<String, Value>,
    /// Names defined by a [`RestSchema`] (or being defined): a name-only entry does not
    /// replace them, and they replace a name-only entry.
    defined: HashSet<String>,
}

impl RestSchemas {
    /// No schemas yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Defines the schema `name` (once per document: later calls only answer the `$ref`) with
    /// the schema `build` makes, and answers `{"$ref": "#/components/schemas/{name}"}`. The
    /// name is entered before `build` runs, so a type that contains itself ends.
    pub fn define(&mut self, name: &str, build: impl FnOnce(&mut Self) -> Value) -> Value {
        let name = component_name(name);
        if self.defined.insert(name.clone()) {
            self.map
                .insert(name.clone(), json!({"type": "object", "title": name}));
            let schema = build(self);
            self.map.insert(name.clone(), schema);
        }
        reference(&name)
    }

    /// A named object known by its name only (`{"type": "object", "title": name}`) unless the
    /// name is defined with its fields; answers its `$ref`.
    pub fn name_only(&mut self, name: &str) -> Value {
        let name = component_name(name);
        self.map
            .entry(name.clone())
            .or_insert_with(|| json!({"type": "object", "title": name.clone()}));
        reference(&name)
    }

    /// The schema named `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.map.get(name)
    }

    /// The schemas by name, for `components.schemas`.
    pub fn into_map(self) -> Map<String, Value> {
        self.map
    }
}

/// OpenAPI component names are `[A-Za-z0-9._-]+`: other characters are left out.
fn component_name(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        .collect()
}

fn reference(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// Picks, for a type named in a service trait, its [`RestSchema`] when it has one and the
/// schema [`by_type_name`] makes of its written name otherwise. The `#[service]` macro calls
/// `(&SchemaProbe::<T>::new()).rest_schema_of(schemas, "Vec<User>")` with [`BySchema`] and
/// [`ByTypeName`] in scope: method lookup tries the first by value before the second by
/// reference.
pub struct SchemaProbe<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> SchemaProbe<T> {
    /// The probe for `T`.
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T: ?Sized> Default for SchemaProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The probe's first choice: the type's own [`RestSchema`].
pub trait BySchema {
    /// The schema of the type (`written` is not read).
    fn rest_schema_of(&self, schemas: &mut RestSchemas, written: &str) -> Value;
}

impl<T: RestSchema + ?Sized> BySchema for SchemaProbe<T> {
    fn rest_schema_of(&self, schemas: &mut RestSchemas, _written: &str) -> Value {
        T::rest_schema(schemas)
    }
}

/// The probe's fallback: the schema of the type's written name ([`by_type_name`]).
pub trait ByTypeName {
    /// The schema [`by_type_name`] makes of `written`.
    fn rest_schema_of(&self, schemas: &mut RestSchemas, written: &str) -> Value;
}

impl<T: ?Sized> ByTypeName for &SchemaProbe<T> {
    fn rest_schema_of(&self, schemas: &mut RestSchemas, written: &str) -> Value {
        by_type_name(written, schemas)
    }
}

/// `{"$ref"...}` or a schema made nullable, as OpenAPI 3.0 writes an `Option`: a `$ref`
/// cannot take siblings, so it goes in an `allOf`.
pub fn nullable(mut schema: Value) -> Value {
    match schema.as_object_mut() {
        Some(o) if !o.contains_key("$ref") => {
            o.insert("nullable".to_owned(), Value::Bool(true));
            schema
        }
        _ => json!({"allOf": [schema], "nullable": true}),
    }
}

#[cfg(test)]
mod tests;
