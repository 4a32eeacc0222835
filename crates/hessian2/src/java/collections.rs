//! Typed Java arrays and collections (`int[]`, `String[]`, `HashSet`,
//! `LinkedHashMap`, `ConcurrentHashMap`, `Collections$EmptyList`...).

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::java_type::{hessian_array_type, JavaType};
use crate::ser::{MAGIC_TYPED_LIST, MAGIC_TYPED_MAP};
use crate::value::Value;

/// A Java array `T[]`, written as a typed list whose type is derived from
/// [`JavaType`]: `Array<i32>` → `[int`, `Array<String>` → `[string`,
/// `Array<Value>` → `[object` (what generic calls send), `Array<User>` → `[org.foo.User`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Array<T>(pub Vec<T>);

impl<T: JavaType> Array<T> {
    /// The Hessian type string of this array type.
    pub fn hessian_type() -> String {
        hessian_array_type(&T::java_type_name())
    }
}

impl<T: Serialize + JavaType> Serialize for Array<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return self.0.serialize(s);
        }
        s.serialize_newtype_struct(MAGIC_TYPED_LIST, &(Self::hessian_type(), &self.0))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Array<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(Array)
    }
}

/// A Java collection of a given class, e.g. `java.util.HashSet`: written as a typed
/// list (`0x70+len type` / `V type len`). An empty `type_name` writes an untyped list
/// (`ArrayList`). Deserializing keeps the wire type (empty for untyped lists).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TypedList<T> {
    /// The Java class, e.g. `java.util.HashSet`.
    pub type_name: Cow<'static, str>,
    /// The elements.
    pub items: Vec<T>,
}

impl<T> TypedList<T> {
    /// A collection of class `type_name`.
    pub fn new(type_name: impl Into<Cow<'static, str>>, items: Vec<T>) -> Self {
        TypedList {
            type_name: type_name.into(),
            items,
        }
    }

    /// A `java.util.HashSet`.
    pub fn hash_set(items: Vec<T>) -> Self {
        Self::new("java.util.HashSet", items)
    }

    /// A `java.util.LinkedList`.
    pub fn linked_list(items: Vec<T>) -> Self {
        Self::new("java.util.LinkedList", items)
    }

    /// `Collections.emptyList()` (`java.util.Collections$EmptyList`).
    pub fn empty_list() -> Self {
        Self::new("java.util.Collections$EmptyList", Vec::new())
    }
}

impl<T: Serialize> Serialize for TypedList<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return self.items.serialize(s);
        }
        if self.items.is_empty() && self.type_name == "java.util.Collections$EmptyList" {
            // A JDK singleton: go through Value so the writer can share it like Java.
            return empty_list().serialize(s);
        }
        s.serialize_newtype_struct(MAGIC_TYPED_LIST, &(self.type_name.as_ref(), &self.items))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for TypedList<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = TypedList<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a typed list")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let t: String = seq.next_element()?.unwrap_or_default();
                let items: Vec<T> = seq.next_element()?.unwrap_or_default();
                Ok(TypedList::new(t, items))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                Ok(TypedList::new("", Vec::<T>::deserialize(d)?))
            }
        }
        d.deserialize_newtype_struct(MAGIC_TYPED_LIST, V(PhantomData))
    }
}

/// A Java map of a given class, e.g. `java.util.LinkedHashMap`: written as `M type …
/// Z`, entries in order. An empty `type_name` writes an untyped `H` map (`HashMap`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TypedMap<K, V> {
    /// The Java class, e.g. `java.util.LinkedHashMap`.
    pub type_name: Cow<'static, str>,
    /// The entries, in order.
    pub entries: Vec<(K, V)>,
}

impl<K, V> TypedMap<K, V> {
    /// A map of class `type_name`.
    pub fn new(type_name: impl Into<Cow<'static, str>>, entries: Vec<(K, V)>) -> Self {
        TypedMap {
            type_name: type_name.into(),
            entries,
        }
    }

    /// A `java.util.LinkedHashMap`.
    pub fn linked_hash_map(entries: Vec<(K, V)>) -> Self {
        Self::new("java.util.LinkedHashMap", entries)
    }

    /// A `java.util.concurrent.ConcurrentHashMap`.
    pub fn concurrent_hash_map(entries: Vec<(K, V)>) -> Self {
        Self::new("java.util.concurrent.ConcurrentHashMap", entries)
    }

    /// A `java.util.TreeMap` (give the entries in key order, as Java would write them).
    pub fn tree_map(entries: Vec<(K, V)>) -> Self {
        Self::new("java.util.TreeMap", entries)
    }
}

struct Entries<'a, K, V>(&'a [(K, V)]);

impl<K: Serialize, V: Serialize> Serialize for Entries<'_, K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

struct EntriesOwned<K, V>(Vec<(K, V)>);

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for EntriesOwned<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Vis<K, V> {
            type Value = EntriesOwned<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some(e) = map.next_entry()? {
                    out.push(e);
                }
                Ok(EntriesOwned(out))
            }
        }
        d.deserialize_map(Vis(PhantomData))
    }
}

impl<K: Serialize, V: Serialize> Serialize for TypedMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return Entries(&self.entries).serialize(s);
        }
        s.serialize_newtype_struct(
            MAGIC_TYPED_MAP,
            &(self.type_name.as_ref(), Entries(&self.entries)),
        )
    }
}

impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for TypedMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Vis<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Vis<K, V> {
            type Value = TypedMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a typed map")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let t: String = seq.next_element()?.unwrap_or_default();
                let e: Option<EntriesOwned<K, V>> = seq.next_element()?;
                Ok(TypedMap::new(t, e.map(|e| e.0).unwrap_or_default()))
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                Ok(TypedMap::new("", EntriesOwned::deserialize(d)?.0))
            }
        }
        d.deserialize_newtype_struct(MAGIC_TYPED_MAP, Vis(PhantomData))
    }
}

/// A `java.util.HashSet` [`Value`].
pub fn hash_set(items: Vec<Value>) -> Value {
    Value::typed_list("java.util.HashSet", items)
}

/// `Collections.emptyList()` as a [`Value`] (written once per stream, then as `Q`, like Java's singleton).
pub fn empty_list() -> Value {
    Value::typed_list("java.util.Collections$EmptyList", Vec::new())
}

/// A `java.util.LinkedHashMap` [`Value`].
pub fn linked_hash_map(entries: Vec<(Value, Value)>) -> Value {
    Value::typed_map("java.util.LinkedHashMap", entries)
}

/// A `java.util.concurrent.ConcurrentHashMap` [`Value`].
pub fn concurrent_hash_map(entries: Vec<(Value, Value)>) -> Value {
    Value::typed_map("java.util.concurrent.ConcurrentHashMap", entries)
}
