//! [`Interner`]: one shared copy of each text of the catalog (service names, applications,
//! addresses, URLs), kept from one read of the registry to the next. A re-read builds a new
//! catalog while requests are still answered from the old one; with the texts shared, the new
//! catalog costs its entries' small structs rather than a second copy of every string, so a
//! registry of 100,000 instances is re-read without doubling the admin's memory.

use std::collections::HashSet;
use std::sync::Arc;

/// A text of the catalog, shared.
pub type Text = Arc<str>;

/// The shared texts.
#[derive(Debug, Default)]
pub struct Interner {
    texts: HashSet<Text>,
}

impl Interner {
    /// An interner with no text yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The shared copy of `s`, made the first time it is asked for.
    pub fn get(&mut self, s: &str) -> Text {
        if let Some(t) = self.texts.get(s) {
            return Arc::clone(t);
        }
        let t: Text = Arc::from(s);
        self.texts.insert(Arc::clone(&t));
        t
    }

    /// Forgets the texts no catalog uses any more.
    pub fn prune(&mut self) {
        self.texts.retain(|t| Arc::strong_count(t) > 1);
        self.texts.shrink_to_fit();
    }

    /// How many texts are kept.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// No text kept.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_copy_per_text_until_unused() {
        let mut i = Interner::new();
        let a = i.get("dubbo://10.0.0.1:20880/org.Foo");
        let b = i.get("dubbo://10.0.0.1:20880/org.Foo");
        assert!(Arc::ptr_eq(&a, &b));
        let c = i.get("org.Bar");
        assert_eq!(i.len(), 2);
        drop(c);
        i.prune();
        assert_eq!(i.len(), 1, "org.Bar is used by nothing");
        drop((a, b));
        i.prune();
        assert!(i.is_empty());
    }
}
