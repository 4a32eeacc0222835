//! [`RegistryCacheFile`]: a consumer's last-known URLs per service, kept on disk so that a
//! consumer started while its registry is down can still find providers (Java
//! `AbstractRegistry`'s cache file).
//!
//! The format is Java's: a `java.util.Properties` file whose keys are service keys
//! (`group/interface:version`) and whose values are the full URLs last notified for the
//! service (every category, `empty://` ones included), separated by spaces. A cache file
//! written by Java Dubbo reads here and the other way round.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use dubbo_url::Url;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::atomic_file::write_atomic;
use crate::error::RegistryError;
use crate::properties;

/// Registry URL parameter naming the cache file (Java's `file`).
pub const FILE_KEY: &str = "file";
/// Registry URL parameter turning the cache file off with `false` (Java's `file-cache`).
pub const FILE_CACHE_KEY: &str = "file-cache";
/// How long a change waits before it is written, so a burst of notifications costs one write
/// (Java's `DEFAULT_INTERVAL_SAVE_PROPERTIES`).
pub const DEFAULT_SAVE_DELAY: Duration = Duration::from_millis(500);

const HEADER: &str = "Dubbo Registry Cache";

/// The last-known URLs per service key, loaded from and saved to one file.
///
/// Saving is asynchronous and coalesced: [`put`](Self::put) updates memory and wakes a task
/// owned by this value that, after [`DEFAULT_SAVE_DELAY`], writes the newest content
/// atomically (temporary file + rename, so readers in other processes never see a partial
/// file). The task is stopped by [`close`](Self::close) or when the value is dropped.
pub struct RegistryCacheFile {
    path: PathBuf,
    save_delay: Duration,
    entries: Mutex<BTreeMap<String, Entry>>,
    dirty: Notify,
    saver_started: std::sync::atomic::AtomicBool,
    cancel: CancellationToken,
}

/// What the cache holds for one service key.
#[derive(Debug, Clone)]
enum Entry {
    /// The value as the file has it.
    Text(String),
    /// The lists last notified, written out only when the file is saved: a notification of a
    /// large service costs no rendering of every URL, and a burst of them one rendering.
    Lists(Vec<Arc<[Url]>>),
}

impl Entry {
    fn render(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Entry::Text(text) => std::borrow::Cow::Borrowed(text),
            Entry::Lists(lists) => std::borrow::Cow::Owned(
                lists
                    .iter()
                    .flat_map(|l| l.iter())
                    .map(Url::to_full_string)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
        }
    }
}

impl RegistryCacheFile {
    /// The cache file a registry URL asks for: its `file` parameter, else Java's default
    /// `~/.dubbo/dubbo-registry-{application}-{host}-{port}.cache`; `None` when `file-cache`
    /// is `false`, or when no default can be made (no home directory).
    pub fn path_for(registry: &Url) -> Option<PathBuf> {
        if registry.parameter_bool(FILE_CACHE_KEY) == Some(false) {
            return None;
        }
        if let Some(file) = registry.parameter(FILE_KEY).filter(|f| !f.is_empty()) {
            return Some(PathBuf::from(file));
        }
        let home = std::env::var_os("HOME").filter(|h| !h.is_empty())?;
        let app = registry.application().unwrap_or("null");
        let address = registry.address().replace(':', "-");
        Some(
            PathBuf::from(home)
                .join(".dubbo")
                .join(format!("dubbo-registry-{app}-{address}.cache")),
        )
    }

    /// Opens the cache at `path`, loading what it holds. A missing file is an empty cache; an
    /// unreadable file or entry is skipped with a warning naming the path.
    pub fn open(path: impl Into<PathBuf>) -> Arc<Self> {
        Self::open_with_delay(path, DEFAULT_SAVE_DELAY)
    }

