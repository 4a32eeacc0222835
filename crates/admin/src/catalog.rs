//! [`Catalog`]: what a registry holds, read through the `dubbo` tool's library: providers
//! registered at interface level, application instances, and the services those instances
//! publish in the metadata report (application-level discovery), merged and deduplicated.

use std::collections::{BTreeMap, BTreeSet};

use dubbo_cli::dubbo::{connect, ls};
use dubbo_core::Extensions;
use dubbo_registry::{RegistryError, ServiceInstance};
use dubbo_url::Url;
use serde::Serialize;

use crate::error::AdminError;

/// One provider of one service at one address and protocol.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ProviderEntry {
    /// The interface.
    pub service: String,
    /// Its version, empty for none.
    pub version: String,
    /// Its group, empty for none.
    pub group: String,
    /// The providing application.
    pub application: String,
    /// `dubbo`, `tri`, ...
    pub protocol: String,
    /// `host:port`, an IPv4-mapped IPv6 host written as IPv4.
    pub address: String,
    /// `host:port` as registered: what rules name the provider by (their `addresses`).
    pub registered_address: String,
    /// Where it was found: `interface` (a provider URL), `application` (an instance's
    /// metadata), or both.
    pub sources: BTreeSet<String>,
    /// The registered URL (interface level) or the one rebuilt from the metadata.
    pub url: String,
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
    pub id: String,
    /// The application.
    pub application: String,
    /// The host, an IPv4-mapped IPv6 host written as IPv4.
    pub host: String,
    /// Protocol → port.
    pub ports: BTreeMap<String, u16>,
    /// The metadata revision, empty when registered at interface level only.
    pub revision: String,
    /// `interface`, `application`, or both.
    pub sources: BTreeSet<String>,
    /// Where its QoS (and Prometheus `/metrics`) answers.
    pub qos_address: String,
}

/// Everything the registry holds, at one moment.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    /// Every provider, sorted by service key, application, protocol, address.
    pub providers: Vec<ProviderEntry>,
    /// Every instance, sorted by application and id.
    pub instances: Vec<InstanceEntry>,
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

fn provider_of_url(url: &Url) -> ProviderEntry {
    let row = ls::ProviderRow::from_url(url.clone());
    let host = plain_host(url.host().unwrap_or_default());
    ProviderEntry {
        service: row.service,
        version: row.version,
        group: row.group,
        application: row.application,
        protocol: row.protocol,
        address: address(&host, url.port()),
        registered_address: url.address(),
        sources: BTreeSet::from(["interface".to_owned()]),
        url: url.to_full_string(),
        weight: url
            .parameter("weight")
            .and_then(|w| w.parse().ok())
            .unwrap_or(100),
    }
}

