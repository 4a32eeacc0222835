//! Java's `TypeDefinition`s, the type part of a service definition (`FullServiceDefinition`), and
//! [`JavaTypeDefinition`], which Rust types implement to describe themselves as Java's
//! `ServiceDefinitionBuilder` describes the Java types they stand for.
//!
//! Java names a parameterized type with its arguments (`java.util.List<java.lang.String>`),
//! lists a collection's element types and a map's key and value types as `items`, an array's
//! component type as its one item, a class's fields as `properties` (name → type), and gives
//! every type it reaches a definition of its own, primitives included.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::marker::PhantomData;

use serde::{Deserialize, Serialize};

use super::JavaType;
use crate::Value;

/// Java's `org.apache.dubbo.metadata.definition.model.TypeDefinition`, with its JSON names.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TypeDefinition {
    /// The constants of an enum (empty for other types).
    #[serde(default)]
    pub enums: Vec<String>,
    /// Element types of a collection or array; key and value types of a map.
    #[serde(default)]
    pub items: Vec<String>,
    /// A class's fields: field name → type name.
    #[serde(default)]
    pub properties: BTreeMap<String, String>,
    /// The type name (`int`, `java.util.List<java.lang.String>`, `org.foo.User`).
    #[serde(rename = "type")]
    pub type_name: String,
}

impl TypeDefinition {
    /// A definition with a name only, as Java gives simple types.
    pub fn named(type_name: impl Into<String>) -> Self {
        Self {
            type_name: type_name.into(),
            ..Self::default()
        }
    }
}

/// The definitions a service's signatures reach, one per type name (Java's type cache).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeDefinitions {
    types: BTreeMap<String, TypeDefinition>,
}

impl TypeDefinitions {
    /// No definitions yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether `type_name` has a definition.
    pub fn contains(&self, type_name: &str) -> bool {
        self.types.contains_key(type_name)
    }

    /// Adds `def` unless its type already has one (the first wins, as in Java).
    pub fn add(&mut self, def: TypeDefinition) {
        self.types.entry(def.type_name.clone()).or_insert(def);
    }

    /// Adds a name-only definition and returns the name.
    pub fn simple(&mut self, type_name: &str) -> String {
        self.add(TypeDefinition::named(type_name));
        type_name.to_owned()
    }

    /// Replaces the definition of `def`'s type (a class whose fields are known once its own
    /// placeholder was added, so that a type that refers to itself ends).
    pub fn replace(&mut self, def: TypeDefinition) {
        self.types.insert(def.type_name.clone(), def);
    }

    /// The definitions, by type name.
    pub fn into_vec(self) -> Vec<TypeDefinition> {
        self.types.into_values().collect()
    }

    /// The definition of `type_name`, if any.
    pub fn get(&self, type_name: &str) -> Option<&TypeDefinition> {
        self.types.get(type_name)
    }
}

/// A Rust type that describes the Java type it stands for, as a `TypeDefinition`.
///
/// Implemented for the standard types; derive it for your classes with
/// `#[derive(dubbo_rs::JavaTypeDefinition)]`, which lists the fields as properties.
pub trait JavaTypeDefinition {
    /// Adds the definition of this type, and of every type it reaches, to `defs`, and
    /// returns its Java name as a definition writes it (with type arguments).
    fn define(defs: &mut TypeDefinitions) -> String;
}

macro_rules! simple {
    ($($t:ty),* $(,)?) => {
        $(impl JavaTypeDefinition for $t {
            fn define(defs: &mut TypeDefinitions) -> String {
                defs.simple(&<$t as JavaType>::java_type_name())
            }
        })*
    };
}

simple! {
    bool, i8, i16, i32, i64, f32, f64, char, u16, u32, u64, (), String, str, Value,
    super::Date, std::time::SystemTime, super::BigDecimal, super::BigInteger,
}

/// `byte[]`: an array whose one item is `byte`.
fn byte_array(defs: &mut TypeDefinitions) -> String {
    let item = defs.simple("byte");
    defs.add(TypeDefinition {
        items: vec![item],
        ..TypeDefinition::named("byte[]")
    });
    "byte[]".to_owned()
}

impl JavaTypeDefinition for serde_bytes::ByteBuf {
    fn define(defs: &mut TypeDefinitions) -> String {
        byte_array(defs)
    }
}

