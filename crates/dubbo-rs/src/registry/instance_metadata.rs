//! An instance's metadata asked of its own MetadataService (metadata storage type `local`,
//! Java's default): where the instance announces it (`dubbo.metadata-service.url-params`,
//! else dubbo:// on the instance's port), with the application as group and version `1.0.0`,
//! as a Java consumer of application-level discovery asks it. References use it while
//! resolving provider instances; [`Application::instance_metadata`] lets tools (the admin)
//! ask the same way.

use std::future::Future;
use std::sync::Arc;

use dubbo_core::{ErrorCode, Invoker, RpcError};
use dubbo_registry::{MetadataInfo, ServiceInstance};
use dubbo_url::Url;

use super::metadata_service;
use crate::application::Application;

/// The consumer URL of `instance`'s MetadataService (application `app`).
pub(crate) fn metadata_service_url(app: &str, instance: &ServiceInstance) -> Result<Url, RpcError> {
    let params = instance.metadata_service_params();
    let protocol = params
        .get("protocol")
        .cloned()
        .unwrap_or_else(|| "dubbo".to_owned());
    let port = params
        .get("port")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| instance.port_for(&protocol));
    let host = if instance.host.contains(':') {
        format!("[{}]", instance.host)
    } else {
        instance.host.clone()
    };
    // Built from typed parts: the application name is the `group` value as it is, whatever
    // characters it holds.
    Url::builder()
        .protocol(dubbo_url::canonical_protocol(&protocol))
        .host(host)
        .port(port)
        .path(metadata_service::INTERFACE)
        .param("interface", metadata_service::INTERFACE)
        .param("group", app)
        .param("version", metadata_service::VERSION)
        .param("side", "consumer")
        .param("check", "false")
        .param("timeout", "5000")
        .param("dubbo", "2.0.2")
        .build()
        .map_err(|e| {
            RpcError::framework(
                ErrorCode::Config,
                format!(
                    "bad MetadataService address {protocol}://{}: {e}",
                    instance.address()
                ),
            )
        })
}

/// The metadata of `revision` from `instance`'s MetadataService, referred through `refer`
/// (the invoker is destroyed once it has answered).
pub(crate) async fn fetch_from_instance<F, Fut>(
    refer: F,
    app: &str,
    instance: &ServiceInstance,
    revision: &str,
) -> Result<MetadataInfo, RpcError>
where
    F: FnOnce(Url) -> Fut,
    Fut: Future<Output = Result<Arc<dyn Invoker>, RpcError>>,
{
    let invoker = refer(metadata_service_url(app, instance)?).await?;
    let result = metadata_service::fetch(&*invoker, app, revision).await;
    invoker.destroy();
    result
}

impl Application {
    /// The metadata `instance` announces (its revision: the services it provides, with their
    /// protocols, ports and parameters), asked of the instance's MetadataService as this
    /// application's references ask it under application-level discovery: at the address
    /// of its `dubbo.metadata-service.url-params` (Java 3.3: its tri:// port), else on
    /// dubbo:// at its port. An instance whose metadata is kept in a metadata report
    /// (storage type `remote`) may not serve it; read the report instead.
    pub async fn instance_metadata(
        &self,
        instance: &ServiceInstance,
    ) -> Result<MetadataInfo, RpcError> {
        let refer = |url: Url| async move {
            let scheme = url.protocol().unwrap_or("dubbo").to_owned();
            let protocol = self
                .protocol(&scheme)
                .map_err(|e| RpcError::framework(ErrorCode::NoProvider, e.to_string()))?;
            protocol.refer(url).await
        };
        fetch_from_instance(refer, &instance.app, instance, instance.revision()).await
    }
}
