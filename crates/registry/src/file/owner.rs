//! Liveness: ephemeral entries of a process vanish when it dies, however it dies.
//!
//! Each registry object is an *owner* with a random id. It holds an exclusive `flock(2)` on
//! `.owners/{id}.lock` for as long as it lives, and lists the entries it wrote in
//! `.owners/{id}.manifest` (path and inode of each). The kernel drops the lock when the last
//! descriptor closes, which includes a `SIGKILL` or a crash, so "the lock can be taken" means
//! "the owner is gone". Every reader sweeps before it reads: for each lock it can take, it
//! deletes the entries of that manifest whose inode is still the one recorded (an entry
//! rewritten by a live process since has another inode and stays), then the manifest and the
//! lock file.
//!
//! Why a lock and not a pid: a pid can be reused by an unrelated process after the owner dies,
//! and `/proc/{pid}` is not visible across PID namespaces (two containers sharing the
//! directory); a lock belongs to the open file, not to a number, and works for both. Its limit:
//! `flock` must be honoured by the filesystem, so the directory has to be local (not NFS).

use std::collections::{BTreeMap, HashSet};
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rustix::fs::{flock, FlockOperation};

use crate::atomic_file::{inode, write_atomic, write_atomic_then};
use crate::error::RegistryError;

const LOCK_SUFFIX: &str = ".lock";
const MANIFEST_SUFFIX: &str = ".manifest";

/// One live owner: its held lock and the entries it wrote.
pub(crate) struct Owner {
    id: String,
    dir: PathBuf,
    /// Kept open: the flock lives as long as this descriptor.
    _lock: File,
    /// Entry path -> inode written.
    entries: Mutex<BTreeMap<PathBuf, u64>>,
}

impl Owner {
    /// Takes a new owner id under `owners_dir`.
    pub(crate) fn create(owners_dir: &Path) -> Result<Self, RegistryError> {
        std::fs::create_dir_all(owners_dir).map_err(|e| RegistryError::io(owners_dir, &e))?;
        let id = new_id();
        // Locked under a hidden name first and renamed into place, so no sweeper ever sees the
        // lock file unlocked.
        let tmp = owners_dir.join(format!(".{id}.lock.tmp"));
        let lock = File::create(&tmp).map_err(|e| RegistryError::io(&tmp, &e))?;
        flock(&lock, FlockOperation::NonBlockingLockExclusive).map_err(|e| RegistryError::Io {
            path: tmp.display().to_string(),
            reason: format!("cannot lock: {e}"),
        })?;
        let path = owners_dir.join(format!("{id}{LOCK_SUFFIX}"));
        std::fs::rename(&tmp, &path).map_err(|e| RegistryError::io(&path, &e))?;
        Ok(Self {
            id,
            dir: owners_dir.to_owned(),
            _lock: lock,
            entries: Mutex::default(),
        })
    }

    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Writes an ephemeral entry: recorded in the manifest before it becomes visible.
    pub(crate) fn write_entry(&self, path: &Path, content: &[u8]) -> Result<(), RegistryError> {
        let mut entries = self.lock();
        write_atomic_then(path, content, |ino| {
            entries.insert(path.to_owned(), ino);
            self.save_manifest(&entries)
        })?;
        Ok(())
    }

    /// Deletes an entry (whoever wrote it, as ZooKeeper's delete does) and forgets it.
    pub(crate) fn remove_entry(&self, path: &Path) -> Result<(), RegistryError> {
        let mut entries = self.lock();
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(RegistryError::io(path, &e)),
        }
        if entries.remove(path).is_some() {
            self.save_manifest(&entries)?;
        }
        Ok(())
    }

    /// Deletes every entry this owner wrote, then its manifest and lock file.
    pub(crate) fn release(&self) {
        let mut entries = self.lock();
        for (path, ino) in entries.iter() {
            remove_if_inode(path, *ino);
        }
        entries.clear();
        let _ = std::fs::remove_file(self.dir.join(format!("{}{MANIFEST_SUFFIX}", self.id)));
        let _ = std::fs::remove_file(self.dir.join(format!("{}{LOCK_SUFFIX}", self.id)));
    }

    fn save_manifest(&self, entries: &BTreeMap<PathBuf, u64>) -> Result<(), RegistryError> {
        let mut text = String::new();
        for (path, ino) in entries {
            text.push_str(&format!("{ino} {}\n", path.display()));
        }
        let path = self.dir.join(format!("{}{MANIFEST_SUFFIX}", self.id));
        write_atomic(&path, text.as_bytes()).map(|_| ())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<PathBuf, u64>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        self.release();
    }
}