impl JavaTypeDefinition for serde_bytes::Bytes {
    fn define(defs: &mut TypeDefinitions) -> String {
        byte_array(defs)
    }
}

impl<T: JavaTypeDefinition + ?Sized> JavaTypeDefinition for &T {
    fn define(defs: &mut TypeDefinitions) -> String {
        T::define(defs)
    }
}

impl<T: JavaTypeDefinition + ?Sized> JavaTypeDefinition for Box<T> {
    fn define(defs: &mut TypeDefinitions) -> String {
        T::define(defs)
    }
}

/// The wrapper class of a primitive name, or the name itself.
fn boxed(name: &str) -> Cow<'static, str> {
    Cow::Borrowed(match name {
        "boolean" => "java.lang.Boolean",
        "byte" => "java.lang.Byte",
        "short" => "java.lang.Short",
        "int" => "java.lang.Integer",
        "long" => "java.lang.Long",
        "float" => "java.lang.Float",
        "double" => "java.lang.Double",
        "char" => "java.lang.Character",
        "void" => "java.lang.Void",
        other => return Cow::Owned(other.to_owned()),
    })
}

/// A nullable value is Java's wrapper class where the inner type is primitive: `Option<i32>`
/// is `java.lang.Integer`, and the primitive itself gets no definition.
impl<T: JavaTypeDefinition> JavaTypeDefinition for Option<T> {
    fn define(defs: &mut TypeDefinitions) -> String {
        argument::<T>(defs)
    }
}

/// A type where Java needs a reference type (a type argument, a nullable value): a primitive
/// becomes its wrapper class (`List<int>` is not Java, `List<Integer>` is).
fn argument<T: JavaTypeDefinition + ?Sized>(defs: &mut TypeDefinitions) -> String {
    // Defined on a copy, which keeps the classes being defined (so a class that refers to
    // itself ends), and kept only when no wrapper stands in for a primitive.
    let mut inner = defs.clone();
    let name = T::define(&mut inner);
    let wrapper = boxed(&name);
    if wrapper == name.as_str() {
        *defs = inner;
        name
    } else {
        defs.simple(&wrapper)
    }
}

/// `raw<items…>` with `items` as its items.
fn parameterized(defs: &mut TypeDefinitions, raw: &str, items: Vec<String>) -> String {
    let name = format!("{raw}<{}>", items.join(","));
    defs.add(TypeDefinition {
        items,
        ..TypeDefinition::named(name.clone())
    });
    name
}

impl<T: JavaTypeDefinition> JavaTypeDefinition for Vec<T> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let item = argument::<T>(defs);
        parameterized(defs, "java.util.List", vec![item])
    }
}

impl<T: JavaTypeDefinition, S> JavaTypeDefinition for HashSet<T, S> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let item = argument::<T>(defs);
        parameterized(defs, "java.util.Set", vec![item])
    }
}

impl<T: JavaTypeDefinition> JavaTypeDefinition for BTreeSet<T> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let item = argument::<T>(defs);
        parameterized(defs, "java.util.Set", vec![item])
    }
}

impl<K: JavaTypeDefinition, V: JavaTypeDefinition, S> JavaTypeDefinition for HashMap<K, V, S> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let items = vec![argument::<K>(defs), argument::<V>(defs)];
        parameterized(defs, "java.util.Map", items)
    }
}

impl<K: JavaTypeDefinition, V: JavaTypeDefinition> JavaTypeDefinition for BTreeMap<K, V> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let items = vec![argument::<K>(defs), argument::<V>(defs)];
        parameterized(defs, "java.util.Map", items)
    }
}

impl<T: JavaTypeDefinition> JavaTypeDefinition for super::Array<T> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let item = T::define(defs);
        let name = format!("{item}[]");
        defs.add(TypeDefinition {
            items: vec![item],
            ..TypeDefinition::named(name.clone())
        });
        name
    }
}

impl<T: JavaTypeDefinition> JavaTypeDefinition for super::TypedList<T> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let item = argument::<T>(defs);
        parameterized(defs, "java.util.Collection", vec![item])
    }
}

