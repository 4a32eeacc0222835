//! Publishing service definitions to the metadata reports, as Java's `MetadataUtils.
//! publishServiceDefinition` does for every export of a provider: the definition with the
//! exported URL's parameters, as JSON, under `metadata/{interface}/{version}/{group}/provider/
//! {application}`; and for every reference: the reference's URL parameters (a JSON object of
//! strings, no definition) under `…/consumer/{application}`. Neither is written when the
//! report's URL says `report-definition=false`.

use std::collections::BTreeMap;
use std::sync::Arc;

use dubbo_registry::{DefinitionId, MetadataReport};
use dubbo_url::Url;

use super::metadata_service::{java_service_key, MetadataState};
use super::registries::AppRegistry;
use crate::sync::lock;

/// The report URL parameter that turns publishing off (Java's `REPORT_DEFINITION_KEY`).
pub(crate) const REPORT_DEFINITION: &str = "report-definition";

/// Publishes the definition of the service exported at `url`, if it has one, to the metadata
/// report of every connected registry that is also a metadata centre. A report that cannot be
/// written is logged; the export stands.
pub(crate) async fn publish(
    registries: &[Arc<AppRegistry>],
    metadata: &MetadataState,
    app: &str,
    url: &Url,
) {
    let Some(interface) = url.service_interface() else {
        return;
    };
    let (group, version) = (url.group().unwrap_or(""), url.version().unwrap_or(""));
    let key = java_service_key(interface, group, version);
    let Some(definition) = lock(&metadata.definitions).get(&key).cloned() else {
        return;
    };
    let mut definition = definition.as_ref().clone();
    definition.parameters = url
        .params()
        .iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let json = match serde_json::to_string(&definition) {
        Ok(json) => json,
        Err(e) => {
            tracing::warn!(service = %key, error = %e, "cannot write the service definition");
            return;
        }
    };
    let id = DefinitionId::provider(interface, version, group, app);
    for r in registries {
        let Some(report) = r.connected().and_then(|c| c.report.clone()) else {
            continue;
        };
        if report.url().parameter(REPORT_DEFINITION) == Some("false") {
            continue;
        }
        if let Err(e) = report.store_definition(&id, &json).await {
            tracing::warn!(registry = %r.url, service = %key, error = %e, "cannot publish the service definition");
        }
    }
}

/// Publishes what a reference of `consumer` (its URL, as the registries see it: without
/// credentials) leaves in the metadata `report`, as Java 3.3's `publishServiceDefinition` does
/// for the consumer side: the URL's parameters as a JSON object, under
/// `metadata/{interface}/{version}/{group}/consumer/{application}` (one entry per application
/// and service, each reference overwriting it). A report that cannot be written is logged.
pub(crate) async fn publish_consumer(report: &Arc<dyn MetadataReport>, consumer: &Url) {
    if report.url().parameter(REPORT_DEFINITION) == Some("false") {
        return;
    }
    let Some(interface) = consumer.service_interface() else {
        return;
    };
    let (group, version) = (
        consumer.group().unwrap_or(""),
        consumer.version().unwrap_or(""),
    );
    let app = consumer.parameter("application").unwrap_or("");
    let params: BTreeMap<&str, &str> = consumer.params().iter().collect();
    let json = match serde_json::to_string(&params) {
        Ok(json) => json,
        Err(e) => {
            tracing::warn!(service = %interface, error = %e, "cannot write the consumer's parameters");
            return;
        }
    };
    let id = DefinitionId::consumer(interface, version, group, app);
    if let Err(e) = report.store_definition(&id, &json).await {
        tracing::warn!(report = %report.url(), service = %interface, error = %e, "cannot publish the consumer's parameters");
    }
}
