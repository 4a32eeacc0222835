//! Application-level discovery as an operator reads it: every application's instances, and the
//! services each instance's metadata revision names — from the metadata report when it holds
//! the revision (storage type `remote`), else (`local`, Java's default) from one of the
//! instances' own MetadataService ([`InstanceMetadata`]). `dubbo ls` and the admin console
//! read providers registered at application level only (Java 3.3's `register-mode=instance`)
//! through this module.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use dubbo_core::Extensions;
use dubbo_registry::{
    InstanceUrls, MetadataInfo, MetadataReport, RegistryError, ServiceInstance, EMPTY_REVISION,
};
use dubbo_url::Url;
use futures::stream::{self, StreamExt, TryStreamExt};

use crate::dubbo::connect;
use crate::dubbo::instance_metadata::{InstanceMetadata, RevisionKey, TRIES_PER_REVISION};

/// Registry requests kept in flight while reading: enough to hide the round trips to a
/// registry on another host, few enough not to flood it.
pub const IN_FLIGHT: usize = 64;

/// Every application the discovery lists, with its instances, sorted by application; none
/// from a discovery that cannot list its applications.
pub async fn instances(
    ext: &Extensions,
    registry_url: &Url,
) -> Result<Vec<(String, Vec<ServiceInstance>)>, RegistryError> {
    instances_of(ext, registry_url, None).await
}

