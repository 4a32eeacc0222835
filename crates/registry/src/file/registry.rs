//! [`FileRegistry`]: the interface-level [`Registry`] over the directory tree.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use dubbo_core::BoxFuture;
use dubbo_url::{encode, Url};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::layout::{entry_name, poll_period, Layout, HASHED_PREFIX};
use super::owner::{sweep, Owner};
use super::poller;
use super::scan::{list, Fingerprint};
use crate::atomic_file::write_atomic;
use crate::error::RegistryError;
use crate::registry::{Category, Notification, NotifyListener, Registry};
use crate::url_cache::ParsedUrlCache;
use crate::url_match::is_match;

/// A [`Registry`] kept in a local directory, shared by every process of the machine that
/// opens the same directory (see the [module](super) documentation).
///
/// Each entry is a file `dubbo/{interface}/{category}/{encoded URL}`. Entries of URLs with
/// `dynamic=false` are persistent; the others vanish when this registry is destroyed or
/// dropped, or when the process dies. Subscriptions are served by polling the directories
/// every `poll.period` milliseconds (default 300); URLs are parsed once per distinct file
/// name, through one interner per registry.
pub struct FileRegistry {
    inner: Arc<Inner>,
}

struct Inner {
    url: Url,
    layout: Layout,
    owner: Owner,
    urls: ParsedUrlCache,
    state: Mutex<State>,
    closed: AtomicBool,
    cancel: CancellationToken,
    wake: Arc<Notify>,
}

#[derive(Default)]
struct State {
    dirs: HashMap<PathBuf, DirState>,
    subs: Vec<Sub>,
    /// Encoded URLs read from hashed entry files, by (name, inode).
    hashed: HashMap<(String, u64), String>,
}

#[derive(Default)]
struct DirState {
    /// `None` until first read, so a new directory always counts as changed.
    fingerprint: Option<Fingerprint>,
    /// (encoded URL, parsed URL) per visible entry.
    entries: Vec<(String, Url)>,
}

impl DirState {
    fn urls(&self) -> Vec<&Url> {
        self.entries.iter().map(|(_, u)| u).collect()
    }
}

#[derive(Clone)]
struct Sub {
    consumer: Url,
    /// `consumer` with every category allowed: the directory already decides the category.
    matcher: Url,
    key: (String, usize),
    listener: Arc<dyn NotifyListener>,
    dirs: Vec<(Category, PathBuf)>,
}

