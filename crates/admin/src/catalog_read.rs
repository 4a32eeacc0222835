//! Reading a whole [`Catalog`] from the registry: every service's providers (interface level),
//! every application's instances and the metadata of their revisions (application level:
//! the metadata report's, else the instances' MetadataService's),
//! with many requests in flight, so a registry of tens of thousands of services and instances
//! is read in seconds rather than one round trip after another.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use dubbo_cli::dubbo::app_level::{self, IN_FLIGHT};
use dubbo_cli::dubbo::connect;
use dubbo_cli::dubbo::instance_metadata::{InstanceMetadata, RevisionKey};
use dubbo_core::Extensions;
use dubbo_registry::{MetadataInfo, RegistryError, ServiceInstance};
use dubbo_url::Url;
use futures::stream::{self, StreamExt, TryStreamExt};

use crate::catalog::{
    address, instance_entry, merge_deduplicated, plain_host, Catalog, Dedup, InstanceEntry,
    ProviderEntry,
};
use crate::error::AdminError;
use crate::interner::{Interner, Text};
use crate::sources::Sources;

/// What a catalog is made of, as read from the registry: each service's interface-level
/// providers, each application's instances and the metadata of the revisions they announce.
/// Kept by the live catalog ([`crate::catalog_live`]), which replaces one service's or one
/// application's part at a time as the registry pushes changes.
#[derive(Default)]
pub struct Parts {
    /// Interface-level providers, by service (interface) name.
    pub interface: HashMap<String, Vec<ProviderEntry>>,
    /// Instances, by application.
    pub apps: BTreeMap<String, Vec<ServiceInstance>>,
    /// The services of every revision the instances announce whose metadata could be read.
    pub metadata: HashMap<RevisionKey, RevisionServices>,
}

/// One service a metadata revision lists, with what the catalog shows of it.
#[derive(Debug, Clone)]
pub struct ServedService {
    /// The interface.
    pub name: Text,
    /// Its version, empty for none.
    pub version: Text,
    /// Its group, empty for none.
    pub group: Text,
    /// The protocol it is served over.
    pub protocol: Text,
    /// Its port; 0 for the instance's port of the protocol.
    pub port: u16,
    /// The `weight` parameter, 100 without one.
    pub weight: u32,
}

/// The services of one metadata revision. Kept instead of the [`MetadataInfo`] read: its
/// maps (a B-tree node of eleven entries for one service and its parameters) cost some 2 KB a
/// revision, 20 MB on a registry of 10,000 revisions, where these cost a small vector of
/// shared texts.
pub type RevisionServices = Arc<[ServedService]>;

/// A provider's `weight` parameter; Java's default 100 when absent or not a number.
fn weight(value: Option<&str>) -> u32 {
    value.and_then(|w| w.parse().ok()).unwrap_or(100)
}

/// The services of `info`, their texts shared through `t`.
fn revision_services(info: &MetadataInfo, t: &mut Interner) -> RevisionServices {
    info.services
        .values()
        .map(|s| ServedService {
            name: t.get(&s.name),
            version: t.get(s.version.as_deref().unwrap_or_default()),
            group: t.get(s.group.as_deref().unwrap_or_default()),
            protocol: t.get(&s.protocol),
            port: s.port,
            weight: weight(s.params.get("weight").map(String::as_str)),
        })
        .collect()
}

/// What the catalog keeps of each revision's metadata: its services, the texts shared
/// through `texts`.
fn keep_services(
    texts: &Mutex<Interner>,
) -> impl Fn(Arc<MetadataInfo>) -> RevisionServices + Sync + '_ {
    move |info| revision_services(&info, &mut lock(texts))
}

/// Reads the whole catalog from the registry at `registry_url`; `qos_port` gives the QoS
/// port of an application's instances.
///
/// The catalog's texts come from `texts` (and are added there), so a catalog read again
/// shares them with the one before.
pub async fn read(
    ext: &Extensions,
    registry_url: &Url,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
    texts: &Arc<Mutex<Interner>>,
    fetched: &InstanceMetadata,
) -> Result<Catalog, AdminError> {
    let parts = read_parts(ext, registry_url, texts, fetched).await?;
    Ok(into_catalog(parts, qos_port, texts))
}

