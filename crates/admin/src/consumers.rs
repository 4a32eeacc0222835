//! [`ConsumerEntry`]: who consumes a service, from every place a consumer leaves a trace: its
//! consumer URL registered at interface level, and the entry its reference writes in the
//! metadata report (`metadata/{interface}/{version}/{group}/consumer/{application}`), which
//! consumers using application-level discovery alone (Java's `FORCE_APPLICATION`) leave
//! although they register nothing.

use dubbo_cli::dubbo::connect;
use dubbo_core::Extensions;
use dubbo_registry::{DefinitionEntry, DefinitionId, DefinitionListingFactory, RegistryError};
use dubbo_url::Url;
use serde::Serialize;

use crate::catalog::plain_host;
use crate::error::AdminError;

/// Where a consumer was found: its registered consumer URL.
pub const FROM_INTERFACE: &str = "interface";
/// Where a consumer was found: its reference's entry in the metadata report.
pub const FROM_METADATA_REPORT: &str = "metadata-report";

/// One consumer of one service: an application at an address.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerEntry {
    /// The consuming application.
    pub application: String,
    /// The consumer's host (a registered consumer URL has no port), empty when unknown. A
    /// metadata-report entry is one per application, overwritten by each of its instances:
    /// its address is the last writer's.
    pub address: String,
    /// Where it was found: [`FROM_INTERFACE`], [`FROM_METADATA_REPORT`], or both.
    pub sources: Vec<&'static str>,
    /// The consumer URLs it registered (one per reference; Java registers one for each
    /// reference of the service with other settings), none when it registered nothing.
    pub urls: Vec<String>,
}

/// The consumers of `interface` at `version` and `group` (empty for none): those registered
/// at interface level in the registry at `registry_url`, and those whose references wrote an
/// entry in its metadata report, one entry per application and address, sorted. A source that
/// cannot be read is logged and left out.
pub async fn consumers(
    ext: &Extensions,
    registry_url: &Url,
    interface: &str,
    version: &str,
    group: &str,
) -> Vec<ConsumerEntry> {
    let registered = match registered(ext, registry_url, interface).await {
        Ok(urls) => urls,
        Err(e) => {
            tracing::debug!(service = interface, error = %e, "registered consumers not read");
            Vec::new()
        }
    };
    let service = DefinitionId::consumer(interface, version, group, "");
    let reported = match reported(ext, registry_url, &service).await {
        Ok(entries) => entries,
        Err(e) => {
            tracing::debug!(service = interface, error = %e, "metadata-report consumers not read");
            Vec::new()
        }
    };
    merge(
        registered
            .iter()
            .filter(|u| matches_service(u, version, group)),
        &reported,
    )
}

/// The consumer URLs of `interface` registered at interface level, any version and group.
async fn registered(
    ext: &Extensions,
    registry_url: &Url,
    interface: &str,
) -> Result<Vec<Url>, AdminError> {
    let registry = connect::registry(ext, registry_url).await?;
    let lookup = match connect::any_of(interface, "consumers") {
        Ok(url) => registry.lookup(&url).await,
        Err(e) => Err(e),
    };
    registry.destroy().await;
    Ok(lookup?
        .into_iter()
        .filter(|u| u.protocol() != Some("empty"))
        .collect())
}

/// The consumer entries of `service` in the metadata report at `registry_url` (none when its
/// scheme has no listing).
async fn reported(
    ext: &Extensions,
    registry_url: &Url,
    service: &DefinitionId,
) -> Result<Vec<DefinitionEntry>, RegistryError> {
    let scheme = registry_url.protocol().unwrap_or_default();
    let Some(factory) = ext.get::<dyn DefinitionListingFactory>(scheme) else {
        return Ok(Vec::new());
    };
    factory
        .create_listing(registry_url)
        .await?
        .definition_entries(service)
        .await
}

/// Whether a consumer URL is about `version` and `group` (its own, `*`, or a list naming it).
fn matches_service(url: &Url, version: &str, group: &str) -> bool {
    let fits = |mine: Option<&str>, wanted: &str| match mine.unwrap_or("") {
        "*" => true,
        mine => {
            mine == wanted
                || mine
                    .split(',')
                    .any(|m| m.trim() == wanted && !wanted.is_empty())
        }
    };
    fits(url.version(), version) && fits(url.group(), group)
}

