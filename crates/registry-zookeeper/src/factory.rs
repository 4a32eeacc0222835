//! The factories the framework finds under the scheme `zookeeper`, and [`ZookeeperClients`],
//! which lets them share one session per address.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use dubbo_config_center::{ConfigCenterError, DynamicConfiguration, DynamicConfigurationFactory};
use dubbo_core::{BoxFuture, Extensions};
use dubbo_registry::{
    DefinitionListing, DefinitionListingFactory, MetadataReport, MetadataReportFactory, Registry,
    RegistryError, RegistryFactory, ServiceDiscovery, ServiceDiscoveryFactory,
};
use dubbo_url::Url;
use tokio::sync::Mutex;

use crate::client::{ClientConfig, ZookeeperClient};
use crate::config_center::{config_error, ZookeeperDynamicConfiguration};
use crate::discovery::ZookeeperServiceDiscovery;
use crate::registry::ZookeeperRegistry;
use crate::report::ZookeeperMetadataReport;

/// The URL scheme the factories are registered under.
pub const SCHEME: &str = "zookeeper";

/// Hands out one [`ZookeeperClient`] per address and timeouts, so that the registry, the
/// discovery, the metadata report and the config centre of one ZooKeeper share a session.
///
/// It holds the clients weakly: a session closes once nothing that uses it is left.
#[derive(Debug, Default)]
pub struct ZookeeperClients {
    clients: Mutex<HashMap<String, Weak<ZookeeperClient>>>,
}

impl ZookeeperClients {
    /// No clients yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The client for `url`'s address and timeouts, connecting one if none is alive.
    pub async fn get(&self, url: &Url) -> Result<Arc<ZookeeperClient>, RegistryError> {
        let config = ClientConfig::from_url(url)?;
        let key = format!(
            "{}|{}|{}",
            config.address,
            config.session_timeout.as_millis(),
            config.connect_timeout.as_millis()
        );
        // Held across the connect so that concurrent creations share one session.
        let mut clients = self.clients.lock().await;
        clients.retain(|_, c| c.strong_count() > 0);
        if let Some(client) = clients.get(&key).and_then(Weak::upgrade) {
            return Ok(client);
        }
        let client = ZookeeperClient::connect_with(config).await?;
        clients.insert(key, Arc::downgrade(&client));
        Ok(client)
    }
}

/// Creates [`ZookeeperRegistry`] values.
#[derive(Debug, Clone)]
pub struct ZookeeperRegistryFactory {
    clients: Arc<ZookeeperClients>,
}

impl ZookeeperRegistryFactory {
    /// A factory taking sessions from `clients`.
    pub fn new(clients: Arc<ZookeeperClients>) -> Self {
        Self { clients }
    }
}

impl RegistryFactory for ZookeeperRegistryFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn Registry>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.clients.get(&url).await?;
            Ok(Arc::new(ZookeeperRegistry::new(&url, client)) as Arc<dyn Registry>)
        })
    }
}

/// Creates [`ZookeeperServiceDiscovery`] values.
#[derive(Debug, Clone)]
pub struct ZookeeperServiceDiscoveryFactory {
    clients: Arc<ZookeeperClients>,
}

impl ZookeeperServiceDiscoveryFactory {
    /// A factory taking sessions from `clients`.
    pub fn new(clients: Arc<ZookeeperClients>) -> Self {
        Self { clients }
    }
}

impl ServiceDiscoveryFactory for ZookeeperServiceDiscoveryFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn ServiceDiscovery>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.clients.get(&url).await?;
            Ok(Arc::new(ZookeeperServiceDiscovery::new(&url, client)) as Arc<dyn ServiceDiscovery>)
        })
    }
}

/// Creates [`ZookeeperMetadataReport`] values.
#[derive(Debug, Clone)]
pub struct ZookeeperMetadataReportFactory {
    clients: Arc<ZookeeperClients>,
}

impl ZookeeperMetadataReportFactory {
    /// A factory taking sessions from `clients`.
    pub fn new(clients: Arc<ZookeeperClients>) -> Self {
        Self { clients }
    }
}

impl MetadataReportFactory for ZookeeperMetadataReportFactory {
    fn create(&self, url: &Url) -> BoxFuture<'_, Result<Arc<dyn MetadataReport>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.clients.get(&url).await?;
            Ok(Arc::new(ZookeeperMetadataReport::new(&url, client)) as Arc<dyn MetadataReport>)
        })
    }
}

impl DefinitionListingFactory for ZookeeperMetadataReportFactory {
    fn create_listing(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DefinitionListing>, RegistryError>> {
        let url = url.clone();
        Box::pin(async move {
            let client = self.clients.get(&url).await?;
            Ok(Arc::new(ZookeeperMetadataReport::new(&url, client)) as Arc<dyn DefinitionListing>)
        })
    }
}

/// Creates [`ZookeeperDynamicConfiguration`] values.
#[derive(Debug, Clone)]
pub struct ZookeeperDynamicConfigurationFactory {
    clients: Arc<ZookeeperClients>,
}

impl ZookeeperDynamicConfigurationFactory {
    /// A factory taking sessions from `clients`.
    pub fn new(clients: Arc<ZookeeperClients>) -> Self {
        Self { clients }
    }
}

impl DynamicConfigurationFactory for ZookeeperDynamicConfigurationFactory {
    fn create(
        &self,
        url: &Url,
    ) -> BoxFuture<'_, Result<Arc<dyn DynamicConfiguration>, ConfigCenterError>> {
        Box::pin(self.config_centre(url.clone()))
    }
}

impl ZookeeperDynamicConfigurationFactory {
    async fn config_centre(
        &self,
        url: Url,
    ) -> Result<Arc<dyn DynamicConfiguration>, ConfigCenterError> {
        let client = self.clients.get(&url).await.map_err(config_error)?;
        Ok(Arc::new(ZookeeperDynamicConfiguration::new(&url, client)))
    }
}

/// Registers the four ZooKeeper factories (registry, discovery, metadata report, config
/// centre) in `ext` under `zookeeper`, sharing sessions between them through one new
/// [`ZookeeperClients`], which the table owns from then on.
pub fn register_zookeeper(ext: &Extensions) {
    let clients = Arc::new(ZookeeperClients::new());
    ext.register::<dyn RegistryFactory>(
        SCHEME,
        Arc::new(ZookeeperRegistryFactory::new(clients.clone())),
    );
    ext.register::<dyn ServiceDiscoveryFactory>(
        SCHEME,
        Arc::new(ZookeeperServiceDiscoveryFactory::new(clients.clone())),
    );
    ext.register::<dyn MetadataReportFactory>(
        SCHEME,
        Arc::new(ZookeeperMetadataReportFactory::new(clients.clone())),
    );
    ext.register::<dyn DefinitionListingFactory>(
        SCHEME,
        Arc::new(ZookeeperMetadataReportFactory::new(clients.clone())),
    );
    ext.register::<dyn DynamicConfigurationFactory>(
        SCHEME,
        Arc::new(ZookeeperDynamicConfigurationFactory::new(clients)),
    );
}
