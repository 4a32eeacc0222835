//! Reading a whole [`Catalog`] from the registry: every service's providers (interface level),
//! every application's instances and the metadata of their revisions (application level:
//! the metadata report's, else the instances' MetadataService's),
//! with many requests in flight, so a registry of tens of thousands of services and instances
//! is read in seconds rather than one round trip after another.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use dubbo_cli::dubbo::connect;
use dubbo_core::Extensions;
use dubbo_registry::{
    MetadataInfo, MetadataReport, RegistryError, ServiceInstance, EMPTY_REVISION,
};
use dubbo_url::Url;
use futures::stream::{self, StreamExt, TryStreamExt};

use crate::catalog::{
    address, instance_entry, merge_deduplicated, plain_host, Catalog, Dedup, InstanceEntry,
    ProviderEntry,
};
use crate::error::AdminError;
use crate::instance_metadata::{InstanceMetadata, TRIES_PER_REVISION};
use crate::interner::Interner;
use crate::sources::Sources;

/// Registry requests kept in flight while reading: enough to hide the round trips to a
/// registry on another host, few enough not to flood it.
pub const IN_FLIGHT: usize = 64;

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
    let providers = interface_providers(ext, registry_url, texts).await?;
    let apps = instances(ext, registry_url).await?;
    let mut entries: Vec<InstanceEntry> =
        Vec::with_capacity(apps.iter().map(|(_, list)| list.len()).sum());
    {
        let mut t = lock(texts);
        for (app, list) in &apps {
            for i in list {
                entries.push(instance_entry(i, qos_port(app), &mut t));
            }
        }
    }
    let metadata = match connect::report(ext, registry_url).await {
        Ok(report) => revisions(report, &apps).await,
        Err(_) => HashMap::new(),
    };
    let metadata = with_fetched(metadata, &apps, fetched).await;
    // The providers instances' metadata names, one at a time: most are the interface-level
    // registrations again, dropped as soon as they are made.
    let mut t = lock(texts);
    let mut set = Dedup::with_capacity(providers.len());
    for p in providers {
        set.push(p);
    }
    for (app, list) in &apps {
        for i in list {
            let key = (app.clone(), i.revision().to_owned());
            if let Some(info) = metadata.get(&key) {
                for p in application_providers(app, i, info, &mut t) {
                    set.push(p);
                }
            }
        }
    }
    let providers = set.finish();
    drop(metadata);
    drop(apps);
    Ok(merge_deduplicated(providers, entries, qos_port, &mut t))
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
        url: text(Some(&url.to_full_string())),
        weight: url
            .parameter("weight")
            .and_then(|w| w.parse().ok())
            .unwrap_or(100),
    }
}