/// Removes the entries of every owner under `owners_dir` that is gone (its lock can be taken)
/// except `me`. Returns the entries of gone owners that could not be deleted (e.g. a read-only
/// directory), which readers then leave out.
pub(crate) fn sweep(owners_dir: &Path, me: &str) -> HashSet<PathBuf> {
    let mut stale = HashSet::new();
    let Ok(dir) = std::fs::read_dir(owners_dir) else {
        return stale;
    };
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(id) = name.to_str().and_then(|n| n.strip_suffix(LOCK_SUFFIX)) else {
            continue;
        };
        if id == me || id.starts_with('.') {
            continue;
        }
        let lock_path = entry.path();
        let Ok(lock) = File::open(&lock_path) else {
            continue; // swept by someone else meanwhile
        };
        if flock(&lock, FlockOperation::NonBlockingLockExclusive).is_err() {
            continue; // alive
        }
        let manifest = owners_dir.join(format!("{id}{MANIFEST_SUFFIX}"));
        let mut all_gone = true;
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            for line in text.lines() {
                let Some((ino, path)) = line.split_once(' ') else {
                    continue;
                };
                let (Ok(ino), path) = (ino.parse::<u64>(), PathBuf::from(path)) else {
                    continue;
                };
                if !remove_if_inode(&path, ino) {
                    all_gone = false;
                    stale.insert(path);
                }
            }
        }
        if all_gone {
            tracing::info!(
                owner = id,
                "removed the registry entries of a process that is gone"
            );
            let _ = std::fs::remove_file(&manifest);
            let _ = std::fs::remove_file(&lock_path);
        }
    }
    stale
}

/// Deletes `path` if it is still the file with inode `ino`; `false` when it stays although it
/// should go.
fn remove_if_inode(path: &Path, ino: u64) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if inode(&meta) == ino => match std::fs::remove_file(path) {
            Ok(()) => true,
            Err(e) => e.kind() == ErrorKind::NotFound,
        },
        _ => true, // gone, or rewritten by someone else: not ours to delete
    }
}

/// Unique among processes and among owners of one process: pid, clock and a random number.
fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    format!("{}-{nanos:x}-{:08x}", std::process::id(), random as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_owners_entries_go_and_a_live_owners_stay() {
        let dir = tempfile::tempdir().unwrap();
        let owners = dir.path().join(".owners");
        let b = Owner::create(&owners).unwrap();
        let pb = dir.path().join("x/b");
        b.write_entry(&pb, b"b").unwrap();
        // What a process killed by SIGKILL leaves: its lock file (now unlocked, the kernel
        // dropped the lock with the process) and its manifest.
        let pa = dir.path().join("x/a");
        let ino = write_atomic(&pa, b"a").unwrap();
        std::fs::write(owners.join("dead.lock"), b"").unwrap();
        std::fs::write(
            owners.join("dead.manifest"),
            format!("{ino} {}\n", pa.display()),
        )
        .unwrap();
        assert!(sweep(&owners, "me").is_empty());
        assert!(!pa.exists());
        assert!(pb.exists(), "a live owner's entry stays");
        assert!(!owners.join("dead.lock").exists());
        assert!(!owners.join("dead.manifest").exists());
        drop(b);
        assert!(!pb.exists());
        assert_eq!(std::fs::read_dir(&owners).unwrap().count(), 0);
    }

    #[test]
    fn an_entry_rewritten_by_another_owner_survives_the_first_owners_death() {
        let dir = tempfile::tempdir().unwrap();
        let owners = dir.path().join(".owners");
        let a = Owner::create(&owners).unwrap();
        let b = Owner::create(&owners).unwrap();
        let p = dir.path().join("services/app/h:1");
        a.write_entry(&p, b"old").unwrap();
        b.write_entry(&p, b"new").unwrap();
        drop(a); // its clean-up must not delete b's file
        sweep(&owners, b.id());
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
    }
}
