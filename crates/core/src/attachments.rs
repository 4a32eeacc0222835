//! Attachments: the key/value pairs that travel with a call and with its result.

use std::collections::HashMap;

use dubbo_hessian2::Value;

/// Attachments of a request or a response.
///
/// Java Dubbo declares them as `Map<String, Object>`; in practice they are strings, and Triple
/// can only carry strings and byte arrays. Values are kept as Hessian [`Value`]s so that a
/// dubbo:// peer's non-string attachments survive a round trip.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attachments {
    entries: HashMap<String, Value>,
}

impl Attachments {
    /// No attachments.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value under `key`, whatever its type.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.get(key)
    }

    /// The value under `key` if it is a string.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        match self.entries.get(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// Sets `key` to a string value, returning the previous value.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<String>) -> Option<Value> {
        self.entries.insert(key.into(), Value::String(value.into()))
    }

    /// Sets `key` to any value, returning the previous value.
    pub fn insert_value(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.entries.insert(key.into(), value)
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.entries.remove(key)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Iterates over the entries in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Copies every entry of `other` into `self`, overwriting equal keys.
    pub fn extend_from(&mut self, other: &Attachments) {
        for (k, v) in &other.entries {
            self.entries.insert(k.clone(), v.clone());
        }
    }
}

impl FromIterator<(String, Value)> for Attachments {
    fn from_iter<T: IntoIterator<Item = (String, Value)>>(iter: T) -> Self {
        Self {
            entries: iter.into_iter().collect(),
        }
    }
}

impl IntoIterator for Attachments {
    type Item = (String, Value);
    type IntoIter = std::collections::hash_map::IntoIter<String, Value>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// Attachment keys with a meaning to the framework.
pub mod keys {
    /// The interface name (Java consumers send it on every call).
    pub const INTERFACE: &str = "interface";
    /// The service path; usually equal to the interface.
    pub const PATH: &str = "path";
    /// The service version.
    pub const VERSION: &str = "version";
    /// The service group; dubbo:// carries it only here.
    pub const GROUP: &str = "group";
    /// The consumer's timeout in milliseconds, as a decimal string.
    pub const TIMEOUT: &str = "timeout";
    /// The calling application's name.
    pub const REMOTE_APPLICATION: &str = "remote.application";
    /// The generic-call flavour (`true`, `raw.return`, `bean`, ...).
    pub const GENERIC: &str = "generic";
    /// The Dubbo protocol version a Java provider adds to every response (`2.0.2`).
    pub const DUBBO_VERSION: &str = "dubbo";
    /// The routing tag.
    pub const TAG: &str = "dubbo.tag";
    /// The token of token authorization.
    pub const TOKEN: &str = "token";
}
