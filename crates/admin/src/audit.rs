//! The audit log: one JSON line per rule write and per invocation, appended to
//! `audit.log` in the data directory, with who did it and when.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;

use serde_json::{json, Value};

use crate::error::AdminError;

/// The audit log file.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    // Appends from concurrent requests must not interleave within a line.
    lock: Mutex<()>,
}

impl AuditLog {
    /// The log at `path` (created on the first entry).
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            lock: Mutex::new(()),
        }
    }

    /// Appends an entry: `action` by `user` with `details`; `ok` says whether it succeeded.
    pub fn record(
        &self,
        user: &str,
        action: &str,
        details: Value,
        ok: bool,
    ) -> Result<(), AdminError> {
        let line = json!({
            "time": crate::session::now_seconds(),
            "user": user,
            "action": action,
            "ok": ok,
            "details": details,
        })
        .to_string();
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(|e| AdminError::io(self.path.display().to_string(), &e))?;
        writeln!(f, "{line}").map_err(|e| AdminError::io(self.path.display().to_string(), &e))
    }

    /// The last `n` entries, newest last.
    pub fn tail(&self, n: usize) -> Result<Vec<Value>, AdminError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(AdminError::io(self.path.display().to_string(), &e)),
        };
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.len().saturating_sub(n);
        Ok(lines[start..]
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }
}
