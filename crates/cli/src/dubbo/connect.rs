//! Opening a registry, its service discovery and its metadata report by URL scheme, through
//! the tool's own extension table (no application needed to look).

use std::sync::Arc;

use dubbo_core::Extensions;
use dubbo_registry::{
    MetadataReport, MetadataReportFactory, Registry, RegistryError, RegistryFactory,
    ServiceDiscovery, ServiceDiscoveryFactory,
};
use dubbo_url::Url;

use crate::centre::DEFAULT_TIMEOUT_MS;

/// A registry URL, parsed, with the tool's default timeout added.
pub fn registry_url(text: &str) -> Result<Url, RegistryError> {
    let url = Url::parse(text).map_err(|e| RegistryError::Config {
        key: "--registry".to_owned(),
        reason: format!("{text:?}: {e}"),
    })?;
    Ok(url.with_parameter_if_absent("timeout", DEFAULT_TIMEOUT_MS))
}

fn scheme(url: &Url) -> String {
    url.protocol().unwrap_or_default().to_owned()
}

/// The interface-level registry at `url`.
pub async fn registry(ext: &Extensions, url: &Url) -> Result<Arc<dyn Registry>, RegistryError> {
    let scheme = scheme(url);
    let factory = ext
        .get::<dyn RegistryFactory>(&scheme)
        .ok_or(RegistryError::UnknownScheme { scheme })?;
    factory.create(url).await
}

/// The service discovery (application instances) at `url`.
pub async fn discovery(
    ext: &Extensions,
    url: &Url,
) -> Result<Arc<dyn ServiceDiscovery>, RegistryError> {
    let scheme = scheme(url);
    let factory = ext
        .get::<dyn ServiceDiscoveryFactory>(&scheme)
        .ok_or(RegistryError::UnknownScheme { scheme })?;
    factory.create(url).await
}

/// The metadata report at `url` (the registry doubling as metadata centre, as Java's default).
pub async fn report(ext: &Extensions, url: &Url) -> Result<Arc<dyn MetadataReport>, RegistryError> {
    let scheme = scheme(url);
    let factory = ext
        .get::<dyn MetadataReportFactory>(&scheme)
        .ok_or(RegistryError::UnknownScheme { scheme })?;
    factory.create(url).await
}

/// The subscription URL that matches every provider of `interface`, any group and version.
pub fn any_provider_of(interface: &str) -> Result<Url, RegistryError> {
    any_of(interface, "providers")
}

/// The lookup URL that matches every registration of `interface` in `category`
/// (`providers`, `consumers`, `configurators`, `routers`), any group and version.
pub fn any_of(interface: &str, category: &str) -> Result<Url, RegistryError> {
    let text = format!(
        "consumer://127.0.0.1/{interface}?interface={interface}&group=*&version=*&category={category}&side=consumer"
    );
    Url::parse(&text).map_err(|e| RegistryError::BadData {
        path: interface.to_owned(),
        reason: format!("not a usable interface name: {e}"),
    })
}
