//! [`AdminState`]: everything a request handler reaches, hung off one value the server owns
//! (no global state): settings, users, the session key, the audit log, the registry's
//! extension table and the catalog last read.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use dubbo_cli::dubbo::instance_metadata::InstanceMetadata;
use dubbo_core::Extensions;
use dubbo_url::Url;

use crate::audit::AuditLog;
use crate::catalog::Catalog;
use crate::catalog_read;
use crate::error::AdminError;
use crate::interner::Interner;
use crate::rules::RuleStore;
use crate::session::SessionKey;
use crate::settings::Settings;
use crate::users::User;

/// How long a catalog read is used before a request has it read again (in the background:
/// requests are answered from the catalog they find, never wait for a re-read).
pub const CATALOG_TTL: Duration = Duration::from_secs(2);

/// Reads start at least this many times their last read's duration apart, so an admin on a
/// registry that takes seconds to read spends at most a fifth of its time reading it.
pub const READ_SPACING: u32 = 5;

/// The catalog last read, when that read started and how long it took.
struct Cached {
    catalog: Arc<Catalog>,
    started: Instant,
    took: Duration,
}

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
    cache: RwLock<Option<Cached>>,
    /// Held by the read in progress: one read at a time.
    reading: tokio::sync::Mutex<()>,
    /// A background read is under way or about to start.
    refreshing: AtomicBool,
    /// The catalog's texts, shared from one read to the next.
    texts: Arc<Mutex<Interner>>,
    /// Metadata fetched from instances' MetadataService, by application and revision.
    fetched: InstanceMetadata,
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
            cache: RwLock::new(None),
            reading: tokio::sync::Mutex::new(()),
            refreshing: AtomicBool::new(false),
            texts: Arc::new(Mutex::new(Interner::new())),
            fetched: InstanceMetadata::new("dubbo-admin"),
        })
    }

    /// The catalog. The first request reads it (and is answered its error if the registry
    /// cannot be read); later ones get the catalog last read at once, and one finding it
    /// older than [`CATALOG_TTL`] (and [`READ_SPACING`] times the last read's duration) starts
    /// a read in the background that replaces it when done.
    pub async fn catalog(self: &Arc<Self>) -> Result<Arc<Catalog>, AdminError> {
        if let Some((catalog, due)) = self.cached() {
            if due {
                self.refresh_in_background();
            }
            return Ok(catalog);
        }
        let _reading = self.reading.lock().await;
        if let Some((catalog, _)) = self.cached() {
            return Ok(catalog);
        }
        self.read().await
    }

    /// The cached catalog and whether a new read is due.
    fn cached(&self) -> Option<(Arc<Catalog>, bool)> {
        let cache = self.cache.read().unwrap_or_else(PoisonError::into_inner);
        let c = cache.as_ref()?;
        let spacing = CATALOG_TTL.max(c.took * READ_SPACING);
        Some((c.catalog.clone(), c.started.elapsed() >= spacing))
    }

    /// Reads the catalog and caches it (the caller holds `reading`).
    async fn read(&self) -> Result<Arc<Catalog>, AdminError> {
        let started = Instant::now();
        let settings = &self.settings;
        let qos = |app: &str| settings.qos_port_of(app);
        let read = catalog_read::read(
            &self.ext,
            &self.registry_url,
            &qos,
            &self.texts,
            &self.fetched,
        )
        .await;
        let fresh = match read {
            Ok(c) => Arc::new(c),
            Err(e) => {
                self.texts
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .prune();
                return Err(e);
            }
        };
        let took = started.elapsed();
        tracing::debug!(
            providers = fresh.providers.len(),
            instances = fresh.instances.len(),
            ms = took.as_millis() as u64,
            "catalog read"
        );
        let before = self
            .cache
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .replace(Cached {
                catalog: fresh.clone(),
                started,
                took,
            });
        // The texts of what left the registry go once no request holds the catalog before.
        drop(before);
        self.texts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .prune();
        Ok(fresh)
    }

    /// Starts a read in the background unless one is under way. A failed read keeps the
    /// catalog there is and is tried again after the same spacing.
    fn refresh_in_background(self: &Arc<Self>) {
        if self.refreshing.swap(true, Ordering::AcqRel) {
            return;
        }
        let state = Arc::clone(self);
        tokio::spawn(async move {
            let reading = state.reading.lock().await;
            if let Some((_, true)) = state.cached() {
                let started = Instant::now();
                if let Err(e) = state.read().await {
                    tracing::warn!(error = %e, "reading the registry failed; keeping the catalog read before");
                    let mut cache = state.cache.write().unwrap_or_else(PoisonError::into_inner);
                    if let Some(c) = cache.as_mut() {
                        c.started = started;
                    }
                }
            }
            drop(reading);
            state.refreshing.store(false, Ordering::Release);
        });
    }

    /// Closes the connections made to instances' MetadataService.
    pub async fn shutdown(&self) {
        self.fetched.shutdown().await;
    }

    /// The rules of the config centre (a new connection; close it when done).
    pub async fn rules(&self) -> Result<RuleStore, AdminError> {
        let center = dubbo_cli::centre::open(&self.ext, self.settings.center()).await?;
        Ok(RuleStore::new(center))
    }
}
