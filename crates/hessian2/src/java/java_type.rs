//! [`JavaType`]: the Java type name of a Rust type, for descriptors and generic calls.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::value::Value;

/// The Java type a Rust type stands for, e.g. `i32` → `int`, `Option<i32>` →
/// `java.lang.Integer`, `String` → `java.lang.String`. Protocol code turns these into
/// descriptors with [`java_name_to_descriptor`](super::java_name_to_descriptor).
///
/// Implement it for your POJOs with [`java_type!`](crate::java_type):
/// `dubbo_hessian2::java_type!(User => "org.apache.dubbo.interop.User");`
pub trait JavaType {
    /// The Java type name (`int`, `java.lang.String`, `int[]`, `org.foo.User`...).
    fn java_type_name() -> Cow<'static, str>;
}

/// Implements [`JavaType`](crate::java::JavaType) for a type with a fixed Java class name.
///
/// ```
/// #[derive(serde::Serialize)]
/// #[serde(rename = "org.apache.dubbo.interop.User")]
/// struct User { id: i64 }
/// dubbo_hessian2::java_type!(User => "org.apache.dubbo.interop.User");
/// use dubbo_hessian2::java::JavaType;
/// assert_eq!(User::java_type_name(), "org.apache.dubbo.interop.User");
/// ```
#[macro_export]
macro_rules! java_type {
    ($t:ty => $name:expr) => {
        impl $crate::java::JavaType for $t {
            fn java_type_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed($name)
            }
        }
    };
}

macro_rules! fixed {
    ($($t:ty => $n:literal),* $(,)?) => {
        $(impl JavaType for $t {
            fn java_type_name() -> Cow<'static, str> {
                Cow::Borrowed($n)
            }
        })*
    };
}

fixed! {
    bool => "boolean",
    i8 => "byte",
    i16 => "short",
    i32 => "int",
    i64 => "long",
    f32 => "float",
    f64 => "double",
    char => "char",
    u16 => "int",
    u32 => "long",
    u64 => "long",
    () => "void",
    String => "java.lang.String",
    str => "java.lang.String",
    Value => "java.lang.Object",
    serde_bytes::ByteBuf => "byte[]",
    serde_bytes::Bytes => "byte[]",
    super::Date => "java.util.Date",
    std::time::SystemTime => "java.util.Date",
}

impl<T: JavaType + ?Sized> JavaType for &T {
    fn java_type_name() -> Cow<'static, str> {
        T::java_type_name()
    }
}

impl<T: JavaType + ?Sized> JavaType for Box<T> {
    fn java_type_name() -> Cow<'static, str> {
        T::java_type_name()
    }
}

/// The boxed class of a primitive name, or the name itself.
fn boxed(name: Cow<'static, str>) -> Cow<'static, str> {
    let b = match name.as_ref() {
        "boolean" => "java.lang.Boolean",
        "byte" => "java.lang.Byte",
        "short" => "java.lang.Short",
        "int" => "java.lang.Integer",
        "long" => "java.lang.Long",
        "float" => "java.lang.Float",
        "double" => "java.lang.Double",
        "char" => "java.lang.Character",
        "void" => "java.lang.Void",
        _ => return name,
    };
    Cow::Borrowed(b)
}

impl<T: JavaType> JavaType for Option<T> {
    fn java_type_name() -> Cow<'static, str> {
        boxed(T::java_type_name())
    }
}

impl<T> JavaType for Vec<T> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Borrowed("java.util.List")
    }
}

impl<T, S> JavaType for HashSet<T, S> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Borrowed("java.util.Set")
    }
}

impl<T> JavaType for BTreeSet<T> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Borrowed("java.util.Set")
    }
}

impl<K, V, S> JavaType for HashMap<K, V, S> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Borrowed("java.util.Map")
    }
}

impl<K, V> JavaType for BTreeMap<K, V> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Borrowed("java.util.Map")
    }
}

impl<T: JavaType> JavaType for super::Array<T> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Owned(format!("{}[]", T::java_type_name()))
    }
}

impl<T> JavaType for super::TypedList<T> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Borrowed("java.util.Collection")
    }
}

impl<K, V> JavaType for super::TypedMap<K, V> {
    fn java_type_name() -> Cow<'static, str> {
        Cow::Borrowed("java.util.Map")
    }
}

/// The Hessian type string of a Java array whose element type is `element`
/// (a Java type name): `int` → `[int`, `java.lang.String` → `[string`,
/// `java.lang.Object` → `[object`, `java.util.Date` → `[date`, `int[]` → `[[int`,
/// any other class `c` → `[c`. This is what hessian-lite's `ArraySerializer` writes.
pub fn hessian_array_type(element: &str) -> String {
    if let Some(inner) = element.strip_suffix("[]") {
        return format!("[{}", hessian_array_type(inner));
    }
    let e = match element {
        "java.lang.String" => "string",
        "java.lang.Object" => "object",
        "java.util.Date" => "date",
        other => other,
    };
    format!("[{e}")
}
