mod line;
mod writer;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use crate::filter::{Filter, Next};
use crate::invocation::Invocation;
use crate::invoker::{BoxFuture, RpcResult};

use writer::FileLog;

/// Lines that may wait for a file's writer before new ones are dropped (Java's access log
/// queue holds as many).
pub const ACCESS_LOG_QUEUE_CAPACITY: usize = 5000;

/// The URL parameter that turns the access log on: `true` (or `default`) logs through
/// `tracing`, any other value is the path of a file to append to.
pub const ACCESS_LOG_KEY: &str = "accesslog";

/// The `tracing` target of access-log lines when `accesslog=true`.
pub const ACCESS_LOG_TARGET: &str = "dubbo.accesslog";

/// The provider-side access log, Java's `AccessLogFilter`.
///
/// Active when the provider URL has `accesslog`. Each call is logged before it runs, one line in
/// the layout of Java's `AccessLogData`:
///
/// ```text
/// [2026-11-30 21:05:16] 10.0.0.7:53122 -> 10.0.0.5:20880 - group/org.example.Greeter:1.0.0 sayHello(java.lang.String) ["world"]
/// ```
///
/// (start time in UTC, consumer -> provider address, service key, method with parameter types,
/// arguments as JSON).
///
/// - `accesslog=true` or `accesslog=default`: the line goes to `tracing` at INFO level with the
///   target [`ACCESS_LOG_TARGET`] (`dubbo.accesslog`), so a subscriber can route it.
/// - `accesslog=<path>`: the line is appended to that file by a background thread; the call only
///   puts it in a bounded queue ([`ACCESS_LOG_QUEUE_CAPACITY`] lines). When the queue is full the
///   line is dropped and counted ([`dropped`](Self::dropped)) with a warning, never blocking the
///   call. The file and its directory are created on first write. Unlike Java, the file is not
///   rolled over daily.
///
/// `accesslog=false` (or empty) turns it off. The writers live in this instance; every framework
/// creates its own, and they stop when it is dropped.
#[derive(Debug, Default)]
pub struct AccessLogFilter {
    files: Mutex<HashMap<PathBuf, Arc<FileLog>>>,
}

impl AccessLogFilter {
    /// A filter with no files open yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lines for `path` dropped so far because its queue was full.
    pub fn dropped(&self, path: impl AsRef<Path>) -> u64 {
        self.lock()
            .get(path.as_ref())
            .map(|f| f.dropped())
            .unwrap_or(0)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Arc<FileLog>>> {
        self.files.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer of `path`, started on first use; `None` (after a warning) when its thread
    /// cannot be started.
    fn file(&self, path: &Path) -> Option<Arc<FileLog>> {
        let mut files = self.lock();
        if let Some(f) = files.get(path) {
            return Some(f.clone());
        }
        match FileLog::start(path, ACCESS_LOG_QUEUE_CAPACITY) {
            Ok(f) => {
                let f = Arc::new(f);
                files.insert(path.to_path_buf(), f.clone());
                Some(f)
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot start the access log writer");
                None
            }
        }
    }
}

impl Filter for AccessLogFilter {
    fn invoke<'a>(&'a self, invocation: Invocation, next: Next<'a>) -> BoxFuture<'a, RpcResult> {
        let url = next.url();
        let setting = url
            .parameter(ACCESS_LOG_KEY)
            .map(str::trim)
            .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("false"));
        if let Some(setting) = setting {
            let provider = format!("{}:{}", url.host().unwrap_or("null"), url.port());
            let line = line::format_line(&invocation, SystemTime::now(), &provider);
            if setting.eq_ignore_ascii_case("true") || setting.eq_ignore_ascii_case("default") {
                tracing::info!(target: "dubbo.accesslog", "{line}");
            } else if let Some(file) = self.file(Path::new(setting)) {
                file.push(line);
            }
        }
        next.run(invocation)
    }
}
