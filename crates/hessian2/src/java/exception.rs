//! Java exceptions (`Throwable`s) as hessian-lite writes them.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::value::Value;

/// Type of `Throwable.suppressedExceptions`' JDK 9+ sentinel (`Collections.emptyList()`).
pub const EMPTY_LIST: &str = "java.util.Collections$EmptyList";
/// Hessian type of an empty `StackTraceElement[]`.
pub const STACK_TRACE: &str = "[java.lang.StackTraceElement";

/// A Java exception: class, `detailMessage` and `cause` chain.
///
/// [`to_value`](Self::to_value) produces what Java's `ThrowableSerializer` writes for
/// a JDK 17 exception with an empty stack trace: class definition order
/// `suppressedExceptions, stackTrace, cause, detailMessage`, an empty
/// `java.util.Collections$EmptyList` (the JDK's sentinel, ref-shared within a stream
/// like Java's singleton), an empty `[java.lang.StackTraceElement` list (never a null
/// stack trace, which would make Java's `getStackTrace()` throw), and, when there is no
/// cause, `cause` = the exception itself (`Q` self-reference), as Java does. Java can
/// deserialize and rethrow it. Use JDK classes (`java.lang.RuntimeException`,
/// `java.lang.IllegalStateException`...), which every Java consumer can load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaException {
    /// Fully qualified class name, e.g. `java.lang.IllegalStateException`.
    pub class_name: String,
    /// `getMessage()`.
    pub message: Option<String>,
    /// `getCause()`.
    pub cause: Option<Box<JavaException>>,
}

impl JavaException {
    /// An exception of `class_name` with a message and no cause.
    pub fn new(class_name: impl Into<String>, message: impl Into<String>) -> Self {
        JavaException {
            class_name: class_name.into(),
            message: Some(message.into()),
            cause: None,
        }
    }

    /// A `java.lang.RuntimeException` with a message.
    pub fn runtime(message: impl Into<String>) -> Self {
        Self::new("java.lang.RuntimeException", message)
    }

    /// Sets the cause.
    pub fn with_cause(mut self, cause: JavaException) -> Self {
        self.cause = Some(Box::new(cause));
        self
    }

    /// The Hessian form, ready for [`Hessian2Writer::write_value`](crate::Hessian2Writer::write_value).
    pub fn to_value(&self) -> Value {
        let cause = match &self.cause {
            Some(c) => c.to_value(),
            None => Value::Ref(0),
        };
        Value::object(
            self.class_name.clone(),
            [
                (
                    "suppressedExceptions",
                    Value::typed_list(EMPTY_LIST, vec![]),
                ),
                ("stackTrace", Value::typed_list(STACK_TRACE, vec![])),
                ("cause", cause),
                (
                    "detailMessage",
                    self.message.clone().map_or(Value::Null, Value::String),
                ),
            ],
        )
    }

    /// Reads an exception object (any class with `detailMessage`/`cause` fields, or a
    /// map with them). A `cause` that refers back to the exception itself (Java's
    /// "no cause") or to an enclosing one becomes `None`. Returns `None` if `v` is not
    /// an object or map.
    pub fn from_value(v: &Value) -> Option<JavaException> {
        Self::from_value_depth(v, 0)
    }

    fn from_value_depth(v: &Value, depth: usize) -> Option<JavaException> {
        let class_name = match v {
            Value::Object(o) => o.class.clone(),
            Value::Map(m) => match m.get("class") {
                Some(Value::String(c)) => c.clone(),
                _ => m
                    .type_name
                    .clone()
                    .unwrap_or_else(|| "java.lang.RuntimeException".to_owned()),
            },
            _ => return None,
        };
        let message = match v.get("detailMessage").or_else(|| v.get("message")) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        let cause = match v.get("cause") {
            Some(c @ (Value::Object(_) | Value::Map(_))) if depth < 64 => {
                Self::from_value_depth(c, depth + 1).map(Box::new)
            }
            _ => None,
        };
        Some(JavaException {
            class_name,
            message,
            cause,
        })
    }
}

impl std::fmt::Display for JavaException {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.message {
            Some(m) => write!(f, "{}: {}", self.class_name, m),
            None => f.write_str(&self.class_name),
        }
    }
}

impl std::error::Error for JavaException {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

impl Serialize for JavaException {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for JavaException {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        JavaException::from_value(&v)
            .ok_or_else(|| serde::de::Error::custom("expected a Java exception object"))
    }
}

impl super::JavaType for JavaException {
    fn java_type_name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("java.lang.Throwable")
    }
}