/// The instances of each application in `names` (every application the discovery lists when
/// `None`), sorted by application.
pub async fn instances_of(
    ext: &Extensions,
    registry_url: &Url,
    names: Option<Vec<String>>,
) -> Result<Vec<(String, Vec<ServiceInstance>)>, RegistryError> {
    let discovery = connect::discovery(ext, registry_url).await?;
    let result: Result<Vec<_>, RegistryError> = async {
        let names = match names {
            Some(names) => names,
            None => match discovery.applications().await {
                Ok(names) => names,
                // A discovery that cannot list its applications has no application-level view.
                Err(RegistryError::Unsupported { .. }) => return Ok(Vec::new()),
                Err(e) => return Err(e),
            },
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
    result
}

/// The metadata of every revision `apps`' instances announce: the report's (`report`, when
/// there is one), else what an instance announcing it answers through its MetadataService,
/// kept by `fetched`. Revisions neither answers are left out.
pub async fn revision_metadata(
    report: Option<Arc<dyn MetadataReport>>,
    apps: &[(String, Vec<ServiceInstance>)],
    fetched: &InstanceMetadata,
) -> HashMap<RevisionKey, Arc<MetadataInfo>> {
    revision_metadata_as(report, apps, fetched, &|info| info).await
}

/// [`revision_metadata`], each revision's metadata turned by `keep` into what the caller keeps
/// as soon as it is read, so a caller that keeps a little of each does not hold every
/// revision's whole metadata at once.
pub async fn revision_metadata_as<T: Send>(
    report: Option<Arc<dyn MetadataReport>>,
    apps: &[(String, Vec<ServiceInstance>)],
    fetched: &InstanceMetadata,
    keep: &(dyn Fn(Arc<MetadataInfo>) -> T + Sync),
) -> HashMap<RevisionKey, T> {
    let mut out = HashMap::new();
    if let Some(report) = report {
        out.extend(from_report(report, apps, keep).await);
    }
    let local = to_ask(&out, apps);
    out.extend(
        fetched
            .fetch(local)
            .await
            .into_iter()
            .map(|(key, info)| (key, keep(info))),
    );
    out
}

/// The metadata of every (application, revision) the instances announce, read once each
/// from the report and turned by `keep`; those the report has none of left out.
async fn from_report<T: Send>(
    report: Arc<dyn MetadataReport>,
    apps: &[(String, Vec<ServiceInstance>)],
    keep: &(dyn Fn(Arc<MetadataInfo>) -> T + Sync),
) -> Vec<(RevisionKey, T)> {
    let wanted: BTreeSet<RevisionKey> = apps
        .iter()
        .flat_map(|(app, list)| list.iter().map(|i| (app.clone(), i.revision().to_owned())))
        .collect();
    stream::iter(wanted)
        .map(|(app, revision)| {
            let report = Arc::clone(&report);
            async move {
                let info = report.app_metadata(&app, &revision).await.ok().flatten();
                info.map(|info| ((app, revision), keep(Arc::new(info))))
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .filter_map(std::future::ready)
        .collect()
        .await
}

/// The revisions to ask the instances for, each with the first [`TRIES_PER_REVISION`]
/// instances announcing it: those with a revision (not Java's empty `0`) the report does not
/// hold (`known`), kept locally (an instance whose storage type is `remote` has its metadata
/// in the report only, as Java's consumers read it).
fn to_ask<T>(
    known: &HashMap<RevisionKey, T>,
    apps: &[(String, Vec<ServiceInstance>)],
) -> Vec<(RevisionKey, Vec<ServiceInstance>)> {
    let mut local: HashMap<RevisionKey, Vec<ServiceInstance>> = HashMap::new();
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

/// The provider URLs of every instance in `apps` according to its revision's metadata in
/// `metadata`: one per service and protocol, at the instance's address and that protocol's
/// port, as a consumer using application-level discovery resolves them.
pub fn provider_urls(
    apps: &[(String, Vec<ServiceInstance>)],
    metadata: &HashMap<RevisionKey, Arc<MetadataInfo>>,
) -> Vec<Url> {
    let mut builder = InstanceUrls::new();
    // One "any provider of the interface" URL per interface, kept so the builder's plans
    // (per revision and consumer) are reused across instances.
    let mut consumers: HashMap<String, Url> = HashMap::new();
    let mut out = Vec::new();
    for (app, list) in apps {
        for i in list {
            let Some(info) = metadata.get(&(app.clone(), i.revision().to_owned())) else {
                continue;
            };
            let names: BTreeSet<&str> = info.services.values().map(|s| s.name.as_str()).collect();
            for name in names {
                let consumer = match consumers.get(name) {
                    Some(c) => c.clone(),
                    None => match connect::any_provider_of(name) {
                        Ok(c) => {
                            consumers.insert(name.to_owned(), c.clone());
                            c
                        }
                        Err(_) => continue,
                    },
                };
                builder.push_urls(i, info, &consumer, &mut out);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use dubbo_registry::{ServiceInfo, REVISION_KEY, STORAGE_TYPE_KEY};

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
        let asked: Vec<(RevisionKey, Vec<u16>)> = to_ask(&known, &apps)
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

    /// Every service of an instance's revision becomes a provider URL at the instance's host,
    /// on the port of its protocol; instances whose revision has no metadata give none.
    #[test]
    fn each_service_of_a_revision_is_a_provider_url_of_each_instance() {
        let mut info = MetadataInfo::new("a");
        for (iface, protocol, version) in [
            ("org.A", "dubbo", "1.0.0"),
            ("org.A", "tri", "1.0.0"),
            ("org.B", "dubbo", ""),
        ] {
            let text = format!(
                "{protocol}://0.0.0.0:1/{iface}?interface={iface}&version={version}&application=a&side=provider"
            );
            info.add_service(ServiceInfo::from_url(&Url::parse(&text).unwrap()));
        }
        let mut one = instance("a", 20880, &info.revision, None);
        one.metadata.insert(
            dubbo_registry::ENDPOINTS_KEY.into(),
            r#"[{"port":20880,"protocol":"dubbo"},{"port":50051,"protocol":"tri"}]"#.into(),
        );
        let other = instance("a", 20881, "unknown", None);
        let apps = vec![("a".to_owned(), vec![one, other])];
        let metadata = HashMap::from([(
            ("a".to_owned(), info.revision.clone()),
            Arc::new(info.clone()),
        )]);
        let mut urls: Vec<String> = provider_urls(&apps, &metadata)
            .iter()
            .map(|u| {
                format!(
                    "{} {} {}",
                    u.protocol().unwrap_or_default(),
                    u.address(),
                    u.service_interface().unwrap_or_default()
                )
            })
            .collect();
        urls.sort();
        assert_eq!(
            urls,
            vec![
                "dubbo 127.0.0.1:20880 org.A",
                "dubbo 127.0.0.1:20880 org.B",
                "tri 127.0.0.1:50051 org.A",
            ]
        );
    }
}
