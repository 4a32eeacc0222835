//! Appending access-log lines to a file off the call path.

use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;

/// A file's access log: a bounded queue that a background thread drains into the file.
///
/// [`push`](Self::push) never blocks: when the queue is full the line is dropped and counted,
/// with a warning for the first drop and every thousandth after it. The thread ends once the
/// writer is dropped and the queue is drained.
#[derive(Debug)]
pub(crate) struct FileLog {
    path: PathBuf,
    sender: SyncSender<String>,
    dropped: Arc<AtomicU64>,
}

impl FileLog {
    /// Starts the background writer of `path` with a queue of `capacity` lines. The file (and
    /// its directory) is created when the first line is written.
    pub(crate) fn start(path: &Path, capacity: usize) -> std::io::Result<Self> {
        let (sender, receiver) = sync_channel(capacity);
        let owned = path.to_path_buf();
        std::thread::Builder::new()
            .name("dubbo-accesslog".to_owned())
            .spawn(move || drain(&owned, receiver))?;
        Ok(Self {
            path: path.to_path_buf(),
            sender,
            dropped: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Queues `line`, or drops and counts it when the queue is full.
    pub(crate) fn push(&self, line: String) {
        match self.sender.try_send(line) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
                if dropped == 1 || dropped % 1000 == 0 {
                    tracing::warn!(
                        path = %self.path.display(),
                        dropped,
                        "access log queue is full; dropping lines"
                    );
                }
            }
            Err(TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Lines dropped so far because the queue was full or the writer had stopped.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// The writer thread: appends every queued line, flushing whenever the queue runs empty.
fn drain(path: &Path, receiver: Receiver<String>) {
    let mut file = None;
    while let Ok(first) = receiver.recv() {
        if file.is_none() {
            file = open(path);
        }
        let Some(out) = file.as_mut() else {
            // Could not open: this batch is lost (already reported); try again next time.
            while receiver.try_recv().is_ok() {}
            continue;
        };
        let mut result = writeln!(out, "{first}");
        while let Ok(line) = receiver.try_recv() {
            if result.is_ok() {
                result = writeln!(out, "{line}");
            }
        }
        if let Err(e) = result.and_then(|()| out.flush()) {
            tracing::warn!(path = %path.display(), error = %e, "cannot write the access log");
            file = None;
        }
    }
}

fn open(path: &Path) -> Option<BufWriter<std::fs::File>> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        if let Err(e) = std::fs::create_dir_all(dir) {
            tracing::warn!(path = %path.display(), error = %e, "cannot create the access log's directory");
            return None;
        }
    }
    match OpenOptions::new().create(true).append(true).open(path) {
        Ok(f) => Some(BufWriter::new(f)),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "cannot open the access log");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_queue_drops_and_counts_without_blocking() {
        // A queue nobody drains: the third line finds it full.
        let (sender, _receiver) = sync_channel(2);
        let log = FileLog {
            path: PathBuf::from("unused.log"),
            sender,
            dropped: Arc::new(AtomicU64::new(0)),
        };
        for i in 0..3 {
            log.push(format!("line {i}"));
        }
        assert_eq!(log.dropped(), 1);
    }

    #[test]
    fn lines_reach_the_file_in_order() {
        let dir = std::env::temp_dir().join(format!("dubbo-accesslog-{}", std::process::id()));
        let path = dir.join("nested").join("access.log");
        let _ = std::fs::remove_file(&path);
        let log = FileLog::start(&path, 16).unwrap();
        log.push("one".to_owned());
        log.push("two".to_owned());
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text == "one\ntwo\n" {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "{text:?}");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