/// The consumers of registered URLs and report entries, one per application and address:
/// the URLs of one application at one address are one consumer, and an entry whose
/// application and address match a registered consumer's adds its source to it.
fn merge<'a>(
    registered: impl IntoIterator<Item = &'a Url>,
    reported: &[DefinitionEntry],
) -> Vec<ConsumerEntry> {
    let mut out: Vec<ConsumerEntry> = Vec::new();
    for u in registered {
        let application = u.parameter("application").unwrap_or_default();
        let address = u.host().map(plain_host).unwrap_or_default();
        let url = u.to_full_string();
        match out
            .iter_mut()
            .find(|c| c.application == application && c.address == address)
        {
            Some(c) => c.urls.push(url),
            None => out.push(ConsumerEntry {
                application: application.to_owned(),
                address,
                sources: vec![FROM_INTERFACE],
                urls: vec![url],
            }),
        }
    }
    for entry in reported {
        let address = report_address(&entry.content);
        let same = out.iter_mut().find(|c| {
            c.application == entry.application && (c.address == address || address.is_empty())
        });
        match same {
            Some(c) => c.sources.push(FROM_METADATA_REPORT),
            None => out.push(ConsumerEntry {
                application: entry.application.clone(),
                address,
                sources: vec![FROM_METADATA_REPORT],
                urls: Vec::new(),
            }),
        }
    }
    out.sort_by(|a, b| (&a.application, &a.address).cmp(&(&b.application, &b.address)));
    out
}

/// The host a consumer entry names (its `register.ip` parameter, which Java's references and
/// dubbo-rs's write), empty when it names none or is not a JSON object.
fn report_address(content: &str) -> String {
    serde_json::from_str::<serde_json::Value>(content)
        .ok()
        .and_then(|v| v.get("register.ip")?.as_str().map(plain_host))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn entry(app: &str, content: &str) -> DefinitionEntry {
        DefinitionEntry {
            application: app.to_owned(),
            content: content.to_owned(),
        }
    }

    #[test]
    fn report_entries_join_registered_consumers_or_stand_alone() {
        let registered = [
            url("consumer://10.0.0.1/org.Svc?application=web&interface=org.Svc&version=1.0.0&side=consumer"),
            url("consumer://10.0.0.1/org.Svc?application=web&interface=org.Svc&version=1.0.0&side=consumer&retries=0"),
        ];
        let reported = [
            entry("web", r#"{"register.ip":"10.0.0.1","side":"consumer"}"#),
            entry(
                "batch",
                r#"{"register.ip":"::ffff:10.0.0.2","side":"consumer"}"#,
            ),
            entry("old", "not json"),
        ];
        let out = merge(&registered, &reported);
        let rows: Vec<_> = out
            .iter()
            .map(|c| {
                (
                    c.application.as_str(),
                    c.address.as_str(),
                    c.sources.clone(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("batch", "10.0.0.2", vec![FROM_METADATA_REPORT]),
                ("old", "", vec![FROM_METADATA_REPORT]),
                (
                    "web",
                    "10.0.0.1",
                    vec![FROM_INTERFACE, FROM_METADATA_REPORT]
                ),
            ]
        );
        assert_eq!(out[2].urls.len(), 2, "one consumer, two references");
        assert!(out[2].urls[1].contains("retries=0"));
        assert!(out[0].urls.is_empty());
    }

    #[test]
    fn registered_consumers_of_other_versions_and_groups_are_not_the_services() {
        let v1 = url("consumer://h/org.Svc?interface=org.Svc&version=1.0.0");
        assert!(matches_service(&v1, "1.0.0", ""));
        assert!(!matches_service(&v1, "2.0.0", ""));
        let any = url("consumer://h/org.Svc?interface=org.Svc&version=*&group=*");
        assert!(matches_service(&any, "2.0.0", "g"));
        let groups = url("consumer://h/org.Svc?interface=org.Svc&group=a,b");
        assert!(matches_service(&groups, "", "b"));
        assert!(!matches_service(&groups, "", ""));
    }
}