impl FileRegistry {
    /// Opens the registry `url` names (`file:///path`, `file://localhost/path`, or `file://`
    /// for the default directory) and starts its poller. Must run inside a tokio runtime.
    pub fn open(url: &Url) -> Result<Self, RegistryError> {
        let layout = Layout::from_url(url)?;
        let owner = Owner::create(&layout.owners_dir())?;
        let inner = Arc::new(Inner {
            url: url.clone(),
            layout,
            owner,
            urls: ParsedUrlCache::new(),
            state: Mutex::default(),
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

    /// The directory the registry lives in.
    pub fn root(&self) -> &Path {
        self.inner.layout.root()
    }
}

impl Drop for FileRegistry {
    fn drop(&mut self) {
        self.inner.cancel.cancel();
    }
}

fn listener_id(l: &Arc<dyn NotifyListener>) -> usize {
    Arc::as_ptr(l) as *const () as usize
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

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn entry_path(&self, url: &Url) -> Result<(PathBuf, String), RegistryError> {
        let interface = url
            .service_interface()
            .ok_or_else(|| RegistryError::Config {
                key: url.to_string(),
                reason: "the URL names no interface".to_owned(),
            })?;
        let encoded = encode(&url.to_full_string());
        let dir = self.layout.category_dir(interface, Category::of(url));
        Ok((dir.join(entry_name(&encoded)), encoded))
    }

    fn register(&self, url: &Url) -> Result<(), RegistryError> {
        self.check_open()?;
        let (path, encoded) = self.entry_path(url)?;
        // The content is the encoded URL: needed for hashed names, handy for the others.
        if url.parameter_bool("dynamic") == Some(false) {
            write_atomic(&path, encoded.as_bytes())?;
        } else {
            self.owner.write_entry(&path, encoded.as_bytes())?;
        }
        self.wake.notify_one();
        Ok(())
    }

    fn unregister(&self, url: &Url) -> Result<(), RegistryError> {
        self.check_open()?;
        let (path, _) = self.entry_path(url)?;
        self.owner.remove_entry(&path)?;
        self.wake.notify_one();
        Ok(())
    }

    /// The URLs of the entries of `dir` in `fingerprint`, reusing parsed ones.
    fn read_urls(
        &self,
        dir: &Path,
        fp: &Fingerprint,
        hashed: &mut HashMap<(String, u64), String>,
    ) -> Vec<(String, Url)> {
        let mut urls = Vec::with_capacity(fp.len());
        for (name, ino) in fp {
            let encoded: &str = if name.starts_with(HASHED_PREFIX) {
                let key = (name.clone(), *ino);
                if !hashed.contains_key(&key) {
                    let path = dir.join(name);
                    match std::fs::read_to_string(&path) {
                        Ok(s) => {
                            hashed.insert(key.clone(), s.trim().to_owned());
                        }
                        Err(e) => {
                            tracing::warn!(path = %path.display(), error = %e, "skipping an unreadable registry entry");
                            continue;
                        }
                    }
                }
                match hashed.get(&key) {
                    Some(s) => s,
                    None => continue,
                }
            } else {
                name
            };
            match self.urls.get_or_parse(encoded) {
                Ok(u) => urls.push((encoded.to_owned(), u)),
                Err(e) => {
                    tracing::warn!(path = %dir.join(name).display(), error = %e, "skipping a registry entry that is not a URL")
                }
            }
        }
        urls
    }

    /// Re-reads every watched directory; returns those that changed.
    fn refresh(&self, state: &mut State) -> HashSet<PathBuf> {
        let stale = sweep(&self.layout.owners_dir(), self.owner.id());
        let mut changed = HashSet::new();
        let State { dirs, hashed, .. } = state;
        for (dir, ds) in dirs.iter_mut() {
            let fp = match list(dir, &stale) {
                Ok(fp) => fp,
                Err(e) => {
                    tracing::warn!(code = e.code(), error = %e, "cannot read a registry directory");
                    continue;
                }
            };
            if ds.fingerprint.as_ref() == Some(&fp) {
                continue;
            }
            ds.entries = self.read_urls(dir, &fp, hashed);
            ds.fingerprint = Some(fp);
            changed.insert(dir.clone());
        }
        if !changed.is_empty() {
            self.urls.retain(
                dirs.values()
                    .flat_map(|d| d.entries.iter().map(|(e, _)| e.as_str())),
            );
            let live: HashSet<(String, u64)> = dirs
                .values()
                .filter_map(|d| d.fingerprint.as_ref())
                .flatten()
                .cloned()
                .collect();
            hashed.retain(|k, _| live.contains(k));
        }
        changed
    }

    fn notification(sub: &Sub, category: Category, all: &[&Url]) -> Notification {
        let mut urls: Vec<Url> = all
            .iter()
            .filter(|u| is_match(&sub.matcher, u))
            .map(|u| (*u).clone())
            .collect();
        if urls.is_empty() {
            urls.push(
                sub.consumer
                    .with_protocol("empty")
                    .with_parameter("category", category.as_str()),
            );
        }
        Notification {
            category,
            urls: urls.into(),
        }
    }

    /// One poll: sweep, re-read, push what changed.
    fn tick(&self) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        let pushes = {
            let mut state = self.lock();
            let changed = self.refresh(&mut state);
            let mut pushes = Vec::new();
            for sub in &state.subs {
                for (category, dir) in &sub.dirs {
                    if changed.contains(dir) {
                        let urls = state.dirs.get(dir).map(DirState::urls).unwrap_or_default();
                        pushes.push((
                            sub.listener.clone(),
                            Self::notification(sub, *category, &urls),
                        ));
                    }
                }
            }
            pushes
        };
        for (listener, n) in pushes {
            listener.notify(n);
        }
    }

    fn subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> Result<(), RegistryError> {
        self.check_open()?;
        let interface = consumer
            .service_interface()
            .filter(|i| *i != "*")
            .ok_or_else(|| RegistryError::Config {
                key: consumer.to_string(),
                reason: "the file registry needs a subscription to name one interface".to_owned(),
            })?;
        let mut categories: Vec<Category> = consumer
            .parameter_list("category")
            .into_iter()
            .filter_map(Category::parse)
            .collect();
        if categories.is_empty() {
            categories.push(Category::Providers);
        }
        let sub = Sub {
            consumer: consumer.clone(),
            matcher: consumer.with_parameter("category", "*"),
            key: (consumer.to_full_string(), listener_id(&listener)),
            listener,
            dirs: categories
                .iter()
                .map(|c| (*c, self.layout.category_dir(interface, *c)))
                .collect(),
        };
        // The new subscription gets every category now; others only what changed meanwhile.
        let first: Vec<Notification> = {
            let mut state = self.lock();
            state.subs.retain(|s| s.key != sub.key);
            for (_, dir) in &sub.dirs {
                state.dirs.entry(dir.clone()).or_default();
            }
            self.refresh(&mut state);
            let first = sub
                .dirs
                .iter()
                .map(|(c, dir)| {
                    let urls = state.dirs.get(dir).map(DirState::urls).unwrap_or_default();
                    Self::notification(&sub, *c, &urls)
                })
                .collect();
            state.subs.push(sub.clone());
            first
        };
        for n in first {
            sub.listener.notify(n);
        }
        // Others watching the same directories may have missed a change read just now.
        self.wake.notify_one();
        Ok(())
    }

    fn unsubscribe(&self, consumer: &Url, listener: &Arc<dyn NotifyListener>) {
        let key = (consumer.to_full_string(), listener_id(listener));
        let mut state = self.lock();
        state.subs.retain(|s| s.key != key);
        let used: HashSet<PathBuf> = state
            .subs
            .iter()
            .flat_map(|s| s.dirs.iter().map(|(_, d)| d.clone()))
            .collect();
        state.dirs.retain(|d, _| used.contains(d));
    }

    fn lookup(&self, consumer: &Url) -> Result<Vec<Url>, RegistryError> {
        self.check_open()?;
        let Some(interface) = consumer.service_interface() else {
            return Ok(Vec::new());
        };
        // The categories the lookup names (Java's `lookup`): `*` for all, `providers` when it
        // names none.
        let named = consumer.parameter_list("category");
        let categories: Vec<Category> = if named.is_empty() {
            vec![Category::Providers]
        } else if named.contains(&"*") {
            Category::ALL.to_vec()
        } else {
            Category::ALL
                .iter()
                .copied()
                .filter(|c| named.contains(&c.as_str()))
                .collect()
        };
        let stale = sweep(&self.layout.owners_dir(), self.owner.id());
        let matcher = consumer.with_parameter("category", "*");
        let mut urls = Vec::new();
        for category in categories {
            let dir = self.layout.category_dir(interface, category);
            let fp = list(&dir, &stale)?;
            let mut hashed = HashMap::new();
            urls.extend(
                self.read_urls(&dir, &fp, &mut hashed)
                    .into_iter()
                    .map(|(_, u)| u)
                    .filter(|u| is_match(&matcher, u)),
            );
        }
        Ok(urls)
    }

    fn destroy(&self) {
        if self.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        self.cancel.cancel();
        self.owner.release();
        let mut state = self.lock();
        state.subs.clear();
        state.dirs.clear();
    }
}

/// The interfaces with a directory of registrations (one of the categories' directories) under
/// `{root}/dubbo`; the mapping, metadata and config directories share it and are left out.
fn interfaces(layout: &Layout) -> Result<Vec<String>, RegistryError> {
    let dir = layout.interfaces_dir();
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(RegistryError::io(&dir, &e)),
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if matches!(name.as_str(), "mapping" | "metadata" | "config") || name.starts_with('.') {
            continue;
        }
        let registered = ["providers", "consumers", "configurators", "routers"]
            .iter()
            .any(|c| entry.path().join(c).is_dir());
        if registered {
            out.push(dubbo_url::decode(&name).unwrap_or(name));
        }
    }
    out.sort();
    Ok(out)
}

impl Registry for FileRegistry {
    fn url(&self) -> &Url {
        &self.inner.url
    }

