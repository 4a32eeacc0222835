//! [`AdminState`]: everything a request handler reaches, hung off one value the server owns
//! (no global state): settings, users, the session key, the audit log, the registry's
//! extension table and the catalog last read.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use dubbo_cli::dubbo::instance_metadata::InstanceMetadata;
use dubbo_core::Extensions;
use dubbo_url::Url;

use crate::audit::AuditLog;
use crate::catalog::Catalog;
use crate::catalog_live;
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
    /// The catalog is kept current from the registry's pushes ([`catalog_live`]): requests
    /// start no re-read.
    live: AtomicBool,
    /// The first read found more than `watch-limit` providers and instances: re-read, not
    /// watched.
    too_big: AtomicBool,
    /// Whole reads of the registry made so far.
    full_reads: AtomicU64,
    /// Catalogs made from the registry's pushes so far.
    updates: AtomicU64,
    /// Told when the admin stops (the live catalog's task ends).
    stop: Arc<tokio::sync::Notify>,
    /// The catalog's texts, shared from one read to the next.
    pub(crate) texts: Arc<Mutex<Interner>>,
    /// Metadata fetched from instances' MetadataService, by application and revision.
    pub(crate) fetched: InstanceMetadata,
}

impl AdminState {
    /// The state of an admin with these settings, users and key.
    pub fn new(settings: Settings, users: Vec<User>, key: SessionKey) -> Result<Self, AdminError> {
        let registry_url = dubbo_cli::dubbo::connect::registry_url(&settings.registry)?;
        let settings_ssl = settings.tls.ssl();
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
            live: AtomicBool::new(false),
            too_big: AtomicBool::new(false),
            full_reads: AtomicU64::new(0),
            updates: AtomicU64::new(0),
            stop: Arc::new(tokio::sync::Notify::new()),
            texts: Arc::new(Mutex::new(Interner::new())),
            fetched: InstanceMetadata::new("dubbo-admin").with_ssl(settings_ssl),
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

    /// The cached catalog and whether a new read is due (never while the catalog is live).
    fn cached(&self) -> Option<(Arc<Catalog>, bool)> {
        let cache = self.cache.read().unwrap_or_else(PoisonError::into_inner);
        let c = cache.as_ref()?;
        let spacing = CATALOG_TTL.max(c.took * READ_SPACING);
        let due = !self.live.load(Ordering::Acquire) && c.started.elapsed() >= spacing;
        Some((c.catalog.clone(), due))
    }

    /// Reads the catalog and caches it (the caller holds `reading`); after the first read,
    /// keeps it current from the registry's pushes.
    async fn read(self: &Arc<Self>) -> Result<Arc<Catalog>, AdminError> {
        let started = Instant::now();
        let settings = &self.settings;
        let qos = |app: &str| settings.qos_port_of(app);
        let parts =
            catalog_read::read_parts(&self.ext, &self.registry_url, &self.texts, &self.fetched)
                .await;
        let parts = match parts {
            Ok(parts) => parts,
            Err(e) => {
                self.texts
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .prune();
                return Err(e);
            }
        };
        // The parts are kept only to go live; otherwise moved into the catalog.
        let (fresh, kept) = if self.should_go_live(catalog_read::size(&parts)) {
            let catalog = catalog_read::build(&parts, &qos, &self.texts);
            (Arc::new(catalog), Some(parts))
        } else {
            let catalog = catalog_read::into_catalog(parts, &qos, &self.texts);
            (Arc::new(catalog), None)
        };
        let took = started.elapsed();
        self.full_reads.fetch_add(1, Ordering::Relaxed);
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
        if let Some(parts) = kept {
            if catalog_live::start(self, parts).await {
                self.live.store(true, Ordering::Release);
            }
        }
        Ok(fresh)
    }

    /// Whether a read of `size` providers and instances should make the catalog live: not
    /// yet live, and within `watch-limit` (else re-read from now on).
    fn should_go_live(&self, size: usize) -> bool {
        if self.live.load(Ordering::Acquire) || self.too_big.load(Ordering::Acquire) {
            return false;
        }
        if size > self.settings.watch_limit {
            self.too_big.store(true, Ordering::Release);
            tracing::info!(
                size,
                limit = self.settings.watch_limit,
                "more providers and instances than watch-limit: the registry is re-read, not watched"
            );
            return false;
        }
        true
    }

    /// Whether the catalog is live, how many whole reads and how many updates from pushes
    /// made it.
    pub fn catalog_counts(&self) -> (bool, u64, u64) {
        (
            self.live.load(Ordering::Acquire),
            self.full_reads.load(Ordering::Relaxed),
            self.updates.load(Ordering::Relaxed),
        )
    }

    /// Counts a whole read made by the live catalog.
    pub(crate) fn count_full_read(&self) {
        self.full_reads.fetch_add(1, Ordering::Relaxed);
    }

    /// Puts `catalog`, made from the registry's pushes from `started` on, in place of the
    /// catalog there is.
    pub(crate) fn install(&self, catalog: Arc<Catalog>, started: Instant) {
        self.updates.fetch_add(1, Ordering::Relaxed);
        let before = self
            .cache
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .replace(Cached {
                catalog,
                started,
                took: started.elapsed(),
            });
        drop(before);
        self.texts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .prune();
    }

    /// What the live catalog's task waits on to stop.
    pub(crate) fn stopping(&self) -> Arc<tokio::sync::Notify> {
        Arc::clone(&self.stop)
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
        self.stop.notify_one();
        self.fetched.shutdown().await;
    }

    /// The rules of the config centre (a new connection; close it when done).
    pub async fn rules(&self) -> Result<RuleStore, AdminError> {
        let center = dubbo_cli::centre::open(&self.ext, self.settings.center()).await?;
        Ok(RuleStore::new(center))
    }
}
