//! [`AdminState`]: everything a request handler reaches, hung off one value the server owns
//! (no global state): settings, users, the session key, the audit log, the registry's
//! extension table and a short-lived cache of the catalog.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dubbo_core::Extensions;
use dubbo_url::Url;

use crate::audit::AuditLog;
use crate::catalog::{self, Catalog};
use crate::error::AdminError;
use crate::rules::RuleStore;
use crate::session::SessionKey;
use crate::settings::Settings;
use crate::users::User;

/// How long a catalog read is reused: a page and the requests its script makes see one
/// registry state, and a burst of searches reads the registry once.
pub const CATALOG_TTL: Duration = Duration::from_secs(2);

/// The admin server's state.
pub struct AdminState {
    /// The settings it was started with.
    pub settings: Settings,
    /// Registry, discovery, metadata report and config centre factories by scheme.
    pub ext: Extensions,
    /// The registry URL, parsed, with the default timeout.
    pub registry_url: Url,
    /// Who may log in.
    pub users: Vec<User>,
    /// The key sessions are signed with.
    pub key: SessionKey,
    /// Rule writes and invocations.
    pub audit: AuditLog,
    cache: tokio::sync::Mutex<Option<(Instant, Arc<Catalog>)>>,
}

impl AdminState {
    /// The state of an admin with these settings, users and key.
    pub fn new(settings: Settings, users: Vec<User>, key: SessionKey) -> Result<Self, AdminError> {
        let registry_url = dubbo_cli::dubbo::connect::registry_url(&settings.registry)?;
        let audit = AuditLog::new(settings.data_dir.join("audit.log"));
        Ok(Self {
            settings,
            ext: dubbo_cli::centre::extensions(),
            registry_url,
            users,
            key,
            audit,
            cache: tokio::sync::Mutex::new(None),
        })
    }

    /// The catalog, read again when the cached one is older than [`CATALOG_TTL`].
    pub async fn catalog(&self) -> Result<Arc<Catalog>, AdminError> {
        let mut cache = self.cache.lock().await;
        if let Some((at, c)) = cache.as_ref() {
            if at.elapsed() < CATALOG_TTL {
                return Ok(c.clone());
            }
        }
        let settings = &self.settings;
        let qos = |app: &str| settings.qos_port_of(app);
        let fresh = Arc::new(catalog::read(&self.ext, &self.registry_url, &qos).await?);
        *cache = Some((Instant::now(), fresh.clone()));
        Ok(fresh)
    }

    /// The rules of the config centre (a new connection; close it when done).
    pub async fn rules(&self) -> Result<RuleStore, AdminError> {
        let center = dubbo_cli::centre::open(&self.ext, self.settings.center()).await?;
        Ok(RuleStore::new(center))
    }
}
