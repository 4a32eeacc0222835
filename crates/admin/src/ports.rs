//! [`Ports`]: an instance's port per protocol, sorted by protocol, in one small vector — an
//! instance has one or two, and a catalog hundreds of thousands of instances, where a map per
//! instance would cost several times the ports themselves. Written as the JSON object the API
//! has always answered (`{"dubbo": 20880, "tri": 50051}`).

use serde::ser::{Serialize, SerializeMap, Serializer};

/// Protocol → port, sorted by protocol.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ports(Vec<(Box<str>, u16)>);

impl Ports {
    /// The port of `protocol`.
    pub fn get(&self, protocol: &str) -> Option<u16> {
        self.find(protocol).ok().map(|n| self.0[n].1)
    }

    fn find(&self, protocol: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(p, _)| (**p).cmp(protocol))
    }

    /// Whether `protocol` has a port.
    pub fn contains_key(&self, protocol: &str) -> bool {
        self.find(protocol).is_ok()
    }

    /// Sets the port of `protocol`.
    pub fn insert(&mut self, protocol: &str, port: u16) {
        match self.find(protocol) {
            Ok(n) => self.0[n].1 = port,
            Err(n) => self.0.insert(n, (protocol.into(), port)),
        }
    }

    /// Sets the port of `protocol` unless it has one.
    pub fn insert_if_missing(&mut self, protocol: &str, port: u16) {
        if let Err(n) = self.find(protocol) {
            self.0.insert(n, (protocol.into(), port));
        }
    }

    /// The ports, in protocol order.
    pub fn values(&self) -> impl Iterator<Item = u16> + '_ {
        self.0.iter().map(|(_, port)| *port)
    }

    /// (protocol, port), in protocol order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u16)> + '_ {
        self.0.iter().map(|(p, port)| (&**p, *port))
    }

    /// How many protocols.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No port at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<P: AsRef<str>> FromIterator<(P, u16)> for Ports {
    fn from_iter<I: IntoIterator<Item = (P, u16)>>(iter: I) -> Self {
        let mut ports = Ports::default();
        for (p, port) in iter {
            ports.insert(p.as_ref(), port);
        }
        ports.0.shrink_to_fit();
        ports
    }
}

impl Serialize for Ports {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (p, port) in self.iter() {
            map.serialize_entry(p, &port)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sorted_map_of_protocols() {
        let mut p: Ports = [("tri", 50051), ("dubbo", 20880)].into_iter().collect();
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"dubbo":20880,"tri":50051}"#
        );
        assert_eq!(p.get("tri"), Some(50051));
        assert!(!p.contains_key("rest"));
        p.insert_if_missing("tri", 1);
        p.insert_if_missing("rest", 8080);
        p.insert("dubbo", 20881);
        assert_eq!(
            p.iter().collect::<Vec<_>>(),
            [("dubbo", 20881), ("rest", 8080), ("tri", 50051)]
        );
        assert_eq!(p.values().collect::<Vec<_>>(), [20881, 8080, 50051]);
        assert_eq!(p.len(), 3);
        assert!(Ports::default().is_empty());
    }
}
