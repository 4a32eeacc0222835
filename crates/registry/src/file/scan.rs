//! Change detection by polling: a directory's fingerprint is its sorted (name, inode) pairs.
//!
//! Every write in the file registry replaces a file by rename, which gives it a new inode, so
//! the pairs change whenever an entry appears, goes or is rewritten; `readdir` returns the
//! inode with the name, so computing them costs one directory read and no `stat`. Modification
//! times would be cheaper still but are too coarse on some filesystems to see two changes in
//! one tick.

use std::collections::HashSet;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::RegistryError;

/// The entries of a directory as (file name, inode), sorted.
pub(crate) type Fingerprint = Vec<(String, u64)>;

/// The visible entries of `dir` (hidden files, temporaries and locks start with a dot), minus
/// the `stale` ones; a missing directory has none.
pub(crate) fn list(dir: &Path, stale: &HashSet<PathBuf>) -> Result<Fingerprint, RegistryError> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(RegistryError::io(dir, &e)),
    };
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| RegistryError::io(dir, &e))?;
        let Ok(name) = entry.file_name().into_string() else {
            tracing::warn!(dir = %dir.display(), name = ?entry.file_name(), "skipping a registry file whose name is not UTF-8");
            continue;
        };
        if name.starts_with('.') || (!stale.is_empty() && stale.contains(&entry.path())) {
            continue;
        }
        out.push((name, dir_entry_inode(&entry)));
    }
    out.sort_unstable();
    Ok(out)
}

fn dir_entry_inode(entry: &std::fs::DirEntry) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::DirEntryExt::ino(entry)
    }
    #[cfg(not(unix))]
    {
        let _ = entry;
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_change_the_fingerprint_and_hidden_files_do_not_count() {
        let dir = tempfile::tempdir().unwrap();
        let none = HashSet::new();
        assert!(list(&dir.path().join("missing"), &none).unwrap().is_empty());
        let p = dir.path().join("a");
        crate::atomic_file::write_atomic(&p, b"1").unwrap();
        std::fs::write(dir.path().join(".tmp"), b"").unwrap();
        let f1 = list(dir.path(), &none).unwrap();
        assert_eq!(f1.len(), 1);
        assert_eq!(list(dir.path(), &none).unwrap(), f1);
        crate::atomic_file::write_atomic(&p, b"2").unwrap();
        assert_ne!(list(dir.path(), &none).unwrap(), f1);
        let stale: HashSet<_> = [p].into_iter().collect();
        assert!(list(dir.path(), &stale).unwrap().is_empty());
    }
}
