//! [`Catalog`]: what a registry holds, read through the `dubbo` tool's library: providers
//! registered at interface level, application instances, and the services those instances
//! publish in the metadata report (application-level discovery), merged and deduplicated.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde::Serialize;

use crate::catalog_index::CatalogIndex;
use crate::interner::{Interner, Text};
use crate::ports::Ports;
use crate::sources::Sources;

/// One provider of one service at one address and protocol.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ProviderEntry {
    /// The interface.
    pub service: Text,
    /// Its version, empty for none.
    pub version: Text,
    /// Its group, empty for none.
    pub group: Text,
    /// The providing application.
    pub application: Text,
    /// `dubbo`, `tri`, ...
    pub protocol: Text,
    /// `host:port`, an IPv4-mapped IPv6 host written as IPv4.
    pub address: Text,
    /// `host:port` as registered: what rules name the provider by (their `addresses`).
    pub registered_address: Text,
    /// Where it was found: `interface` (a provider URL), `application` (an instance's
    /// metadata), or both.
    pub sources: Sources,
    /// The provider's weight (`weight` parameter, default 100).
    pub weight: u32,
}

impl ProviderEntry {
    /// `group/interface:version` as Java's `URL.getServiceKey` writes it.
    pub fn service_key(&self) -> String {
        service_key(&self.service, &self.version, &self.group)
    }
}

/// `group/interface:version`, leaving out what is empty.
pub fn service_key(service: &str, version: &str, group: &str) -> String {
    let mut key = String::new();
    if !group.is_empty() {
        key.push_str(group);
        key.push('/');
    }
    key.push_str(service);
    if !version.is_empty() {
        key.push(':');
        key.push_str(version);
    }
    key
}

/// Splits a service key back into interface, version and group.
pub fn split_service_key(key: &str) -> (String, String, String) {
    let (group, rest) = match key.split_once('/') {
        Some((g, r)) => (g.to_owned(), r),
        None => (String::new(), key),
    };
    let (service, version) = match rest.split_once(':') {
        Some((s, v)) => (s.to_owned(), v.to_owned()),
        None => (rest.to_owned(), String::new()),
    };
    (service, version, group)
}

/// One application instance.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InstanceEntry {
    /// `host:port` of its main protocol: how the API names it.
    pub id: Text,
    /// The application.
    pub application: Text,
    /// The host, an IPv4-mapped IPv6 host written as IPv4.
    pub host: Text,
    /// Protocol → port.
    pub ports: Ports,
    /// The metadata revision, empty when registered at interface level only.
    pub revision: Text,
    /// `interface`, `application`, or both.
    pub sources: Sources,
    /// Where its QoS (and Prometheus `/metrics`) answers.
    pub qos_address: Text,
}

/// Everything the registry holds, at one moment, with its [`CatalogIndex`].
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Every provider, sorted by service key, application, protocol, address.
    pub providers: Vec<ProviderEntry>,
    /// Every instance, sorted by application and id.
    pub instances: Vec<InstanceEntry>,
    index: CatalogIndex,
}

impl Catalog {
    /// The catalog of `providers` (sorted by service key) and `instances` (sorted by
    /// application), indexed.
    pub fn new(providers: Vec<ProviderEntry>, instances: Vec<InstanceEntry>) -> Self {
        let index = CatalogIndex::build(&providers, &instances);
        Self {
            providers,
            instances,
            index,
        }
    }

    /// The searches' index.
    pub fn index(&self) -> &CatalogIndex {
        &self.index
    }
}

/// A host as the admin shows and dials it: without brackets, `::ffff:a.b.c.d` as `a.b.c.d`.
pub fn plain_host(host: &str) -> String {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.strip_prefix("::ffff:") {
        Some(v4) if v4.parse::<std::net::Ipv4Addr>().is_ok() => v4.to_owned(),
        _ => host.to_owned(),
    }
}