/// Every provider registered at interface level; none from a registry that cannot list its
/// services.
async fn interface_providers(
    ext: &Extensions,
    registry_url: &Url,
    texts: &Arc<Mutex<Interner>>,
) -> Result<Vec<ProviderEntry>, AdminError> {
    let registry = connect::registry(ext, registry_url).await?;
    let result: Result<Vec<ProviderEntry>, RegistryError> = async {
        let services = match registry.services().await {
            Ok(s) => s,
            // A registry that cannot list its services has no interface-level view to show.
            Err(RegistryError::Unsupported { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let lists: Vec<Vec<ProviderEntry>> = stream::iter(services)
            .map(|service| {
                let registry = Arc::clone(&registry);
                let texts = Arc::clone(texts);
                async move {
                    let urls = registry
                        .lookup(&connect::any_provider_of(&service)?)
                        .await?;
                    let mut t = lock(&texts);
                    Ok::<_, RegistryError>(
                        urls.iter().map(|u| provider_of_url(u, &mut t)).collect(),
                    )
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .try_collect()
            .await?;
        let mut all = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for list in lists {
            all.extend(list);
        }
        Ok(all)
    }
    .await;
    registry.destroy().await;
    Ok(result?)
}

/// Every application and its instances.
async fn instances(
    ext: &Extensions,
    registry_url: &Url,
) -> Result<Vec<(String, Vec<ServiceInstance>)>, AdminError> {
    let discovery = connect::discovery(ext, registry_url).await?;
    let result: Result<Vec<_>, RegistryError> = async {
        let names = match discovery.applications().await {
            Ok(names) => names,
            // A discovery that cannot list its applications has no application-level view.
            Err(RegistryError::Unsupported { .. }) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut apps: Vec<(String, Vec<ServiceInstance>)> = stream::iter(names)
            .map(|app| {
                let discovery = Arc::clone(&discovery);
                async move {
                    let list = discovery.instances(&app).await?;
                    Ok::<_, RegistryError>((app, list))
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .try_collect()
            .await?;
        apps.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(apps)
    }
    .await;
    discovery.destroy().await;
    Ok(result?)
}

/// The metadata of every revision: the report's, else (storage type `local`, Java's default)
/// what an instance announcing it answers through its MetadataService, kept by `fetched`.
async fn with_fetched(
    report: HashMap<(String, String), Option<MetadataInfo>>,
    apps: &[(String, Vec<ServiceInstance>)],
    fetched: &InstanceMetadata,
) -> HashMap<(String, String), Arc<MetadataInfo>> {
    let mut out = HashMap::with_capacity(report.len());
    for (key, info) in report {
        if let Some(info) = info {
            out.insert(key, Arc::new(info));
        }
    }
    let local = to_ask(&out, apps);
    out.extend(fetched.fetch(local).await);
    out
}

/// The revisions to ask the instances for, each with the first [`TRIES_PER_REVISION`]
/// instances announcing it: those with a revision (not Java's empty `0`) the report does not
/// hold (`known`), kept locally (an instance whose storage type is `remote` has its metadata
/// in the report only, as Java's consumers read it).
fn to_ask(
    known: &HashMap<(String, String), Arc<MetadataInfo>>,
    apps: &[(String, Vec<ServiceInstance>)],
) -> Vec<((String, String), Vec<ServiceInstance>)> {
    let mut local: HashMap<(String, String), Vec<ServiceInstance>> = HashMap::new();
    for (app, list) in apps {
        for i in list {
            let revision = i.revision();
            if revision.is_empty() || revision == EMPTY_REVISION || i.is_remote_storage() {
                continue;
            }
            let key = (app.clone(), revision.to_owned());
            if !known.contains_key(&key) {
                let tried = local.entry(key).or_default();
                if tried.len() < TRIES_PER_REVISION {
                    tried.push(i.clone());
                }
            }
        }
    }
    let mut local: Vec<_> = local.into_iter().collect();
    local.sort_by(|a, b| a.0.cmp(&b.0));
    local
}

/// The metadata of every (application, revision) the instances announce, read once each
/// from the report; `None` where the report has none.
async fn revisions(
    report: Arc<dyn MetadataReport>,
    apps: &[(String, Vec<ServiceInstance>)],
) -> HashMap<(String, String), Option<MetadataInfo>> {
    let wanted: BTreeSet<(String, String)> = apps
        .iter()
        .flat_map(|(app, list)| list.iter().map(|i| (app.clone(), i.revision().to_owned())))
        .collect();
    stream::iter(wanted)
        .map(|(app, revision)| {
            let report = Arc::clone(&report);
            async move {
                let info = report.app_metadata(&app, &revision).await.ok().flatten();
                ((app, revision), info)
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await
}

/// The providers instance `i` of `app` serves according to its metadata `info`, their texts
/// shared through `t`.
fn application_providers<'a>(
    app: &'a str,
    i: &'a ServiceInstance,
    info: &'a MetadataInfo,
    t: &'a mut Interner,
) -> impl Iterator<Item = ProviderEntry> + 'a {
    let host = plain_host(&i.host);
    info.services.values().map(move |s| {
        let port = if s.port != 0 {
            s.port
        } else {
            i.port_for(&s.protocol)
        };
        let address = address(&host, port);
        ProviderEntry {
            service: t.get(&s.name),
            version: t.get(s.version.as_deref().unwrap_or_default()),
            group: t.get(s.group.as_deref().unwrap_or_default()),
            application: t.get(app),
            protocol: t.get(&s.protocol),
            url: t.get(&format!("{}://{}/{}", s.protocol, address, s.path)),
            registered_address: t.get(&crate::catalog::address(&i.host, port)),
            address: t.get(&address),
            sources: Sources::APPLICATION,
            weight: s
                .params
                .get("weight")
                .and_then(|w| w.parse().ok())
                .unwrap_or(100),
        }
    })
}

/// The interner, whoever panicked while holding it (its texts stay valid).
fn lock(texts: &Mutex<Interner>) -> MutexGuard<'_, Interner> {
    texts.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use dubbo_registry::{REVISION_KEY, STORAGE_TYPE_KEY};

    use super::*;

    fn instance(app: &str, port: u16, revision: &str, storage: Option<&str>) -> ServiceInstance {
        let mut i = ServiceInstance::new(app, "127.0.0.1", port);
        i.metadata.insert(REVISION_KEY.into(), revision.into());
        if let Some(s) = storage {
            i.metadata.insert(STORAGE_TYPE_KEY.into(), s.into());
        }
        i
    }

    /// Each revision the report lacks is asked once, of at most three of its instances; the
    /// report's revisions, `remote` storage, Java's empty revision and no revision are not.
    #[test]
    fn revisions_missing_from_the_report_are_asked_of_a_few_instances() {
        let apps = vec![
            (
                "a".to_owned(),
                (0..5)
                    .map(|n| instance("a", 20880 + n, "r1", None))
                    .chain([instance("a", 20900, "r2", Some("local"))])
                    .collect(),
            ),
            (
                "b".to_owned(),
                vec![
                    instance("b", 1, "in-report", None),
                    instance("b", 2, "remote", Some("remote")),
                    instance("b", 3, EMPTY_REVISION, None),
                    ServiceInstance::new("b", "127.0.0.1", 4),
                ],
            ),
        ];
        let known = HashMap::from([(
            ("b".to_owned(), "in-report".to_owned()),
            Arc::new(MetadataInfo::new("b")),
        )]);
        let asked: Vec<((String, String), Vec<u16>)> = to_ask(&known, &apps)
            .into_iter()
            .map(|(k, list)| (k, list.iter().map(|i| i.port).collect()))
            .collect();
        assert_eq!(
            asked,
            vec![
                (("a".into(), "r1".into()), vec![20880, 20881, 20882]),
                (("a".into(), "r2".into()), vec![20900]),
            ]
        );
    }
}
