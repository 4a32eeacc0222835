//! The four factories, [`EtcdConnections`] which lets them share one connection per etcd
//! address, and [`register_etcd`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use dubbo_config_center::{ConfigCenterError, DynamicConfiguration, DynamicConfigurationFactory};
use dubbo_core::{BoxFuture, Extensions};
use dubbo_registry::{
    DefinitionListing, DefinitionListingFactory, MetadataReport, MetadataReportFactory, Registry,
    RegistryError, RegistryFactory, ServiceDiscovery, ServiceDiscoveryFactory,
};
use dubbo_url::Url;

use crate::client::{addresses, EtcdClient, Inner};
use crate::config_center::from_registry;
use crate::{EtcdDynamicConfiguration, EtcdMetadataReport, EtcdRegistry, EtcdServiceDiscovery};

/// The scheme Java's etcd3 registry is registered under.
pub const SCHEME: &str = "etcd3";
/// The scheme Java's etcd discovery and metadata report use; accepted for all three here.
pub const SCHEME_ALIAS: &str = "etcd";

/// The connections of one framework instance, one per etcd address (with its backups): the
/// registry, discovery and report of an address share it. Holds them weakly: a connection
/// closes when the last registry, discovery or report using it is gone.
#[derive(Clone, Default)]
pub struct EtcdConnections {
    clients: Arc<Mutex<HashMap<String, Weak<Inner>>>>,
}

impl EtcdConnections {
    /// An empty set of connections.
    pub fn new() -> Self {
        Self::default()
    }

    /// The connection for `url`'s addresses, made on first use.
    pub async fn client(&self, url: &Url) -> Result<EtcdClient, RegistryError> {
        let key = addresses(url)?.join(",");
        if let Some(client) = self.lookup(&key) {
            return Ok(client);
        }
        let fresh = EtcdClient::connect(url).await?;
        let mut clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        // Another caller may have connected meanwhile: keep the first.
        if let Some(existing) = clients.get(&key).and_then(EtcdClient::upgrade) {
            return Ok(existing);
        }
        clients.retain(|_, weak| weak.strong_count() > 0);
        clients.insert(key, fresh.downgrade());
        Ok(fresh)
    }

    fn lookup(&self, key: &str) -> Option<EtcdClient> {
        let clients = self.clients.lock().unwrap_or_else(|e| e.into_inner());
        clients.get(key).and_then(EtcdClient::upgrade)
    }
}

/// Creates [`EtcdRegistry`]s.
#[derive(Clone, Default)]
pub struct EtcdRegistryFactory {
    connections: EtcdConnections,
}

impl EtcdRegistryFactory {
    /// A factory drawing connections from `connections`.
    pub fn new(connections: EtcdConnections) -> Self {
        Self { connections }
    }
}

impl RegistryFactory for EtcdRegistryFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn Registry>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.connections.client(&url).await?;
            Ok(Arc::new(EtcdRegistry::new(&url, client)?) as Arc<dyn Registry>)
        })
    }
}

/// Creates [`EtcdServiceDiscovery`]s.
#[derive(Clone, Default)]
pub struct EtcdServiceDiscoveryFactory {
    connections: EtcdConnections,
}

impl EtcdServiceDiscoveryFactory {
    /// A factory drawing connections from `connections`.
    pub fn new(connections: EtcdConnections) -> Self {
        Self { connections }
    }
}

impl ServiceDiscoveryFactory for EtcdServiceDiscoveryFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn ServiceDiscovery>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.connections.client(&url).await?;
            Ok(Arc::new(EtcdServiceDiscovery::new(&url, client)?) as Arc<dyn ServiceDiscovery>)
        })
    }
}

/// Creates [`EtcdMetadataReport`]s.
#[derive(Clone, Default)]
pub struct EtcdMetadataReportFactory {
    connections: EtcdConnections,
}

impl EtcdMetadataReportFactory {
    /// A factory drawing connections from `connections`.
    pub fn new(connections: EtcdConnections) -> Self {
        Self { connections }
    }
}

impl MetadataReportFactory for EtcdMetadataReportFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn MetadataReport>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.connections.client(&url).await?;
            Ok(Arc::new(EtcdMetadataReport::new(&url, client)) as Arc<dyn MetadataReport>)
        })
    }
}

impl DefinitionListingFactory for EtcdMetadataReportFactory {
    fn create_listing(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DefinitionListing>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.connections.client(&url).await?;
            Ok(Arc::new(EtcdMetadataReport::new(&url, client)) as Arc<dyn DefinitionListing>)
        })
    }
}

/// Creates [`EtcdDynamicConfiguration`]s.
#[derive(Clone, Default)]
pub struct EtcdDynamicConfigurationFactory {
    connections: EtcdConnections,
}

impl EtcdDynamicConfigurationFactory {
    /// A factory drawing connections from `connections`.
    pub fn new(connections: EtcdConnections) -> Self {
        Self { connections }
    }
}

impl DynamicConfigurationFactory for EtcdDynamicConfigurationFactory {
    /// Never waits for etcd: the connection is made by the first call.
    fn create(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DynamicConfiguration>, ConfigCenterError>> {
        let url = url.clone();
        Box::pin(async move {
            match self.connections.client(&url).await {
                Ok(client) => {
                    let config: Arc<dyn DynamicConfiguration> =
                        Arc::new(EtcdDynamicConfiguration::new(&url, client));
                    Ok(config)
                }
                Err(e) => Err(from_registry(e)),
            }
        })
    }
}

/// Registers the etcd registry, discovery, metadata report and config centre factories in
/// `ext` under `etcd3` (Java's registry scheme) and `etcd` (Java's discovery, report and
/// config centre scheme). All share one [`EtcdConnections`], so they use one connection per
/// etcd address.
pub fn register_etcd(ext: &Extensions) {
    let connections = EtcdConnections::new();
    let registry: Arc<dyn RegistryFactory> =
        Arc::new(EtcdRegistryFactory::new(connections.clone()));
    let discovery: Arc<dyn ServiceDiscoveryFactory> =
        Arc::new(EtcdServiceDiscoveryFactory::new(connections.clone()));
    let report: Arc<dyn MetadataReportFactory> =
        Arc::new(EtcdMetadataReportFactory::new(connections.clone()));
    let listing: Arc<dyn DefinitionListingFactory> =
        Arc::new(EtcdMetadataReportFactory::new(connections.clone()));
    let config: Arc<dyn DynamicConfigurationFactory> =
        Arc::new(EtcdDynamicConfigurationFactory::new(connections));
    for scheme in [SCHEME, SCHEME_ALIAS] {
        ext.register(scheme, Arc::clone(&registry));
        ext.register(scheme, Arc::clone(&discovery));
        ext.register(scheme, Arc::clone(&report));
        ext.register(scheme, Arc::clone(&listing));
        ext.register(scheme, Arc::clone(&config));
    }
}