    /// Like [`open`](Self::open) with another delay before saving.
    pub fn open_with_delay(path: impl Into<PathBuf>, save_delay: Duration) -> Arc<Self> {
        let path = path.into();
        let entries = load(&path);
        Arc::new(Self {
            path,
            save_delay,
            entries: Mutex::new(entries),
            dirty: Notify::new(),
            saver_started: Default::default(),
            cancel: CancellationToken::new(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The URLs last saved for `service_key`, parsed; `None` when the cache has none.
    /// Unparsable URLs are skipped with a warning.
    pub fn get(&self, service_key: &str) -> Option<Vec<Url>> {
        let value = match self.lock().get(service_key)? {
            Entry::Lists(lists) => {
                let urls: Vec<Url> = lists.iter().flat_map(|l| l.iter().cloned()).collect();
                return (!urls.is_empty()).then_some(urls);
            }
            Entry::Text(text) => text.clone(),
        };
        let urls: Vec<Url> = value
            .split_whitespace()
            .filter_map(|u| match Url::parse(u) {
                Ok(url) => Some(url),
                Err(e) => {
                    tracing::warn!(path = %self.path.display(), key = service_key, error = %e, "skipping an unreadable URL in the registry cache file");
                    None
                }
            })
            .collect();
        (!urls.is_empty()).then_some(urls)
    }

    /// The service keys held.
    pub fn keys(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// Remembers `urls` as the current URLs of `service_key` and schedules a save.
    pub fn put(self: &Arc<Self>, service_key: &str, urls: &[Url]) {
        let value = urls
            .iter()
            .map(Url::to_full_string)
            .collect::<Vec<_>>()
            .join(" ");
        {
            let mut entries = self.lock();
            if matches!(entries.get(service_key), Some(Entry::Text(t)) if *t == value) {
                return;
            }
            entries.insert(service_key.to_owned(), Entry::Text(value));
        }
        self.schedule_save();
    }

    /// Like [`put`](Self::put) with the URLs given as the lists notified (one per category),
    /// kept as they are and rendered when the file is written. The same lists again (the
    /// same shared allocations) change nothing.
    pub fn put_lists(self: &Arc<Self>, service_key: &str, lists: Vec<Arc<[Url]>>) {
        {
            let mut entries = self.lock();
            let same = |held: &[Arc<[Url]>]| {
                held.len() == lists.len() && held.iter().zip(&lists).all(|(a, b)| Arc::ptr_eq(a, b))
            };
            if matches!(entries.get(service_key), Some(Entry::Lists(held)) if same(held)) {
                return;
            }
            entries.insert(service_key.to_owned(), Entry::Lists(lists));
        }
        self.schedule_save();
    }

    /// Writes the current content now.
    pub async fn flush(&self) -> Result<(), RegistryError> {
        let (path, data) = (self.path.clone(), self.render());
        match tokio::task::spawn_blocking(move || write_atomic(&path, data.as_bytes())).await {
            Ok(r) => r.map(|_| ()),
            Err(e) => Err(RegistryError::Io {
                path: self.path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }

    /// Stops the background saver; changes not yet written are dropped (call
    /// [`flush`](Self::flush) first to keep them).
    pub fn close(&self) {
        self.cancel.cancel();
    }

    fn schedule_save(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            // Without a runtime there is no task to hand the write to: write now.
            if let Err(e) = write_atomic(&self.path, self.render().as_bytes()) {
                tracing::warn!(code = e.code(), error = %e, "cannot save the registry cache file");
            }
            return;
        };
        self.dirty.notify_one();
        if self
            .saver_started
            .swap(true, std::sync::atomic::Ordering::AcqRel)
        {
            return;
        }
        // The task holds a weak reference so that dropping the cache ends it.
        let weak = Arc::downgrade(self);
        let cancel = self.cancel.clone();
        let delay = self.save_delay;
        runtime.spawn(async move {
            loop {
                let Some(this) = weak.upgrade() else { return };
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = this.dirty.notified() => {}
                }
                drop(this);
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tokio::time::sleep(delay) => {}
                }
                let Some(this) = weak.upgrade() else { return };
                if let Err(e) = this.flush().await {
                    tracing::warn!(code = e.code(), error = %e, "cannot save the registry cache file");
                }
            }
        });
    }

    fn render(&self) -> String {
        // A copy (reference counts for the lists) so that rendering runs outside the lock.
        let entries = self.lock().clone();
        let rendered: Vec<(&str, std::borrow::Cow<'_, str>)> = entries
            .iter()
            .map(|(k, v)| (k.as_str(), v.render()))
            .collect();
        properties::store(HEADER, rendered.iter().map(|(k, v)| (*k, v.as_ref())))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for RegistryCacheFile {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// Reads the file, keeping only entries that look like a service key mapped to URLs (Java
/// skips keys that do not start with a letter or `_`).
fn load(path: &Path) -> BTreeMap<String, Entry> {
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return BTreeMap::new(),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot read the registry cache file; starting empty");
            return BTreeMap::new();
        }
    };
    let mut out = BTreeMap::new();
    let mut skipped = 0usize;
    for (key, value) in properties::parse(&data) {
        let key_ok = key
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_');
        let value_ok =
            !value.trim().is_empty() && value.split_whitespace().all(|u| Url::parse(u).is_ok());
        if key_ok && value_ok {
            out.insert(key, Entry::Text(value));
        } else {
            skipped += 1;
        }
    }
    if skipped > 0 {
        tracing::warn!(path = %path.display(), skipped, "skipped unreadable entries of the registry cache file");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[tokio::test]
    async fn saves_and_a_fresh_instance_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/dubbo.cache");
        let c = RegistryCacheFile::open_with_delay(&path, Duration::from_millis(20));
        let urls = vec![
            url("dubbo://10.0.0.1:20880/org.Foo?interface=org.Foo&version=1.0&group=g"),
            url("empty://10.0.0.2/org.Foo?category=routers&interface=org.Foo"),
        ];
        c.put("g/org.Foo:1.0", &urls);
        // The save happens in the background after the delay.
        for _ in 0..100 {
            if path.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("#Dubbo Registry Cache\n"), "{text}");
        assert!(
            text.contains("g/org.Foo\\:1.0=dubbo\\://10.0.0.1\\:20880/org.Foo?"),
            "{text}"
        );

        let fresh = RegistryCacheFile::open(&path);
        assert_eq!(fresh.get("g/org.Foo:1.0"), Some(urls));
        assert_eq!(fresh.get("other"), None);
    }

    #[tokio::test]
    async fn lists_are_written_as_the_same_text_as_urls() {
        let dir = tempfile::tempdir().unwrap();
        let (by_urls, by_lists) = (
            dir.path().join("urls.cache"),
            dir.path().join("lists.cache"),
        );
        let providers: Arc<[Url]> = vec![
            url("dubbo://10.0.0.1:20880/org.Foo?interface=org.Foo"),
            url("dubbo://10.0.0.2:20880/org.Foo?interface=org.Foo"),
        ]
        .into();
        let routers: Arc<[Url]> = vec![url(
            "empty://10.0.0.3/org.Foo?category=routers&interface=org.Foo",
        )]
        .into();
        let all: Vec<Url> = providers.iter().chain(routers.iter()).cloned().collect();
        let a = RegistryCacheFile::open_with_delay(&by_urls, Duration::from_secs(3600));
        a.put("org.Foo", &all);
        let b = RegistryCacheFile::open_with_delay(&by_lists, Duration::from_secs(3600));
        b.put_lists("org.Foo", vec![providers.clone(), routers.clone()]);
        assert_eq!(b.get("org.Foo").unwrap(), all);
        a.flush().await.unwrap();
        b.flush().await.unwrap();
        let text = |p: &Path| {
            let t = std::fs::read_to_string(p).unwrap();
            t.lines()
                .filter(|l| !l.starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(text(&by_lists), text(&by_urls));
        assert_eq!(
            RegistryCacheFile::open(&by_lists).get("org.Foo").unwrap(),
            all
        );
        // The cache holds the lists themselves, not copies, and lets them go when replaced.
        assert_eq!(Arc::strong_count(&providers), 2);
        b.put_lists("org.Foo", vec![routers]);
        assert_eq!(Arc::strong_count(&providers), 1);
    }

    #[test]
    fn reads_a_java_cache_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("java.cache");
        std::fs::write(
            &path,
            "#Dubbo Registry Cache\n#Tue Dec 01 10:00:00 CST 2026\n\
org.apache.dubbo.demo.DemoService=empty\\://192.168.1.5/org.apache.dubbo.demo.DemoService?category\\=configurators&interface\\=org.apache.dubbo.demo.DemoService dubbo\\://192.168.1.5\\:20880/org.apache.dubbo.demo.DemoService?anyhost\\=true&interface\\=org.apache.dubbo.demo.DemoService&side\\=provider\n",
        )
        .unwrap();
        let c = RegistryCacheFile::open(&path);
        let urls = c.get("org.apache.dubbo.demo.DemoService").unwrap();
        assert_eq!(urls.len(), 2);
        assert_eq!(urls[1].port(), 20880);
        assert_eq!(urls[0].parameter("category"), Some("configurators"));
    }

    #[test]
    fn a_corrupt_file_gives_an_empty_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.cache");
        std::fs::write(&path, b"\x00\xff\xfe garbage = \x01\x02 ::: \n=== \n").unwrap();
        let c = RegistryCacheFile::open(&path);
        assert!(c.keys().is_empty());
    }

    #[tokio::test]
    async fn concurrent_saves_keep_every_key_and_a_whole_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.cache");
        let a = RegistryCacheFile::open_with_delay(&path, Duration::from_millis(5));
        let b = RegistryCacheFile::open_with_delay(&path, Duration::from_millis(5));
        let mut tasks = Vec::new();
        for i in 0..50 {
            let (a, b) = (a.clone(), b.clone());
            tasks.push(tokio::spawn(async move {
                let u = url(&format!(
                    "dubbo://10.0.0.1:{}/org.S{i}?interface=org.S{i}",
                    20000 + i
                ));
                a.put(&format!("org.S{i}"), std::slice::from_ref(&u));
                b.put(&format!("org.S{i}"), &[u]);
                tokio::time::sleep(Duration::from_millis(1)).await;
            }));
        }
        // Meanwhile the file is always whole: every read parses to complete entries.
        for _ in 0..20 {
            if let Ok(data) = std::fs::read(&path) {
                for (_, v) in properties::parse(&data) {
                    assert!(Url::parse(&v).is_ok(), "{v}");
                }
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        for t in tasks {
            t.await.unwrap();
        }
        a.flush().await.unwrap();
        let fresh = RegistryCacheFile::open(&path);
        assert_eq!(fresh.keys().len(), 50);
        assert_eq!(fresh.get("org.S7").unwrap()[0].port(), 20007);
    }

    #[test]
    fn the_path_follows_javas_rules() {
        let u = url("zookeeper://127.0.0.1:2181?application=demo");
        let home = std::env::var("HOME").unwrap();
        assert_eq!(
            RegistryCacheFile::path_for(&u),
            Some(PathBuf::from(format!(
                "{home}/.dubbo/dubbo-registry-demo-127.0.0.1-2181.cache"
            )))
        );
        let u = url("zookeeper://127.0.0.1:2181?file=/tmp/x.cache");
        assert_eq!(
            RegistryCacheFile::path_for(&u),
            Some(PathBuf::from("/tmp/x.cache"))
        );
        let u = url("zookeeper://127.0.0.1:2181?file-cache=false");
        assert_eq!(RegistryCacheFile::path_for(&u), None);
    }
}
