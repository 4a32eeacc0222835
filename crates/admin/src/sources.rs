//! [`Sources`]: where a provider or instance was found (`application`, `interface`, or both),
//! kept in one byte — a catalog holds one per provider and per instance, hundreds of
//! thousands on a large registry — and written as the JSON array of names the API has
//! always answered (`["application", "interface"]`, in that order).

use serde::ser::{Serialize, SerializeSeq, Serializer};

/// Where an entry was found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sources(u8);

const APPLICATION: u8 = 1;
const INTERFACE: u8 = 2;

impl Sources {
    /// Found in an application instance's metadata.
    pub const APPLICATION: Sources = Sources(APPLICATION);
    /// Found as an interface-level registration.
    pub const INTERFACE: Sources = Sources(INTERFACE);

    /// Both, once either was found.
    pub fn extend(&mut self, other: Sources) {
        self.0 |= other.0;
    }

    /// The names, in the order the API writes them.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        [(APPLICATION, "application"), (INTERFACE, "interface")]
            .into_iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, name)| name)
    }

    /// Whether every source of `other` is one of these.
    pub fn contains(&self, other: Sources) -> bool {
        self.0 & other.0 == other.0
    }

    /// How many sources.
    pub fn len(&self) -> usize {
        self.0.count_ones() as usize
    }

    /// None at all.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }
}

impl Serialize for Sources {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for name in self.iter() {
            seq.serialize_element(name)?;
        }
        seq.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_as_the_names_in_order() {
        let mut s = Sources::INTERFACE;
        assert_eq!(serde_json::to_string(&s).unwrap(), r#"["interface"]"#);
        s.extend(Sources::APPLICATION);
        s.extend(Sources::INTERFACE);
        assert_eq!(s.len(), 2);
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            r#"["application","interface"]"#
        );
        assert!(Sources::default().is_empty());
        assert_eq!(serde_json::to_string(&Sources::default()).unwrap(), "[]");
    }
}
