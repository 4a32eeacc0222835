//! `consistenthash`: the same arguments always go to the same provider.

use std::fmt::Write as _;
use std::sync::Arc;

use dubbo_core::{Invocation, Invoker, LoadBalance, Payload, Value};
use md5::{Digest, Md5};

use super::lazy_now::LazyNow;
use super::snapshot::{ListCache, Providers};

/// The URL parameter setting the number of virtual nodes per provider.
pub const HASH_NODES_KEY: &str = "hash.nodes";
/// The URL parameter listing the argument positions the key is made of.
pub const HASH_ARGUMENTS_KEY: &str = "hash.arguments";
/// Virtual nodes per provider unless `hash.nodes` says otherwise.
pub const DEFAULT_HASH_NODES: usize = 160;

/// A ketama ring over one provider list.
#[derive(Debug)]
struct Ring {
    /// (position, provider index), sorted by position.
    points: Vec<(u32, u32)>,
    arguments: Vec<usize>,
}

impl Ring {
    fn build(invokers: &[Arc<dyn Invoker>], method: &str) -> Self {
        let url = invokers[0].url();
        let nodes = url
            .method_parameter(method, HASH_NODES_KEY)
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or(DEFAULT_HASH_NODES);
        let arguments = url
            .method_parameter(method, HASH_ARGUMENTS_KEY)
            .unwrap_or("0")
            .split(',')
            .filter_map(|v| v.trim().parse::<usize>().ok())
            .collect();
        let mut points = Vec::with_capacity(invokers.len() * (nodes / 4) * 4);
        for (index, inv) in invokers.iter().enumerate() {
            let address = inv.url().address();
            for i in 0..nodes / 4 {
                let digest = md5_of(&format!("{address}{i}"));
                for h in 0..4 {
                    points.push((position(&digest, h), index as u32));
                }
            }
        }
        // On equal positions the later provider wins, as a later put replaces in a TreeMap.
        points.sort_by_key(|&(pos, _)| pos);
        let mut deduped: Vec<(u32, u32)> = Vec::with_capacity(points.len());
        for p in points {
            match deduped.last_mut() {
                Some(last) if last.0 == p.0 => *last = p,
                _ => deduped.push(p),
            }
        }
        Self {
            points: deduped,
            arguments,
        }
    }

    /// The provider index for `key`: the first node at or after the key's position,
    /// wrapping around.
    fn locate(&self, key: &str) -> Option<usize> {
        let pos = position(&md5_of(key), 0);
        let at = self.points.partition_point(|&(p, _)| p < pos);
        self.points
            .get(at)
            .or_else(|| self.points.first())
            .map(|&(_, i)| i as usize)
    }

    /// The hashed text of the call: its hashed arguments as Java prints them. A typed or
    /// encoded argument is made a tree for this (consistent hashing reads arguments).
    fn key(&self, args: &[Payload]) -> String {
        let mut key = String::new();
        for &i in &self.arguments {
            match args.get(i) {
                Some(Payload::Value(v)) => java_string(v, &mut key),
                Some(other) => {
                    if let Ok(v) = other.to_value() {
                        java_string(&v, &mut key);
                    }
                }
                None => {}
            }
        }
        key
    }
}

fn md5_of(s: &str) -> [u8; 16] {
    Md5::digest(s.as_bytes()).into()
}

/// The `h`-th 32-bit little-endian word of an MD5 digest: four ring positions per digest.
fn position(digest: &[u8; 16], h: usize) -> u32 {
    u32::from_le_bytes([
        digest[h * 4],
        digest[h * 4 + 1],
        digest[h * 4 + 2],
        digest[h * 4 + 3],
    ])
}

/// Appends what Java's `String.valueOf` gives for the common argument types, so a Java and
/// a Rust consumer send a key to the same provider. Other values (objects, collections)
/// use a stable Rust rendering: the same value always maps the same way.
fn java_string(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Value::Long(l) => {
            let _ = write!(out, "{l}");
        }
        Value::Double(d) => {
            if d.is_finite() && d.fract() == 0.0 && d.abs() < 1e7 {
                let _ = write!(out, "{d:.1}");
            } else {
                let _ = write!(out, "{d}");
            }
        }
        Value::String(s) => out.push_str(s),
        other => {
            let _ = write!(out, "{other:?}");
        }
    }
}

/// Consistent hashing (Java's `ConsistentHashLoadBalance`): the arguments named by
/// `hash.arguments` (default the first, `0`) are hashed onto a ring of `hash.nodes` (160)
/// virtual nodes per provider, placed by MD5 of the provider's `host:port` as Java places
/// them. A key goes to the first node at or after its position; when a provider leaves,
/// only its keys move.
///
/// The ring is built once per provider list (recognised by its allocation, or by its
/// providers) and kept per service and method; a call costs one MD5 and a binary search.
#[derive(Debug, Default)]
pub struct ConsistentHashLoadBalance {
    rings: ListCache<Ring>,
}

impl ConsistentHashLoadBalance {
    /// The name it is registered under.
    pub const NAME: &'static str = "consistenthash";

    /// A balancer with no rings yet.
    pub fn new() -> Self {
        Self::default()
    }
}

impl ConsistentHashLoadBalance {
    fn pick(&self, providers: Providers<'_>, invocation: &Invocation) -> Option<Arc<dyn Invoker>> {
        let invokers = providers.list;
        let first = invokers.first()?;
        if invokers.len() == 1 {
            return Some(first.clone());
        }
        let method = invocation.method_name();
        let ring = self
            .rings
            .get_or_build(providers, invocation, &LazyNow::at(0), |list| {
                (Ring::build(list, method), u64::MAX)
            });
        let key = ring.value.key(invocation.args());
        let index = ring.value.locate(&key)?;
        invokers.get(index).cloned()
    }
}

impl LoadBalance for ConsistentHashLoadBalance {
    super::select_through_pick!();
}