    fn register(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        let r = self.inner.register(url);
        Box::pin(async move { r })
    }

    fn unregister(&self, url: &Url) -> BoxFuture<'_, Result<(), RegistryError>> {
        let r = self.inner.unregister(url);
        Box::pin(async move { r })
    }

    fn subscribe(
        &self,
        consumer: &Url,
        listener: Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        let r = self.inner.subscribe(consumer, listener);
        Box::pin(async move { r })
    }

    fn unsubscribe(
        &self,
        consumer: &Url,
        listener: &Arc<dyn NotifyListener>,
    ) -> BoxFuture<'_, Result<(), RegistryError>> {
        self.inner.unsubscribe(consumer, listener);
        Box::pin(async { Ok(()) })
    }

    fn services(&self) -> BoxFuture<'_, Result<Vec<String>, RegistryError>> {
        let r = self
            .inner
            .check_open()
            .and_then(|_| interfaces(&self.inner.layout));
        Box::pin(async move { r })
    }

    fn lookup(&self, consumer: &Url) -> BoxFuture<'_, Result<Vec<Url>, RegistryError>> {
        let r = self.inner.lookup(consumer);
        Box::pin(async move { r })
    }

    fn is_available(&self) -> bool {
        !self.inner.closed.load(Ordering::Acquire) && self.inner.layout.root().is_dir()
    }

    fn destroy(&self) -> BoxFuture<'_, ()> {
        self.inner.destroy();
        Box::pin(async {})
    }
}
