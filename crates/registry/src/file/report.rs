//! [`FileMetadataReport`]: application metadata by revision and the interface → application
//! mapping, as persistent files.

use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dubbo_core::BoxFuture;
use dubbo_url::Url;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::layout::{poll_period, Layout};
use super::poller;
use crate::atomic_file::{inode, try_lock, write_atomic};
use crate::definition_id::DefinitionId;
use crate::definition_listing::{DefinitionEntry, DefinitionListing};
use crate::error::RegistryError;
use crate::metadata_info::MetadataInfo;
use crate::report::{MappingListener, MetadataReport};

/// How long `register_mapping` waits for the mapping lock before reporting a conflict.
const MAPPING_LOCK_WAIT: Duration = Duration::from_secs(5);

/// A [`MetadataReport`] kept in a local directory: `dubbo/metadata/{app}/{revision}` holds
/// [`MetadataInfo`] JSON, `dubbo/mapping/{interface}` holds the comma-separated applications
/// (ZooKeeper's layout). Both are persistent, as in ZooKeeper. A mapping update is a
/// compare-and-set made safe by an exclusive `flock` on a lock file beside the mapping, so
/// concurrent providers never lose each other's names and a writer that dies mid-update
/// leaves no lock behind.
pub struct FileMetadataReport {
    inner: Arc<Inner>,
}

struct Inner {
    url: Url,
    layout: Layout,
    watches: Mutex<HashMap<String, MappingWatch>>,
    cancel: CancellationToken,
    wake: Arc<Notify>,
}

struct MappingWatch {
    /// The inode of the mapping file last seen (`None`: no file).
    seen: Option<u64>,
    listeners: Vec<Arc<dyn MappingListener>>,
}

impl FileMetadataReport {
    /// Opens the report `url` names (same URL forms as [`FileRegistry`](super::FileRegistry))
    /// and starts the poller of mapping watches. Must run inside a tokio runtime.
    pub fn open(url: &Url) -> Result<Self, RegistryError> {
        let inner = Arc::new(Inner {
            url: url.clone(),
            layout: Layout::from_url(url)?,
            watches: Mutex::default(),
            cancel: CancellationToken::new(),
            wake: Arc::new(Notify::new()),
        });
        poller::spawn(
            Arc::downgrade(&inner),
            poll_period(url),
            inner.wake.clone(),
            inner.cancel.clone(),
            Inner::tick,
        )?;
        Ok(Self { inner })
    }
}

impl Drop for FileMetadataReport {
    fn drop(&mut self) {
        self.inner.cancel.cancel();
    }
}

fn read_mapping(path: &Path) -> Result<(Option<u64>, Vec<String>), RegistryError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok((None, Vec::new())),
        Err(e) => return Err(RegistryError::io(path, &e)),
    };
    let ino = file
        .metadata()
        .map(|m| inode(&m))
        .map_err(|e| RegistryError::io(path, &e))?;
    let text = std::io::read_to_string(file).map_err(|e| RegistryError::io(path, &e))?;
    let apps = text
        .split(',')
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect();
    Ok((Some(ino), apps))
}

fn mapping_inode(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| inode(&m))
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, MappingWatch>> {
        self.watches.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn tick(&self) {
        let mut pushes = Vec::new();
        {
            let mut watches = self.lock();
            for (interface, w) in watches.iter_mut() {
                let path = self.layout.mapping_file(interface);
                if mapping_inode(&path) == w.seen {
                    continue;
                }
                match read_mapping(&path) {
                    Ok((ino, apps)) => {
                        w.seen = ino;
                        pushes.push((interface.clone(), apps, w.listeners.clone()));
                    }
                    Err(e) => tracing::warn!(code = e.code(), error = %e, "cannot read a mapping"),
                }
            }
        }
        for (interface, apps, listeners) in pushes {
            for l in listeners {
                l.on_mapping(&interface, apps.clone());
            }
        }
    }

    /// One attempt at the compare-and-set under the lock; `Ok(false)` when the lock is busy.
    fn try_add_mapping(&self, interface: &str, app: &str) -> Result<bool, RegistryError> {
        let Some(_lock) = try_lock(&self.layout.mapping_lock(interface))? else {
            return Ok(false);
        };
        let path = self.layout.mapping_file(interface);
        let (_, mut apps) = read_mapping(&path)?;
        if !apps.iter().any(|a| a == app) {
            apps.push(app.to_owned());
            write_atomic(&path, apps.join(",").as_bytes())?;
            self.wake.notify_one();
        }
        Ok(true)
        // Dropping `_lock` releases it.
    }
}