/// `host:port`, an IPv6 host in brackets.
pub fn address(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// Deduplicates providers (same service key, protocol and address) and adds the instances
/// that only interface-level registrations show.
pub fn merge(
    providers: impl IntoIterator<Item = ProviderEntry>,
    instances: Vec<InstanceEntry>,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
    texts: &mut Interner,
) -> Catalog {
    merge_deduplicated(dedup(providers), instances, qos_port, texts)
}

/// [`merge`] of providers [`dedup`] has deduplicated.
pub(crate) fn merge_deduplicated(
    providers: Vec<ProviderEntry>,
    mut instances: Vec<InstanceEntry>,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
    texts: &mut Interner,
) -> Catalog {
    // The instances of each application and host, in order: found without a scan per
    // provider.
    let mut by_host: HashMap<(Text, Text), Vec<usize>> = HashMap::new();
    for (n, i) in instances.iter().enumerate() {
        by_host
            .entry((i.application.clone(), i.host.clone()))
            .or_default()
            .push(n);
    }
    for p in &providers {
        let Some((host, port)) = p.address.rsplit_once(':') else {
            continue;
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let Ok(port) = port.parse::<u16>() else {
            continue;
        };
        let host = texts.get(host);
        let key = (p.application.clone(), host.clone());
        let candidates = by_host.get(&key).map(Vec::as_slice).unwrap_or(&[]);
        let found = candidates
            .iter()
            .copied()
            .find(|&n| instances[n].ports.values().any(|x| x == port));
        if let Some(n) = found {
            let i = &mut instances[n];
            i.sources.extend(p.sources);
            i.ports.insert_if_missing(&p.protocol, port);
            continue;
        }
        // Another protocol of an instance already seen (same application and host, a
        // protocol it does not have yet), else a new instance.
        let same = candidates.iter().copied().find(|&n| {
            instances[n].revision.is_empty() && !instances[n].ports.contains_key(&p.protocol)
        });
        match same {
            Some(n) => {
                instances[n].ports.insert(&p.protocol, port);
            }
            None => {
                by_host.entry(key).or_default().push(instances.len());
                instances.push(InstanceEntry {
                    id: texts.get(&address(&host, port)),
                    application: p.application.clone(),
                    host: host.clone(),
                    ports: [(&*p.protocol, port)].into_iter().collect(),
                    revision: texts.get(""),
                    sources: Sources::INTERFACE,
                    qos_address: texts.get(&address(&host, qos_port(&p.application))),
                });
            }
        }
    }
    drop(by_host);
    instances.sort_by(|a, b| (&a.application, &a.id).cmp(&(&b.application, &b.id)));
    Catalog::new(providers, instances)
}

/// The providers, one per service key, application, protocol and address (the sources of
/// the others added to it), sorted by those.
pub(crate) fn dedup(providers: impl IntoIterator<Item = ProviderEntry>) -> Vec<ProviderEntry> {
    let providers = providers.into_iter();
    let mut set = Dedup::with_capacity(providers.size_hint().0);
    for p in providers {
        set.push(p);
    }
    set.finish()
}

/// Providers deduplicated as they come, so a registry that lists every provider both ways
/// costs one entry per provider.
pub(crate) struct Dedup {
    out: Vec<ProviderEntry>,
    first: HashMap<u64, usize>,
}

impl Dedup {
    /// Room for `n` providers.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Self {
            out: Vec::with_capacity(n),
            first: HashMap::with_capacity(n),
        }
    }

    /// Adds `p`, or its sources to the provider it repeats.
    pub(crate) fn push(&mut self, p: ProviderEntry) {
        let mut h = DefaultHasher::new();
        (&p.service, &p.version, &p.group).hash(&mut h);
        (&p.application, &p.protocol, &p.address).hash(&mut h);
        let h = h.finish();
        match self.first.get(&h) {
            Some(&n) if same_provider(&self.out[n], &p) => self.out[n].sources.extend(p.sources),
            // A new provider, or (rarely) another with the same hash: `finish` merges what
            // the hash could not tell apart.
            seen => {
                if seen.is_none() {
                    self.first.insert(h, self.out.len());
                }
                self.out.push(p);
            }
        }
    }

    /// The providers, sorted by service key, application, protocol and address.
    pub(crate) fn finish(self) -> Vec<ProviderEntry> {
        let mut out = self.out;
        drop(self.first);
        out.sort_unstable_by(provider_order);
        out.dedup_by(|later, kept| {
            let same = same_provider(kept, later);
            if same {
                kept.sources.extend(later.sources);
            }
            same
        });
        out
    }
}