impl<K: JavaTypeDefinition, V: JavaTypeDefinition> JavaTypeDefinition for super::TypedMap<K, V> {
    fn define(defs: &mut TypeDefinitions) -> String {
        let items = vec![argument::<K>(defs), argument::<V>(defs)];
        parameterized(defs, "java.util.Map", items)
    }
}

/// Picks, for a type named in a service trait, its [`JavaTypeDefinition`] when it has one and
/// a name-only definition from its [`JavaType`] otherwise, so that a service whose types do
/// not all describe themselves still compiles. The `#[service]` macro calls
/// `(&DefinitionProbe::<T>::new()).define_type(defs)` with [`ByDefinition`] and [`ByName`] in
/// scope: method lookup tries the first by value before the second by reference.
pub struct DefinitionProbe<T: ?Sized>(PhantomData<T>);

impl<T: ?Sized> DefinitionProbe<T> {
    /// The probe for `T`.
    pub fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T: ?Sized> Default for DefinitionProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The probe's first choice: the type's own definition.
pub trait ByDefinition {
    /// Adds the definitions and returns the type's name.
    fn define_type(&self, defs: &mut TypeDefinitions) -> String;
}

impl<T: JavaTypeDefinition + ?Sized> ByDefinition for DefinitionProbe<T> {
    fn define_type(&self, defs: &mut TypeDefinitions) -> String {
        T::define(defs)
    }
}

/// The probe's fallback: a definition with the type's Java name only.
pub trait ByName {
    /// Adds the definition and returns the type's name.
    fn define_type(&self, defs: &mut TypeDefinitions) -> String;
}

impl<T: JavaType + ?Sized> ByName for &DefinitionProbe<T> {
    fn define_type(&self, defs: &mut TypeDefinitions) -> String {
        defs.simple(&T::java_type_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn define<T: JavaTypeDefinition>() -> (String, TypeDefinitions) {
        let mut defs = TypeDefinitions::new();
        let name = T::define(&mut defs);
        (name, defs)
    }

    #[test]
    fn generic_names_and_items_as_java_writes_them() {
        let (name, defs) = define::<Option<Vec<Option<String>>>>();
        assert_eq!(name, "java.util.List<java.lang.String>");
        assert_eq!(defs.get(&name).unwrap().items, ["java.lang.String"]);
        assert!(defs.contains("java.lang.String"));

        let (name, defs) = define::<Option<HashMap<String, Option<i32>>>>();
        assert_eq!(name, "java.util.Map<java.lang.String,java.lang.Integer>");
        assert_eq!(
            defs.get(&name).unwrap().items,
            ["java.lang.String", "java.lang.Integer"]
        );
        // The wrapper, not the primitive, is what the map holds.
        assert!(defs.contains("java.lang.Integer") && !defs.contains("int"));

        let (name, defs) = define::<Vec<i64>>();
        assert_eq!(name, "java.util.List<java.lang.Long>");
        assert!(!defs.contains("long"));

        let (name, defs) = define::<Option<serde_bytes::ByteBuf>>();
        assert_eq!(name, "byte[]");
        assert_eq!(defs.get("byte[]").unwrap().items, ["byte"]);
        assert!(defs.contains("byte"));

        let (name, _) = define::<Option<i32>>();
        assert_eq!(name, "java.lang.Integer");
        let (name, defs) = define::<i32>();
        assert_eq!((name.as_str(), defs.contains("int")), ("int", true));
        assert_eq!(define::<()>().0, "void");
        assert_eq!(define::<super::super::Array<i32>>().0, "int[]");
    }

    #[test]
    // The borrow is the point: it is what lets lookup fall back to `ByName`.
    #[allow(clippy::needless_borrow)]
    fn the_probe_falls_back_to_the_java_name() {
        struct Named;
        impl JavaType for Named {
            fn java_type_name() -> Cow<'static, str> {
                Cow::Borrowed("org.foo.Named")
            }
        }
        let mut defs = TypeDefinitions::new();
        let name = (&DefinitionProbe::<Named>::new()).define_type(&mut defs);
        assert_eq!(name, "org.foo.Named");
        let name = (&DefinitionProbe::<Vec<String>>::new()).define_type(&mut defs);
        assert_eq!(name, "java.util.List<java.lang.String>");
        assert_eq!(defs.into_vec().len(), 3);
    }
}