impl DefinitionListing for FileMetadataReport {
    fn definition_entries(
        &self,
        service: &DefinitionId,
    ) -> BoxFuture<'_, Result<Vec<DefinitionEntry>, RegistryError>> {
        let dir = self.inner.layout.definition_dir(service);
        Box::pin(async move { read_entries(&dir) })
    }
}

/// The files directly in `dir` (none when it is missing), as entries named by their file
/// names; the atomic writes' temporary files (dot-files) and directories are skipped.
fn read_entries(dir: &Path) -> Result<Vec<DefinitionEntry>, RegistryError> {
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(RegistryError::io(dir, &e)),
    };
    let mut out = Vec::new();
    for entry in listing {
        let entry = entry.map_err(|e| RegistryError::io(dir, &e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name.starts_with('.') || !path.is_file() {
            continue;
        }
        match std::fs::read(&path) {
            Ok(data) => out.push(DefinitionEntry {
                application: name,
                content: String::from_utf8_lossy(&data).into_owned(),
            }),
            // Removed between the listing and the read.
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(RegistryError::io(&path, &e)),
        }
    }
    out.sort_by(|a, b| a.application.cmp(&b.application));
    Ok(out)
}

impl MetadataReport for FileMetadataReport {
    fn url(&self) -> &Url {
        &self.inner.url
    }

    fn publish_app_metadata(
        &self,
        info: &MetadataInfo,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let path = self.inner.layout.metadata_file(&info.app, &info.revision);
        let r = write_atomic(&path, info.to_json().as_bytes()).map(|_| ());
        Box::pin(async move { r })
    }

    fn app_metadata(
        &self,
        app: &str,
        revision: &str,
    ) -> BoxFuture<'_, Result<Option<MetadataInfo>, RegistryError>> {
        let path = self.inner.layout.metadata_file(app, revision);
        let r = match std::fs::read(&path) {
            Ok(data) => MetadataInfo::from_json(&path.display().to_string(), &data).map(Some),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(RegistryError::io(&path, &e)),
        };
        Box::pin(async move { r })
    }

    fn store_definition(
        &self,
        id: &DefinitionId,
        json: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let path = self.inner.layout.definition_file(id);
        let r = write_atomic(&path, json.as_bytes()).map(|_| ());
        Box::pin(async move { r })
    }

    fn definition(
        &self,
        id: &DefinitionId,
    ) -> BoxFuture<'_, Result<Option<String>, RegistryError>> {
        let path = self.inner.layout.definition_file(id);
        let r = match std::fs::read(&path) {
            Ok(data) => Ok(Some(String::from_utf8_lossy(&data).into_owned())),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(RegistryError::io(&path, &e)),
        };
        Box::pin(async move { r })
    }

    fn mapping(&self, interface: &str) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        let r = read_mapping(&self.inner.layout.mapping_file(interface)).map(|(_, a)| a);
        Box::pin(async move { r })
    }

    fn register_mapping(
        &self,
        interface: &str,
        app: &str,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let (interface, app) = (interface.to_owned(), app.to_owned());
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + MAPPING_LOCK_WAIT;
            loop {
                if self.inner.try_add_mapping(&interface, &app)? {
                    return Ok(());
                }
                if tokio::time::Instant::now() >= deadline {
                    return Err(RegistryError::Conflict {
                        path: self
                            .inner
                            .layout
                            .mapping_file(&interface)
                            .display()
                            .to_string(),
                    });
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
    }

    fn watch_mapping(
        &self,
        interface: &str,
        listener: Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let seen = mapping_inode(&self.inner.layout.mapping_file(interface));
        let mut watches = self.inner.lock();
        watches
            .entry(interface.to_owned())
            .or_insert(MappingWatch {
                seen,
                listeners: Vec::new(),
            })
            .listeners
            .push(listener);
        Box::pin(async { Ok(()) })
    }

    fn unwatch_mapping(
        &self,
        interface: &str,
        listener: &Arc<dyn MappingListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let mut watches = self.inner.lock();
        if let Some(w) = watches.get_mut(interface) {
            w.listeners.retain(|l| !Arc::ptr_eq(l, listener));
            if w.listeners.is_empty() {
                watches.remove(interface);
            }
        }
        Box::pin(async { Ok(()) })
    }
}