fn same_provider(a: &ProviderEntry, b: &ProviderEntry) -> bool {
    provider_order(a, b) == Ordering::Equal
}

/// By service key (compared as the text `group/interface:version` without writing it),
/// application, protocol, address.
fn provider_order(a: &ProviderEntry, b: &ProviderEntry) -> Ordering {
    fn key(p: &ProviderEntry) -> impl Iterator<Item = u8> + '_ {
        let group: &[u8] = if p.group.is_empty() { b"" } else { b"/" };
        let version: &[u8] = if p.version.is_empty() { b"" } else { b":" };
        p.group
            .bytes()
            .chain(group.iter().copied())
            .chain(p.service.bytes())
            .chain(version.iter().copied())
            .chain(p.version.bytes())
    }
    key(a)
        .cmp(key(b))
        .then_with(|| a.application.cmp(&b.application))
        .then_with(|| a.protocol.cmp(&b.protocol))
        .then_with(|| a.address.cmp(&b.address))
}

pub(crate) fn instance_entry(
    i: &dubbo_registry::ServiceInstance,
    qos_port: u16,
    texts: &mut Interner,
) -> InstanceEntry {
    let host = plain_host(&i.host);
    let mut ports: Ports = i
        .endpoints()
        .into_iter()
        .map(|e| (e.protocol, e.port))
        .collect();
    if ports.is_empty() {
        ports.insert("dubbo", i.port);
    }
    InstanceEntry {
        id: texts.get(&address(&host, i.port)),
        application: texts.get(&i.app),
        host: texts.get(&host),
        ports,
        revision: texts.get(i.revision()),
        sources: Sources::APPLICATION,
        qos_address: texts.get(&address(&host, qos_port)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(app: &str, protocol: &str, address: &str, source: Sources) -> ProviderEntry {
        ProviderEntry {
            service: "org.Svc".into(),
            version: "1.0.0".into(),
            group: "".into(),
            application: app.into(),
            protocol: protocol.into(),
            address: address.into(),
            registered_address: address.into(),
            sources: source,
            weight: 100,
        }
    }

    #[test]
    fn both_models_merge_into_one_instance_and_one_provider_per_address() {
        let qos = |_: &str| 22222;
        let from_instance = InstanceEntry {
            id: "127.0.0.1:20880".into(),
            application: "a".into(),
            host: "127.0.0.1".into(),
            ports: [("dubbo", 20880), ("tri", 50051)].into_iter().collect(),
            revision: "r1".into(),
            sources: Sources::APPLICATION,
            qos_address: "127.0.0.1:22222".into(),
        };
        let c = merge(
            vec![
                provider("a", "dubbo", "127.0.0.1:20880", Sources::INTERFACE),
                provider("a", "dubbo", "127.0.0.1:20880", Sources::APPLICATION),
                provider("a", "tri", "127.0.0.1:50051", Sources::INTERFACE),
                provider("j", "dubbo", "127.0.0.1:20990", Sources::INTERFACE),
                provider("j", "tri", "127.0.0.1:50990", Sources::INTERFACE),
            ],
            vec![from_instance],
            &qos,
            &mut crate::interner::Interner::new(),
        );
        assert_eq!(c.providers.len(), 4);
        assert_eq!(c.providers[0].sources.len(), 2);
        assert_eq!(c.instances.len(), 2, "{:?}", c.instances);
        let j = &c.instances[1];
        assert_eq!(&*j.application, "j");
        assert_eq!(j.ports.len(), 2);
        assert_eq!(plain_host("[::ffff:127.0.0.1]"), "127.0.0.1");
        assert_eq!(plain_host("::1"), "::1");
        assert_eq!(
            split_service_key("g/org.Svc:1.0"),
            ("org.Svc".into(), "1.0".into(), "g".into())
        );
        assert_eq!(service_key("org.Svc", "", ""), "org.Svc");
    }
}
