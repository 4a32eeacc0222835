//! The dynamic [`Value`] type: any Hessian 2 stream decodes into it and encodes back
//! from it, keeping Java class names, collection types and field order.

use std::collections::{BTreeMap, HashMap};

/// A dynamically typed Hessian 2 value, the counterpart of `serde_json::Value` for
/// Java objects. Used for generic invocation and for anything whose Rust type is not
/// known in advance.
///
/// Shared references in the stream (`Q`) to values that are already complete decode
/// as clones of those values. A `Q` that points to a value *still being built* (a
/// cycle, such as a Java exception whose `cause` is itself) decodes as [`Value::Ref`].
#[derive(Debug, Clone)]
pub enum Value {
    /// Java `null`.
    Null,
    /// `boolean` / `Boolean`.
    Bool(bool),
    /// `int` / `Integer` (also `byte`, `short` and their boxes, which Java writes as int).
    Int(i32),
    /// `long` / `Long`.
    Long(i64),
    /// `double` / `Double` (also `float`, which Java writes as double).
    Double(f64),
    /// `String` (and `char`).
    String(String),
    /// `byte[]`.
    Binary(Vec<u8>),
    /// `java.util.Date`, in milliseconds since the Unix epoch.
    Date(i64),
    /// Any list or array: `ArrayList`, `HashSet`, `int[]`, `String[]`...
    List(List),
    /// Any map: `HashMap` (untyped) or a typed map such as `LinkedHashMap`.
    Map(Map),
    /// A Java object written with a class definition (POJO, enum, exception, `BigDecimal`...).
    Object(Object),
    /// A back-reference to a list, map or object that is still being built, i.e. one
    /// of the enclosing containers of this value: `Ref(0)` is the innermost enclosing
    /// container (the object or collection that directly holds this value), `Ref(1)`
    /// the one around it, and so on. A Java exception whose `cause` is itself decodes
    /// as an [`Object`] whose `cause` field is `Ref(0)`. The writer turns `Ref(k)` back
    /// into a `Q` to the matching enclosing container's reference index. Being relative,
    /// the value stays valid wherever it is re-encoded.
    Ref(u32),
}

/// A Hessian list: an `ArrayList` when `type_name` is `None`, otherwise a typed list or
/// array (`"java.util.HashSet"`, `"[string"`, `"[int"`, `"[object"`, `"[java.lang.StackTraceElement"`...).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct List {
    /// The Java collection class or Hessian array type; `None` for `ArrayList`.
    pub type_name: Option<String>,
    /// The elements in order.
    pub items: Vec<Value>,
}

/// A Hessian map: `HashMap` (`H`) when `type_name` is `None`, otherwise a typed map
/// (`M`), e.g. `"java.util.LinkedHashMap"` or `"java.util.concurrent.ConcurrentHashMap"`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Map {
    /// The Java map class; `None` for `HashMap` (untyped `H`).
    pub type_name: Option<String>,
    /// The entries in wire order.
    pub entries: Vec<(Value, Value)>,
}

/// A Java object: class name and fields in class-definition (wire) order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object {
    /// Fully qualified Java class name, e.g. `org.apache.dubbo.interop.User`.
    pub class: String,
    /// Field names and values, in the order of the class definition.
    pub fields: Vec<(String, Value)>,
}

impl Object {
    /// Creates an object from a class name and fields in wire order.
    pub fn new<K: Into<String>>(
        class: impl Into<String>,
        fields: impl IntoIterator<Item = (K, Value)>,
    ) -> Self {
        Object {
            class: class.into(),
            fields: fields.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        }
    }

    /// The value of a field, if present.
    pub fn get(&self, field: &str) -> Option<&Value> {
        self.fields.iter().find(|(k, _)| k == field).map(|(_, v)| v)
    }

    /// A mutable reference to a field's value, if present.
    pub fn get_mut(&mut self, field: &str) -> Option<&mut Value> {
        self.fields
            .iter_mut()
            .find(|(k, _)| k == field)
            .map(|(_, v)| v)
    }
}

impl List {
    /// An untyped list (`ArrayList`).
    pub fn new(items: Vec<Value>) -> Self {
        List {
            type_name: None,
            items,
        }
    }

    /// A typed list or array, e.g. `List::typed("java.util.HashSet", items)` or `List::typed("[string", items)`.
    pub fn typed(type_name: impl Into<String>, items: Vec<Value>) -> Self {
        List {
            type_name: Some(type_name.into()),
            items,
        }
    }
}

impl Map {
    /// An untyped map (`HashMap`, written as `H`).
    pub fn new(entries: Vec<(Value, Value)>) -> Self {
        Map {
            type_name: None,
            entries,
        }
    }

