//! Noticing that files on disk changed, cheaply: their modification time and size are compared
//! with what was loaded, no more often than an interval, by whichever connection comes first.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

/// What identifies one version of a file without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
}

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some(Stamp {
        modified: meta.modified().ok(),
        len: meta.len(),
    })
}

struct Looked {
    at: Instant,
    /// The stamps of the files as last loaded successfully.
    loaded: Vec<Option<Stamp>>,
}

/// A set of files loaded together (a certificate and its key, a trust collection), and when
/// they were last looked at.
pub(crate) struct FileWatch {
    paths: Vec<PathBuf>,
    interval: Duration,
    looked: Mutex<Looked>,
}

impl std::fmt::Debug for FileWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileWatch")
            .field("paths", &self.paths)
            .field("interval", &self.interval)
            .finish()
    }
}

impl FileWatch {
    /// Watches `paths` as they are now (call it just before loading them the first time, so a
    /// change during that load is seen at the next look). A zero `interval` never looks again.
    pub(crate) fn new(paths: Vec<PathBuf>, interval: Duration) -> Self {
        let loaded = paths.iter().map(|p| stamp(p)).collect();
        Self {
            paths,
            interval,
            looked: Mutex::new(Looked {
                at: Instant::now(),
                loaded,
            }),
        }
    }

    /// When `interval` has passed since the last look and a file changed, runs `reload`. Its
    /// success records the files as loaded; its failure leaves them to be tried again at the
    /// next look (a file may be half written, or replaced before its partner). `None` when
    /// nothing was tried. Never waits for another caller doing the same: that one reloads.
    pub(crate) fn poll<T, E>(&self, reload: impl FnOnce() -> Result<T, E>) -> Option<Result<T, E>> {
        if self.interval.is_zero() {
            return None;
        }
        let Ok(mut looked) = self.looked.try_lock() else {
            return None;
        };
        if looked.at.elapsed() < self.interval {
            return None;
        }
        looked.at = Instant::now();
        // Stamped before reading, so a write that lands during the load is seen next time.
        let now: Vec<Option<Stamp>> = self.paths.iter().map(|p| stamp(p)).collect();
        if now == looked.loaded {
            return None;
        }
        let result = reload();
        if result.is_ok() {
            looked.loaded = now;
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn reloads_once_per_change_and_retries_failures() {
        let dir = std::env::temp_dir().join(format!("dubbo-tls-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.pem");
        std::fs::write(&file, "one").unwrap();
        let watch = FileWatch::new(vec![file.clone()], Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        assert!(watch.poll(|| Ok::<_, ()>(())).is_none(), "unchanged");
        std::fs::write(&file, "two!").unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(
            watch.poll(|| Err::<(), _>("half written")),
            Some(Err("half written"))
        );
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(
            watch.poll(|| Ok::<_, ()>(7)),
            Some(Ok(7)),
            "a failure is tried again"
        );
        std::thread::sleep(Duration::from_millis(5));
        assert!(watch.poll(|| Ok::<_, ()>(8)).is_none(), "loaded once");
        let off = FileWatch::new(vec![file.clone()], Duration::ZERO);
        std::fs::write(&file, "three").unwrap();
        assert!(
            off.poll(|| Ok::<_, ()>(())).is_none(),
            "zero interval: never"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
