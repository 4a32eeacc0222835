//! Mergers for Java collections: `list`, `set` and `map`.

use dubbo_core::RpcError;
use dubbo_hessian2::{List, Map, Value};

use super::{not_mergeable, Merger};

/// `list`: the elements of every result, in order (an `ArrayList`, as Java's `ListMerger`).
#[derive(Debug, Default, Clone, Copy)]
pub struct ListMerger;

impl Merger for ListMerger {
    fn merge(&self, results: Vec<Value>) -> Result<Value, RpcError> {
        let mut items = Vec::new();
        for r in results {
            match r {
                Value::List(l) => items.extend(l.items),
                other => return Err(not_mergeable("list", &other)),
            }
        }
        Ok(Value::List(List {
            type_name: None,
            items,
        }))
    }
}

/// `set`: every distinct element, in first-seen order (a `java.util.HashSet` on the wire, the
/// class Java's `SetMerger` returns).
#[derive(Debug, Default, Clone, Copy)]
pub struct SetMerger;

impl Merger for SetMerger {
    fn merge(&self, results: Vec<Value>) -> Result<Value, RpcError> {
        let mut items: Vec<Value> = Vec::new();
        for r in results {
            let Value::List(l) = r else {
                return Err(not_mergeable("set", &r));
            };
            for item in l.items {
                // Sets are small in practice; equality on the dynamic tree needs no hashing.
                if !items.contains(&item) {
                    items.push(item);
                }
            }
        }
        Ok(Value::List(List {
            type_name: Some("java.util.HashSet".to_owned()),
            items,
        }))
    }
}

/// `map`: every entry of every result; a key present in several takes the value of the last
/// (Java's `MapMerger` puts them all into one map in order). A `HashMap` on the wire.
#[derive(Debug, Default, Clone, Copy)]
pub struct MapMerger;

impl Merger for MapMerger {
    fn merge(&self, results: Vec<Value>) -> Result<Value, RpcError> {
        let mut entries: Vec<(Value, Value)> = Vec::new();
        for r in results {
            let Value::Map(m) = r else {
                return Err(not_mergeable("map", &r));
            };
            for (k, v) in m.entries {
                match entries.iter_mut().find(|(have, _)| *have == k) {
                    Some(slot) => slot.1 = v,
                    None => entries.push((k, v)),
                }
            }
        }
        Ok(Value::Map(Map {
            type_name: None,
            entries,
        }))
    }
}
