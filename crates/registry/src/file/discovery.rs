//! [`FileServiceDiscovery`]: application-level instances as Curator JSON files.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use dubbo_core::BoxFuture;
use dubbo_url::Url;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::layout::{poll_period, Layout};
use super::owner::{sweep, Owner};
use super::poller;
use super::scan::{list, Fingerprint};
use crate::discovery::{InstancesListener, ServiceDiscovery};
use crate::error::RegistryError;
use crate::instance::{InstanceReader, ServiceInstance};

/// A [`ServiceDiscovery`] kept in a local directory: one file `services/{app}/{host:port}`
/// per instance, holding the instance in Curator's JSON (what Java Dubbo stores in
/// ZooKeeper). Instances vanish when this discovery is destroyed or dropped, or when the
/// process dies. Watches are served by polling every `poll.period` milliseconds.
pub struct FileServiceDiscovery {
    inner: Arc<Inner>,
}

struct Inner {
    url: Url,
    layout: Layout,
    owner: Owner,
    apps: Mutex<HashMap<String, AppState>>,
    closed: AtomicBool,
    cancel: CancellationToken,
    wake: Arc<Notify>,
}

/// An application, its new instance list and who to tell.
type Push = (
    String,
    Vec<ServiceInstance>,
    Vec<Arc<dyn InstancesListener>>,
);

#[derive(Default)]
struct AppState {
    fingerprint: Option<Fingerprint>,
    /// Parsed instances by (file name, inode): a rewritten file has a new inode.
    parsed: HashMap<(String, u64), ServiceInstance>,
    /// The instances of a revision share one metadata map.
    reader: InstanceReader,
    listeners: Vec<Arc<dyn InstancesListener>>,
}

