//! Attachments: the key/value pairs that travel with a call and with its result.

use dubbo_hessian2::Value;

/// Attachments of a request or a response.
///
/// Java Dubbo declares them as `Map<String, Object>`; in practice they are strings, and Triple
/// can only carry strings and byte arrays. Values are kept as Hessian [`Value`]s so that a
/// dubbo:// peer's non-string attachments survive a round trip.
///
/// Entries keep their insertion order, so the bytes a protocol writes are the same on every
/// run. A call carries a handful of attachments, for which a linear scan beats hashing.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Attachments {
    entries: Vec<(String, Value)>,
}

impl Attachments {
    /// No attachments.
    pub fn new() -> Self {
        Self::default()
    }

    /// The value under `key`, whatever its type.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The value under `key` if it is a string.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        }
    }

    /// Sets `key` to a string value, returning the previous value.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<String>) -> Option<Value> {
        self.insert_value(key, Value::String(value.into()))
    }

    /// Sets `key` to any value, returning the previous value.
    pub fn insert_value(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some((_, slot)) => Some(std::mem::replace(slot, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let at = self.entries.iter().position(|(k, _)| k == key)?;
        Some(self.entries.remove(at).1)
    }

    /// Whether `key` is present.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Iterates over the entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Names the service a provider-side call is for, as a dubbo:// request carries it:
    /// `interface` and `path` (the interface), and `version` and `group` when `key` has them.
    pub fn insert_service(&mut self, key: &crate::ServiceKey) {
        self.insert("interface", key.interface());
        self.insert("path", key.interface());
        if let Some(v) = key.version() {
            self.insert("version", v);
        }
        if let Some(g) = key.group() {
            self.insert("group", g);
        }
    }

    /// Copies every entry of `other` into `self`, overwriting equal keys.
    pub fn extend_from(&mut self, other: &Attachments) {
        for (k, v) in &other.entries {
            self.insert_value(k.clone(), v.clone());
        }
    }
}

impl FromIterator<(String, Value)> for Attachments {
    fn from_iter<T: IntoIterator<Item = (String, Value)>>(iter: T) -> Self {
        let mut out = Self::new();
        for (k, v) in iter {
            out.insert_value(k, v);
        }
        out
    }
}

impl IntoIterator for Attachments {
    type Item = (String, Value);
    type IntoIter = std::vec::IntoIter<(String, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_insertion_order_and_replaces_in_place() {
        let mut a = Attachments::new();
        a.insert("b", "1");
        a.insert("a", "2");
        assert_eq!(a.insert("b", "3"), Some(Value::String("1".into())));
        let keys: Vec<&str> = a.iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(a.get_str("b"), Some("3"));
        assert_eq!(a.remove("b"), Some(Value::String("3".into())));
        assert!(!a.contains_key("b"));
        let c: Attachments = [
            ("x".to_owned(), Value::Int(1)),
            ("x".to_owned(), Value::Int(2)),
        ]
        .into_iter()
        .collect();
        assert_eq!(c.len(), 1);
        assert_eq!(c.get("x"), Some(&Value::Int(2)));
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
