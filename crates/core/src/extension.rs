//! Named extension tables: the Rust form of Dubbo's SPI, scoped to a framework instance.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// A table of named extensions of any trait-object type, e.g. `Arc<dyn ProtocolFactory>`
/// under `"dubbo"` or `Arc<dyn LoadBalance>` under `"p2c"`.
///
/// A URL parameter such as `loadbalance=p2c` is resolved by looking up the name here. Each
/// framework instance owns its own table, so two frameworks in one process (or two tests) never
/// see each other's registrations.
#[derive(Default)]
pub struct Extensions {
    entries: RwLock<HashMap<(TypeId, String), Box<dyn Any + Send + Sync>>>,
}

impl Extensions {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `ext` as the extension of type `T` named `name`, replacing any earlier one.
    pub fn register<T: ?Sized + Send + Sync + 'static>(&self, name: &str, ext: Arc<T>) {
        let mut entries = self.entries.write().unwrap_or_else(|e| e.into_inner());
        entries.insert((TypeId::of::<Arc<T>>(), name.to_owned()), Box::new(ext));
    }

    /// The extension of type `T` named `name`.
    pub fn get<T: ?Sized + Send + Sync + 'static>(&self, name: &str) -> Option<Arc<T>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        entries
            .get(&(TypeId::of::<Arc<T>>(), name.to_owned()))
            .and_then(|b| b.downcast_ref::<Arc<T>>())
            .cloned()
    }

    /// Every extension of type `T`, sorted by name.
    pub fn all<T: ?Sized + Send + Sync + 'static>(&self) -> Vec<Arc<T>> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let id = TypeId::of::<Arc<T>>();
        let mut found: Vec<(&String, Arc<T>)> = entries
            .iter()
            .filter(|((t, _), _)| *t == id)
            .filter_map(|((_, n), b)| b.downcast_ref::<Arc<T>>().map(|e| (n, e.clone())))
            .collect();
        found.sort_by(|a, b| a.0.cmp(b.0));
        found.into_iter().map(|(_, e)| e).collect()
    }

    /// The names registered for type `T`, sorted.
    pub fn names<T: ?Sized + Send + Sync + 'static>(&self) -> Vec<String> {
        let entries = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let id = TypeId::of::<Arc<T>>();
        let mut names: Vec<String> = entries
            .keys()
            .filter(|(t, _)| *t == id)
            .map(|(_, n)| n.clone())
            .collect();
        names.sort();
        names
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.entries.read().map(|e| e.len()).unwrap_or(0);
        write!(f, "Extensions({n} entries)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    trait Greeter: Send + Sync {
        fn greet(&self) -> &'static str;
    }
    struct En;
    impl Greeter for En {
        fn greet(&self) -> &'static str {
            "hello"
        }
    }

    #[test]
    fn register_and_lookup_by_name_and_type() {
        let ext = Extensions::new();
        ext.register::<dyn Greeter>("en", Arc::new(En));
        assert_eq!(
            ext.get::<dyn Greeter>("en").map(|g| g.greet()),
            Some("hello")
        );
        assert!(ext.get::<dyn Greeter>("fr").is_none());
        assert!(ext.get::<String>("en").is_none());
        assert_eq!(ext.names::<dyn Greeter>(), vec!["en".to_owned()]);
        assert_eq!(ext.all::<dyn Greeter>().len(), 1);
    }
}
