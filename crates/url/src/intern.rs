//! Sharing of repeated strings between Urls.
//!
//! A consumer that subscribes to a busy interface receives thousands of provider Urls whose
//! keys (`interface`, `side`, `methods`, ...) and most values (`provider`, `2.0.2`, the interface
//! name, the long `methods` list) are the same. Java Dubbo 3 shares them through process-wide
//! caches (`URLItemCache`). Here the cache is an explicit [`Interner`] value: the registry or the
//! framework scope that parses Urls owns one and passes it to [`Url::parse_with`] /
//! [`Url::parse_encoded_with`]. Nothing is global, so two framework instances in one process do
//! not share or leak into each other's caches.
//!
//! [`Url::parse_with`]: crate::Url::parse_with
//! [`Url::parse_encoded_with`]: crate::Url::parse_encoded_with

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

use crate::keys;

/// Strings every Dubbo deployment repeats; an interner starts with them.
const SEED: &[&str] = &[
    keys::ANYHOST,
    keys::APPLICATION,
    keys::CATEGORY,
    keys::CHECK,
    keys::DEPRECATED,
    keys::DUBBO_VERSION,
    keys::DYNAMIC,
    keys::GENERIC,
    keys::GROUP,
    keys::INTERFACE,
    keys::METADATA_TYPE,
    keys::METHODS,
    keys::PID,
    keys::RELEASE,
    keys::SIDE,
    keys::TIMESTAMP,
    keys::VERSION,
    keys::TIMEOUT,
    keys::RETRIES,
    keys::LOADBALANCE,
    keys::CLUSTER,
    keys::WEIGHT,
    keys::SERIALIZATION,
    keys::PREFER_SERIALIZATION,
    keys::REGISTER_MODE,
    keys::SERVICE_NAME_MAPPING,
    keys::EXECUTOR_MANAGEMENT_MODE,
    keys::FILE_CACHE,
    keys::BACKGROUND,
    keys::QOS_PORT,
    keys::CONSUMER,
    keys::PROVIDER,
    keys::PROVIDERS_CATEGORY,
    keys::CONSUMERS_CATEGORY,
    keys::CONFIGURATORS_CATEGORY,
    keys::ROUTERS_CATEGORY,
    "true",
    "false",
    "dubbo",
    "tri",
    "hessian2",
    "fastjson2",
    "2.0.2",
    "interface",
    "instance",
    "all",
    "remote",
    "local",
    "isolation",
    "default",
];

/// Values longer than this are not interned: they are unlikely to repeat and would only pin
/// memory.
const MAX_INTERNED_LEN: usize = 4096;

/// A thread-safe, bounded string interner, shared by cloning (it is an `Arc` inside).
///
/// `intern` returns an `Arc<str>` equal to its argument; equal strings interned through the same
/// `Interner` share one allocation. When the table reaches its capacity it is cleared and
/// re-seeded, a cheap stand-in for Java's LRU that keeps memory bounded whatever the registry
/// pushes; Urls that already hold strings keep them.
///
/// ```
/// use std::sync::Arc;
/// use dubbo_url::{Interner, Url};
///
/// let interner = Interner::new();
/// let a = Url::parse_with("dubbo://10.0.0.1:20880/org.Foo?side=provider&methods=a,b", &interner).unwrap();
/// let b = Url::parse_with("dubbo://10.0.0.2:20880/org.Foo?side=provider&methods=a,b", &interner).unwrap();
/// // The two provider Urls point at the same `methods` string.
/// assert!(std::ptr::eq(a.parameter("methods").unwrap(), b.parameter("methods").unwrap()));
/// assert!(Arc::ptr_eq(&interner.intern("side"), &interner.intern("side")));
/// ```
#[derive(Clone)]
pub struct Interner {
    inner: Arc<Inner>,
}

struct Inner {
    table: RwLock<HashSet<Arc<str>>>,
    capacity: usize,
}

impl Interner {
    /// Default number of distinct strings kept before the table is recycled.
    pub const DEFAULT_CAPACITY: usize = 65_536;

    /// An interner with [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY), seeded with Dubbo's
    /// common keys and values.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// An interner that keeps at most `capacity` strings (at least the seed set).
    pub fn with_capacity(capacity: usize) -> Self {
        let capacity = capacity.max(SEED.len() + 1);
        Interner {
            inner: Arc::new(Inner {
                table: RwLock::new(seeded()),
                capacity,
            }),
        }
    }

    /// Returns the shared copy of `s`, adding it if it is new.
    pub fn intern(&self, s: &str) -> Arc<str> {
        {
            let table = self
                .inner
                .table
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(found) = table.get(s) {
                return Arc::clone(found);
            }
        }
        let mut table = self
            .inner
            .table
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = table.get(s) {
            return Arc::clone(found);
        }
        if table.len() >= self.inner.capacity {
            *table = seeded();
        }
        let fresh: Arc<str> = Arc::from(s);
        table.insert(Arc::clone(&fresh));
        fresh
    }

    /// Number of strings currently held.
    pub fn len(&self) -> usize {
        self.inner
            .table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// True when the interner holds no strings (never the case: it keeps its seed).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most strings kept before the table is recycled.
    pub fn capacity(&self) -> usize {
        self.inner.capacity
    }

    /// Drops every string except the seed set.
    pub fn clear(&self) {
        *self
            .inner
            .table
            .write()
            .unwrap_or_else(PoisonError::into_inner) = seeded();
    }
}

impl Default for Interner {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Interner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interner")
            .field("len", &self.len())
            .field("capacity", &self.inner.capacity)
            .finish()
    }
}

fn seeded() -> HashSet<Arc<str>> {
    SEED.iter().map(|&s| Arc::from(s)).collect()
}

/// How a parse allocates its strings: fresh `Arc`s, or through an [`Interner`].
#[derive(Clone, Copy)]
pub(crate) enum Strings<'a> {
    Fresh,
    Interned(&'a Interner),
}

impl Strings<'_> {
    /// A protocol, path or parameter key.
    pub(crate) fn name(self, s: &str) -> Arc<str> {
        match self {
            Strings::Interned(interner) if s.len() <= MAX_INTERNED_LEN => interner.intern(s),
            _ => Arc::from(s),
        }
    }

    /// A parameter value; values that differ per instance are not interned.
    pub(crate) fn value(self, key: &str, s: &str) -> Arc<str> {
        match self {
            Strings::Interned(interner)
                if s.len() <= MAX_INTERNED_LEN
                    && key != keys::TIMESTAMP
                    && key != keys::PID
                    && key != keys::REMOTE_TIMESTAMP =>
            {
                interner.intern(s)
            }
            _ => Arc::from(s),
        }
    }

    /// Text that is never shared (user names, passwords).
    pub(crate) fn plain(self, s: &str) -> Arc<str> {
        Arc::from(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounded_and_shared() {
        let interner = Interner::with_capacity(0);
        let cap = interner.capacity();
        for i in 0..cap * 3 {
            let s = format!("k{i}");
            assert_eq!(&*interner.intern(&s), s.as_str());
            assert!(interner.len() <= cap);
        }
        let a = interner.intern("side");
        let b = interner.clone().intern("side");
        assert!(Arc::ptr_eq(&a, &b));
        interner.clear();
        assert!(!interner.is_empty());
        assert!(format!("{interner:?}").contains("capacity"));
    }
}