    /// A typed map, e.g. `Map::typed("java.util.LinkedHashMap", entries)`.
    pub fn typed(type_name: impl Into<String>, entries: Vec<(Value, Value)>) -> Self {
        Map {
            type_name: Some(type_name.into()),
            entries,
        }
    }

    /// The value stored under a string key, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }
}

impl Value {
    /// A string value.
    pub fn string(s: impl Into<String>) -> Value {
        Value::String(s.into())
    }

    /// An object value from a class name and fields in wire order.
    pub fn object<K: Into<String>>(
        class: impl Into<String>,
        fields: impl IntoIterator<Item = (K, Value)>,
    ) -> Value {
        Value::Object(Object::new(class, fields))
    }

    /// An untyped list (`ArrayList`).
    pub fn list(items: Vec<Value>) -> Value {
        Value::List(List::new(items))
    }

    /// A typed list or array (`"java.util.HashSet"`, `"[string"`, ...).
    pub fn typed_list(type_name: impl Into<String>, items: Vec<Value>) -> Value {
        Value::List(List::typed(type_name, items))
    }

    /// An untyped map (`HashMap`).
    pub fn map(entries: Vec<(Value, Value)>) -> Value {
        Value::Map(Map::new(entries))
    }

    /// A typed map (`"java.util.LinkedHashMap"`, ...).
    pub fn typed_map(type_name: impl Into<String>, entries: Vec<(Value, Value)>) -> Value {
        Value::Map(Map::typed(type_name, entries))
    }

    /// `true` for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The string, if this is a [`Value::String`].
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number as `i64`, if this is an `Int` or a `Long`.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(i64::from(*v)),
            Value::Long(v) => Some(*v),
            _ => None,
        }
    }

    /// The number as `f64`, if this is a `Double`, an `Int` or a `Long`.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Double(v) => Some(*v),
            Value::Int(v) => Some(f64::from(*v)),
            Value::Long(v) => Some(*v as f64),
            _ => None,
        }
    }

    /// The boolean, if this is a [`Value::Bool`].
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The bytes, if this is a [`Value::Binary`].
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::Binary(b) => Some(b),
            _ => None,
        }
    }

    /// The items, if this is a [`Value::List`].
    pub fn as_list(&self) -> Option<&List> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// The map, if this is a [`Value::Map`].
    pub fn as_map(&self) -> Option<&Map> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The object, if this is a [`Value::Object`].
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The Java class or collection type name carried by the value, if any.
    pub fn type_name(&self) -> Option<&str> {
        match self {
            Value::Object(o) => Some(&o.class),
            Value::List(l) => l.type_name.as_deref(),
            Value::Map(m) => m.type_name.as_deref(),
            _ => None,
        }
    }

    /// A field of an object, or the value under a string key of a map.
    pub fn get(&self, field_or_key: &str) -> Option<&Value> {
        match self {
            Value::Object(o) => o.get(field_or_key),
            Value::Map(m) => m.get(field_or_key),
            _ => None,
        }
    }

    /// A short name of the value's kind, used in error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Long(_) => "long",
            Value::Double(_) => "double",
            Value::String(_) => "string",
            Value::Binary(_) => "binary",
            Value::Date(_) => "date",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Object(_) => "object",
            Value::Ref(_) => "ref",
        }
    }
}

/// Structural equality.
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Long(a), Long(b)) => a == b,
            (Double(a), Double(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Binary(a), Binary(b)) => a == b,
            (Date(a), Date(b)) => a == b,
            (List(a), List(b)) => a == b,
            (Map(a), Map(b)) => a == b,
            (Object(a), Object(b)) => a == b,
            (Ref(a), Ref(b)) => a == b,
            _ => false,
        }
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(v.to_owned())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::String(v)
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int(v)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Long(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Double(v)
    }
}

impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::list(v)
    }
}

impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Self {
        Value::Binary(v)
    }
}

impl From<List> for Value {
    fn from(v: List) -> Self {
        Value::List(v)
    }
}

impl From<Map> for Value {
    fn from(v: Map) -> Self {
        Value::Map(v)
    }
}

impl From<Object> for Value {
    fn from(v: Object) -> Self {
        Value::Object(v)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

impl<K: Into<Value>, V: Into<Value>> From<HashMap<K, V>> for Value {
    fn from(m: HashMap<K, V>) -> Self {
        Value::map(m.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl<K: Into<Value>, V: Into<Value>> From<BTreeMap<K, V>> for Value {
    fn from(m: BTreeMap<K, V>) -> Self {
        Value::map(m.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}
