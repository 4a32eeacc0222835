//! Providers' URLs for the detail answers (a service, an application, an instance). The
//! catalog keeps no URL: searches never show one, and on a registry of 100,000 providers their
//! distinct texts were some 40 MB of the catalog and as much again while a re-read made the
//! next one. A detail answer looks its providers' services up in the registry instead, one
//! lookup a service, and shows each provider's URL as registered; a provider found at
//! application level only shows `protocol://address/interface`.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use dubbo_cli::dubbo::app_level::IN_FLIGHT;
use dubbo_cli::dubbo::connect;
use futures::stream::{self, StreamExt};
use serde::Serialize;

use crate::catalog::{service_key, ProviderEntry};
use crate::sources::Sources;
use crate::state::AdminState;

/// A provider with its URL, as the detail answers write it.
#[derive(Debug, Serialize)]
pub struct ProviderDetail<'a> {
    /// The provider, as the catalog has it.
    #[serde(flatten)]
    pub provider: &'a ProviderEntry,
    /// The registered URL; for a provider registered at application level only, the one its
    /// instance's metadata gives; `null` when the registry could not be asked.
    pub url: Option<String>,
}

/// Which registered URL a provider is: its service key, protocol and registered address.
type UrlKey = (String, String, String);

fn key_of(p: &ProviderEntry) -> UrlKey {
    (
        p.service_key(),
        p.protocol.to_string(),
        p.registered_address.to_string(),
    )
}

/// `providers` with their URLs: the services of those registered at interface level looked
/// up in the registry ([`IN_FLIGHT`] at a time).
pub async fn with_urls<'a>(
    state: &AdminState,
    providers: impl IntoIterator<Item = &'a ProviderEntry>,
) -> Vec<ProviderDetail<'a>> {
    let providers: Vec<&ProviderEntry> = providers.into_iter().collect();
    let services: BTreeSet<String> = providers
        .iter()
        .filter(|p| p.sources.contains(Sources::INTERFACE))
        .map(|p| p.service.to_string())
        .collect();
    let registered = if services.is_empty() {
        Some(HashMap::new())
    } else {
        registered_urls(state, services).await
    };
    providers
        .into_iter()
        .map(|p| {
            let url = if p.sources.contains(Sources::INTERFACE) {
                registered
                    .as_ref()
                    .map(|found| found.get(&key_of(p)).cloned())
            } else {
                Some(None)
            };
            let url = match url {
                Some(Some(url)) => Some(url),
                // Not registered (any more), or found at application level only.
                Some(None) => Some(format!("{}://{}/{}", p.protocol, p.address, p.service)),
                None => None,
            };
            ProviderDetail { provider: p, url }
        })
        .collect()
}

/// The registered provider URLs of `services`, by [`UrlKey`]; `None` when the registry
/// cannot be reached.
async fn registered_urls(
    state: &AdminState,
    services: BTreeSet<String>,
) -> Option<HashMap<UrlKey, String>> {
    let registry = match connect::registry(&state.ext, &state.registry_url).await {
        Ok(r) => r,
        Err(e) => {
            tracing::debug!(error = %e, "cannot look the providers' URLs up");
            return None;
        }
    };
    let lists: Vec<_> = stream::iter(services)
        .map(|service| {
            let registry = Arc::clone(&registry);
            async move {
                let url = connect::any_provider_of(&service).ok()?;
                registry.lookup(&url).await.ok()
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    registry.destroy().await;
    let mut found = HashMap::new();
    for url in lists.into_iter().flatten().flatten() {
        if url.protocol() == Some("empty") {
            continue;
        }
        let key = service_key(
            url.service_interface().unwrap_or_default(),
            url.version().unwrap_or_default(),
            url.group().unwrap_or_default(),
        );
        let protocol = url.protocol().unwrap_or_default().to_owned();
        found.insert((key, protocol, url.address()), url.to_full_string());
    }
    Some(found)
}