/// How many providers (interface level) and instances `parts` hold.
pub fn size(parts: &Parts) -> usize {
    parts.interface.values().map(Vec::len).sum::<usize>()
        + parts.apps.values().map(Vec::len).sum::<usize>()
}

/// Reads every part of the catalog from the registry at `registry_url`.
pub async fn read_parts(
    ext: &Extensions,
    registry_url: &Url,
    texts: &Arc<Mutex<Interner>>,
    fetched: &InstanceMetadata,
) -> Result<Parts, AdminError> {
    let interface = interface_providers(ext, registry_url, texts).await?;
    let apps = app_level::instances(ext, registry_url).await?;
    let report = connect::report(ext, registry_url).await.ok();
    let metadata =
        app_level::revision_metadata_as(report, &apps, fetched, &keep_services(texts)).await;
    Ok(Parts {
        interface,
        apps: apps.into_iter().collect(),
        metadata,
    })
}

/// The metadata of `parts`' revisions brought up to date: revisions no instance announces any
/// more dropped, new ones read (the report's, else the instances' MetadataService's).
pub async fn refresh_metadata(
    parts: &mut Parts,
    ext: &Extensions,
    registry_url: &Url,
    texts: &Mutex<Interner>,
    fetched: &InstanceMetadata,
) {
    let announced: HashSet<RevisionKey> = parts
        .apps
        .iter()
        .flat_map(|(app, list)| list.iter().map(|i| (app.clone(), i.revision().to_owned())))
        .collect();
    parts.metadata.retain(|k, _| announced.contains(k));
    let missing: Vec<(String, Vec<ServiceInstance>)> = parts
        .apps
        .iter()
        .filter_map(|(app, list)| {
            let new: Vec<ServiceInstance> = list
                .iter()
                .filter(|i| {
                    !parts
                        .metadata
                        .contains_key(&(app.clone(), i.revision().to_owned()))
                })
                .cloned()
                .collect();
            (!new.is_empty()).then(|| (app.clone(), new))
        })
        .collect();
    if missing.is_empty() {
        return;
    }
    let report = connect::report(ext, registry_url).await.ok();
    let found =
        app_level::revision_metadata_as(report, &missing, fetched, &keep_services(texts)).await;
    parts.metadata.extend(found);
}

/// The catalog of `parts`: providers found both ways merged, instances with their QoS
/// addresses, indexed. The parts stay (the live catalog keeps them).
pub fn build(
    parts: &Parts,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
    texts: &Arc<Mutex<Interner>>,
) -> Catalog {
    let count = parts.interface.values().map(Vec::len).sum();
    let interface = parts.interface.values().flatten().cloned();
    let (providers, entries) = gather(
        (interface, count),
        &parts.apps,
        &parts.metadata,
        qos_port,
        texts,
    );
    merge_deduplicated(providers, entries, qos_port, &mut lock(texts))
}

/// [`build`] from parts no longer needed: each provider moved rather than copied, the parts
/// gone before the catalog is indexed, so a read holds one copy of the registry at a time.
pub fn into_catalog(
    parts: Parts,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
    texts: &Arc<Mutex<Interner>>,
) -> Catalog {
    let Parts {
        interface,
        apps,
        metadata,
    } = parts;
    let count = interface.values().map(Vec::len).sum();
    let interface = interface.into_values().flatten();
    let (providers, entries) = gather((interface, count), &apps, &metadata, qos_port, texts);
    drop(metadata);
    drop(apps);
    merge_deduplicated(providers, entries, qos_port, &mut lock(texts))
}

/// The instances' entries and every provider (`interface`'s, `count` of them, then those the
/// instances' metadata names), deduplicated.
fn gather(
    (interface, count): (impl Iterator<Item = ProviderEntry>, usize),
    apps: &BTreeMap<String, Vec<ServiceInstance>>,
    metadata: &HashMap<RevisionKey, RevisionServices>,
    qos_port: &(dyn Fn(&str) -> u16 + Sync),
    texts: &Arc<Mutex<Interner>>,
) -> (Vec<ProviderEntry>, Vec<InstanceEntry>) {
    let mut t = lock(texts);
    let mut entries: Vec<InstanceEntry> = Vec::with_capacity(apps.values().map(Vec::len).sum());
    for (app, list) in apps {
        for i in list {
            entries.push(instance_entry(i, qos_port(app), &mut t));
        }
    }
    // The providers instances' metadata names, one at a time: most are the interface-level
    // registrations again, dropped as soon as they are made.
    let mut set = Dedup::with_capacity(count);
    for p in interface {
        set.push(p);
    }
    for (app, list) in apps {
        for i in list {
            let key = (app.clone(), i.revision().to_owned());
            if let Some(services) = metadata.get(&key) {
                for p in application_providers(app, i, services, &mut t) {
                    set.push(p);
                }
            }
        }
    }
    (set.finish(), entries)
}