impl FileServiceDiscovery {
    /// Opens the discovery `url` names (same URL forms as
    /// [`FileRegistry`](super::FileRegistry)) and starts its poller. Must run inside a tokio
    /// runtime.
    pub fn open(url: &Url) -> Result<Self, RegistryError> {
        let layout = Layout::from_url(url)?;
        let owner = Owner::create(&layout.owners_dir())?;
        let inner = Arc::new(Inner {
            url: url.clone(),
            layout,
            owner,
            apps: Mutex::default(),
            closed: AtomicBool::new(false),
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

impl Drop for FileServiceDiscovery {
    fn drop(&mut self) {
        self.inner.cancel.cancel();
    }
}

impl Inner {
    fn check_open(&self) -> Result<(), RegistryError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(RegistryError::Closed {
                address: self.url.to_string(),
            });
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, AppState>> {
        self.apps.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn instance_path(&self, instance: &ServiceInstance) -> PathBuf {
        self.layout.services_dir(&instance.app).join(instance.id())
    }

    /// The instances of the entries in `fp`, parsing only files not seen before.
    fn read(
        dir: &Path,
        fp: &Fingerprint,
        parsed: &mut HashMap<(String, u64), ServiceInstance>,
        reader: &mut InstanceReader,
    ) -> Vec<ServiceInstance> {
        let mut next = HashMap::with_capacity(fp.len());
        let mut out = Vec::with_capacity(fp.len());
        for (name, ino) in fp {
            let key = (name.clone(), *ino);
            let instance = match parsed.remove(&key) {
                Some(i) => i,
                None => {
                    let path = dir.join(name);
                    let data = match std::fs::read(&path) {
                        Ok(d) => d,
                        // Removed between the listing and now: it is simply gone.
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        Err(e) => {
                            tracing::warn!(path = %path.display(), error = %e, "skipping an unreadable instance file");
                            continue;
                        }
                    };
                    match reader.read_curator_json(&path.display().to_string(), &data) {
                        Ok(i) => i,
                        Err(e) => {
                            tracing::warn!(code = e.code(), error = %e, "skipping an instance file");
                            continue;
                        }
                    }
                }
            };
            out.push(instance.clone());
            next.insert(key, instance);
        }
        *parsed = next;
        reader.forget_unused();
        out
    }

    fn refresh_app(
        &self,
        app: &str,
        st: &mut AppState,
        stale: &std::collections::HashSet<PathBuf>,
    ) -> Option<Vec<ServiceInstance>> {
        let dir = self.layout.services_dir(app);
        let fp = match list(&dir, stale) {
            Ok(fp) => fp,
            Err(e) => {
                tracing::warn!(code = e.code(), error = %e, "cannot read an instance directory");
                return None;
            }
        };
        if st.fingerprint.as_ref() == Some(&fp) {
            return None;
        }
        let instances = Self::read(&dir, &fp, &mut st.parsed, &mut st.reader);
        st.fingerprint = Some(fp);
        Some(instances)
    }

    fn tick(&self) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let stale = sweep(&self.layout.owners_dir(), self.owner.id());
        let pushes: Vec<Push> = {
            let mut apps = self.lock();
            apps.iter_mut()
                .filter_map(|(app, st)| {
                    self.refresh_app(app, st, &stale)
                        .map(|i| (app.clone(), i, st.listeners.clone()))
                })
                .collect()
        };
        for (app, instances, listeners) in pushes {
            for l in listeners {
                l.on_instances(&app, instances.clone());
            }
        }
    }

    /// The applications with a directory under `{root}/services` holding an entry.
    fn applications(&self) -> Result<Vec<String>, RegistryError> {
        self.check_open()?;
        let dir = self.layout.root().join("services");
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(RegistryError::io(&dir, &e)),
        };
        let mut apps = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let held = std::fs::read_dir(entry.path())
                .map(|mut d| {
                    d.any(|e| e.is_ok_and(|e| !e.file_name().to_string_lossy().starts_with('.')))
                })
                .unwrap_or(false);
            if held && !name.starts_with('.') {
                apps.push(dubbo_url::decode(&name).unwrap_or(name));
            }
        }
        apps.sort();
        Ok(apps)
    }

    fn instances(&self, app: &str) -> Result<Vec<ServiceInstance>, RegistryError> {
        self.check_open()?;
        let stale = sweep(&self.layout.owners_dir(), self.owner.id());
        let dir = self.layout.services_dir(app);
        let fp = list(&dir, &stale)?;
        Ok(Self::read(
            &dir,
            &fp,
            &mut HashMap::new(),
            &mut InstanceReader::new(),
        ))
    }

    fn watch(&self, app: &str, listener: Arc<dyn InstancesListener>) -> Result<(), RegistryError> {
        self.check_open()?;
        let stale = sweep(&self.layout.owners_dir(), self.owner.id());
        let (current, others) = {
            let mut apps = self.lock();
            let st = apps.entry(app.to_owned()).or_default();
            let changed = self.refresh_app(app, st, &stale);
            let current = Self::current(st);
            let others = changed.map(|_| st.listeners.clone()).unwrap_or_default();
            st.listeners.push(listener.clone());
            (current, others)
        };
        for l in others {
            l.on_instances(app, current.clone());
        }
        listener.on_instances(app, current);
        Ok(())
    }

    fn current(st: &AppState) -> Vec<ServiceInstance> {
        st.fingerprint
            .iter()
            .flatten()
            .filter_map(|k| st.parsed.get(k).cloned())
            .collect()
    }

    fn unwatch(&self, app: &str, listener: &Arc<dyn InstancesListener>) {
        let mut apps = self.lock();
        if let Some(st) = apps.get_mut(app) {
            st.listeners.retain(|l| !Arc::ptr_eq(l, listener));
            if st.listeners.is_empty() {
                apps.remove(app);
            }
        }
    }
}

impl ServiceDiscovery for FileServiceDiscovery {
    fn url(&self) -> &Url {
        &self.inner.url
    }

    fn register(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>> {
        let r = self.inner.check_open().and_then(|()| {
            let path = self.inner.instance_path(instance);
            self.inner
                .owner
                .write_entry(&path, instance.to_curator_json().as_bytes())
        });
        self.inner.wake.notify_one();
        Box::pin(async move { r })
    }

    fn unregister(&self, instance: &ServiceInstance) -> BoxFuture<'_, Result<(), RegistryError>> {
        let r = self.inner.check_open().and_then(|()| {
            self.inner
                .owner
                .remove_entry(&self.inner.instance_path(instance))
        });
        self.inner.wake.notify_one();
        Box::pin(async move { r })
    }

    fn instances(&self, app: &str) -> BoxFuture<'_, Result<Vec<ServiceInstance>, RegistryError>> {
        let r = self.inner.instances(app);
        Box::pin(async move { r })
    }

    fn applications(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        let r = self.inner.applications();
        Box::pin(async move { r })
    }

    fn watch(
        &self,
        app: &str,
        listener: Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let r = self.inner.watch(app, listener);
        Box::pin(async move { r })
    }

    fn unwatch(
        &self,
        app: &str,
        listener: &Arc<dyn InstancesListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        self.inner.unwatch(app, listener);
        Box::pin(async { Ok(()) })
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        if !self.inner.closed.swap(true, Ordering::AcqRel) {
            self.inner.cancel.cancel();
            self.inner.owner.release();
            self.inner.lock().clear();
        }
        Box::pin(async {})
    }
}
