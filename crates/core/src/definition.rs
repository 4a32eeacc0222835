//! Java's `FullServiceDefinition`: what a provider publishes about a service's methods and
//! types (to the metadata report, and through the MetadataService), so that tools such as
//! Dubbo Admin and the `dubbo` command-line tool can show and call it without its classes.

use std::collections::BTreeMap;

use dubbo_hessian2::java::TypeDefinition;
use serde::{Deserialize, Serialize};

/// Java's `org.apache.dubbo.metadata.definition.model.MethodDefinition`, with its JSON names.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MethodDefinition {
    /// Annotations (Java's `toString()` of each); Rust services have none.
    #[serde(default)]
    pub annotations: Vec<String>,
    /// The Java method name.
    pub name: String,
    /// Parameter type names, with type arguments (`java.util.List<java.lang.String>`).
    #[serde(default)]
    pub parameter_types: Vec<String>,
    /// Java's deprecated per-parameter definitions, written empty as Java 3.3 writes them.
    #[serde(default)]
    pub parameters: Vec<TypeDefinition>,
    /// The return type name (`void` for none).
    #[serde(default)]
    pub return_type: String,
}

/// Java's `org.apache.dubbo.metadata.definition.model.FullServiceDefinition`, with its JSON
/// names.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceDefinition {
    /// Annotations of the interface; Rust services have none.
    #[serde(default)]
    pub annotations: Vec<String>,
    /// The Java interface name.
    pub canonical_name: String,
    /// Where the interface comes from: the jar in Java, `crate-version` for a Rust service.
    #[serde(default)]
    pub code_source: String,
    /// The methods, in declaration order.
    #[serde(default)]
    pub methods: Vec<MethodDefinition>,
    /// The exported URL's parameters (set when the definition is published).
    #[serde(default)]
    pub parameters: BTreeMap<String, String>,
    /// Every type the methods reach, one definition per type name.
    #[serde(default)]
    pub types: Vec<TypeDefinition>,
    /// `canonicalName@codeSource`, as Java's getter adds it.
    #[serde(default)]
    pub unique_id: String,
}

impl ServiceDefinition {
    /// A definition of `canonical_name` from `code_source`, without methods yet.
    pub fn new(canonical_name: &str, code_source: &str) -> Self {
        Self {
            canonical_name: canonical_name.to_owned(),
            code_source: code_source.to_owned(),
            unique_id: format!("{canonical_name}@{code_source}"),
            ..Self::default()
        }
    }

    /// The method called `name` with `arity` parameters, if any.
    pub fn method(&self, name: &str, arity: usize) -> Option<&MethodDefinition> {
        self.methods
            .iter()
            .find(|m| m.name == name && m.parameter_types.len() == arity)
    }
}