/// The providers of the registered `urls` (`empty://` left out), their texts shared
/// through `texts`.
pub fn providers_of_urls(urls: &[Url], texts: &Mutex<Interner>) -> Vec<ProviderEntry> {
    let mut t = lock(texts);
    let mut list: Vec<ProviderEntry> = urls
        .iter()
        .filter(|u| u.protocol() != Some("empty"))
        .map(|u| provider_of_url(u, &mut t))
        .collect();
    // Collected from a filter, the vector has room for up to twice its entries: 6 MB over
    // 100,000 providers kept until the catalog is made.
    list.shrink_to_fit();
    list
}

/// The provider of the registered `url`, its texts shared through `t`.
fn provider_of_url(url: &Url, t: &mut Interner) -> ProviderEntry {
    let mut text = |v: Option<&str>| t.get(v.unwrap_or_default());
    let host = plain_host(url.host().unwrap_or_default());
    ProviderEntry {
        service: text(url.service_interface()),
        version: text(url.version()),
        group: text(url.group()),
        application: text(url.application()),
        protocol: text(url.protocol()),
        address: text(Some(&address(&host, url.port()))),
        registered_address: text(Some(&url.address())),
        sources: Sources::INTERFACE,
        weight: weight(url.parameter("weight")),
    }
}

/// Every provider registered at interface level, by service; none from a registry that
/// cannot list its services.
async fn interface_providers(
    ext: &Extensions,
    registry_url: &Url,
    texts: &Arc<Mutex<Interner>>,
) -> Result<HashMap<String, Vec<ProviderEntry>>, AdminError> {
    let registry = connect::registry(ext, registry_url).await?;
    let result: Result<HashMap<String, Vec<ProviderEntry>>, RegistryError> = async {
        let services = match registry.services().await {
            Ok(s) => s,
            // A registry that cannot list its services has no interface-level view to show.
            Err(RegistryError::Unsupported { .. }) => return Ok(HashMap::new()),
            Err(e) => return Err(e),
        };
        stream::iter(services)
            .map(|service| {
                let registry = Arc::clone(&registry);
                let texts = Arc::clone(texts);
                async move {
                    let urls = registry
                        .lookup(&connect::any_provider_of(&service)?)
                        .await?;
                    let list = providers_of_urls(&urls, &texts);
                    Ok::<_, RegistryError>((service, list))
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .try_collect()
            .await
    }
    .await;
    registry.destroy().await;
    Ok(result?)
}

/// The providers instance `i` of `app` serves according to its revision's `services`,
/// their texts shared through `t`.
fn application_providers<'a>(
    app: &'a str,
    i: &'a ServiceInstance,
    services: &'a [ServedService],
    t: &'a mut Interner,
) -> impl Iterator<Item = ProviderEntry> + 'a {
    let host = plain_host(&i.host);
    services.iter().map(move |s| {
        let port = if s.port != 0 {
            s.port
        } else {
            i.port_for(&s.protocol)
        };
        let address = address(&host, port);
        ProviderEntry {
            service: s.name.clone(),
            version: s.version.clone(),
            group: s.group.clone(),
            application: t.get(app),
            protocol: s.protocol.clone(),
            registered_address: t.get(&crate::catalog::address(&i.host, port)),
            address: t.get(&address),
            sources: Sources::APPLICATION,
            weight: s.weight,
        }
    })
}

/// The interner, whoever panicked while holding it (its texts stay valid).
fn lock(texts: &Mutex<Interner>) -> MutexGuard<'_, Interner> {
    texts.lock().unwrap_or_else(PoisonError::into_inner)
}