/// Reads the whole catalog from the registry at `registry_url`; `qos_port` gives the QoS
/// port of an application's instances.
pub async fn read(
    ext: &Extensions,
    registry_url: &Url,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
) -> Result<Catalog, AdminError> {
    let mut providers: Vec<ProviderEntry> = match ls::providers(ext, registry_url).await {
        Ok(rows) => rows.iter().map(|r| provider_of_url(&r.url)).collect(),
        // A registry that cannot list its services has no interface-level view to show.
        Err(dubbo_cli::dubbo::CliError::Registry(RegistryError::Unsupported { .. })) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let apps = ls::instances(ext, registry_url).await?;
    let report = connect::report(ext, registry_url).await.ok();
    let mut instances: Vec<InstanceEntry> = Vec::new();
    for (app, list) in &apps {
        for i in list {
            instances.push(instance_entry(i, qos_port(app)));
            let Some(report) = &report else { continue };
            let info = match report.app_metadata(app, i.revision()).await {
                Ok(Some(info)) => info,
                // Metadata kept behind the instance's MetadataService (`local`, Java's
                // default) is not read here; interface-level registrations still show it.
                _ => continue,
            };
            let host = plain_host(&i.host);
            for s in info.services.values() {
                let port = if s.port != 0 {
                    s.port
                } else {
                    i.port_for(&s.protocol)
                };
                providers.push(ProviderEntry {
                    service: s.name.clone(),
                    version: s.version.clone().unwrap_or_default(),
                    group: s.group.clone().unwrap_or_default(),
                    application: app.clone(),
                    protocol: s.protocol.clone(),
                    address: address(&host, port),
                    registered_address: address(&i.host, port),
                    sources: BTreeSet::from(["application".to_owned()]),
                    url: format!("{}://{}/{}", s.protocol, address(&host, port), s.path),
                    weight: s
                        .params
                        .get("weight")
                        .and_then(|w| w.parse().ok())
                        .unwrap_or(100),
                });
            }
        }
    }
    Ok(merge(providers, instances, qos_port))
}

/// Deduplicates providers (same service key, protocol and address) and adds the instances
/// that only interface-level registrations show.
pub fn merge(
    providers: Vec<ProviderEntry>,
    mut instances: Vec<InstanceEntry>,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
) -> Catalog {
    let mut by_key: BTreeMap<(String, String, String, String), ProviderEntry> = BTreeMap::new();
    for p in providers {
        let key = (
            p.service_key(),
            p.application.clone(),
            p.protocol.clone(),
            p.address.clone(),
        );
        match by_key.get_mut(&key) {
            Some(existing) => existing.sources.extend(p.sources),
            None => {
                by_key.insert(key, p);
            }
        }
    }
    let providers: Vec<ProviderEntry> = by_key.into_values().collect();
    for p in &providers {
        let Some((host, port)) = p.address.rsplit_once(':') else {
            continue;
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let Ok(port) = port.parse::<u16>() else {
            continue;
        };
        let found = instances.iter_mut().find(|i| {
            i.application == p.application && i.host == host && i.ports.values().any(|&x| x == port)
        });
        match found {
            Some(i) => {
                i.sources.extend(p.sources.iter().cloned());
                i.ports.entry(p.protocol.clone()).or_insert(port);
            }
            None => {
                // Another protocol of an instance already seen (same application and
                // host, a protocol it does not have yet), else a new instance.
                let same = instances.iter_mut().find(|i| {
                    i.application == p.application
                        && i.host == host
                        && i.revision.is_empty()
                        && !i.ports.contains_key(&p.protocol)
                });
                match same {
                    Some(i) => {
                        i.ports.insert(p.protocol.clone(), port);
                    }
                    None => instances.push(InstanceEntry {
                        id: address(host, port),
                        application: p.application.clone(),
                        host: host.to_owned(),
                        ports: BTreeMap::from([(p.protocol.clone(), port)]),
                        revision: String::new(),
                        sources: BTreeSet::from(["interface".to_owned()]),
                        qos_address: address(host, qos_port(&p.application)),
                    }),
                }
            }
        }
    }
    instances.sort_by(|a, b| (&a.application, &a.id).cmp(&(&b.application, &b.id)));
    Catalog {
        providers,
        instances,
    }
}

fn instance_entry(i: &ServiceInstance, qos_port: u16) -> InstanceEntry {
    let host = plain_host(&i.host);
    let mut ports: BTreeMap<String, u16> = i
        .endpoints()
        .into_iter()
        .map(|e| (e.protocol, e.port))
        .collect();
    if ports.is_empty() {
        ports.insert("dubbo".into(), i.port);
    }
    InstanceEntry {
        id: address(&host, i.port),
        application: i.app.clone(),
        host: host.clone(),
        ports,
        revision: i.revision().to_owned(),
        sources: BTreeSet::from(["application".to_owned()]),
        qos_address: address(&host, qos_port),
    }
}

/// The consumers of `service` registered at interface level, as URLs.
pub async fn consumers(
    ext: &Extensions,
    registry_url: &Url,
    service: &str,
) -> Result<Vec<String>, AdminError> {
    let registry = connect::registry(ext, registry_url).await?;
    let lookup = match connect::any_of(service, "consumers") {
        Ok(url) => registry.lookup(&url).await,
        Err(e) => Err(e),
    };
    registry.destroy().await;
    Ok(lookup?
        .into_iter()
        .filter(|u| u.protocol() != Some("empty"))
        .map(|u| u.to_full_string())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn provider(app: &str, protocol: &str, address: &str, source: &str) -> ProviderEntry {
        ProviderEntry {
            service: "org.Svc".into(),
            version: "1.0.0".into(),
            group: String::new(),
            application: app.into(),
            protocol: protocol.into(),
            address: address.into(),
            registered_address: address.into(),
            sources: BTreeSet::from([source.to_owned()]),
            url: String::new(),
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
            ports: BTreeMap::from([("dubbo".into(), 20880), ("tri".into(), 50051)]),
            revision: "r1".into(),
            sources: BTreeSet::from(["application".to_owned()]),
            qos_address: "127.0.0.1:22222".into(),
        };
        let c = merge(
            vec![
                provider("a", "dubbo", "127.0.0.1:20880", "interface"),
                provider("a", "dubbo", "127.0.0.1:20880", "application"),
                provider("a", "tri", "127.0.0.1:50051", "interface"),
                provider("j", "dubbo", "127.0.0.1:20990", "interface"),
                provider("j", "tri", "127.0.0.1:50990", "interface"),
            ],
            vec![from_instance],
            &qos,
        );
        assert_eq!(c.providers.len(), 4);
        assert_eq!(c.providers[0].sources.len(), 2);
        assert_eq!(c.instances.len(), 2, "{:?}", c.instances);
        let j = &c.instances[1];
        assert_eq!(j.application, "j");
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
