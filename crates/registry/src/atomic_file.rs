//! Whole-file replacement that readers in other processes never see half done.

use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::RegistryError;

/// Writes `data` to `path` by writing a temporary file beside it and renaming it over `path`
/// (rename is atomic within a filesystem, so a reader sees the old or the new content, never
/// a mix). Missing parent directories are created. Returns the new file's inode number.
pub(crate) fn write_atomic(path: &Path, data: &[u8]) -> Result<u64, RegistryError> {
    write_atomic_then(path, data, |_| Ok(()))
}

/// Like [`write_atomic`], calling `before_rename` with the new file's inode number once the
/// content is written and before it becomes visible; an error from it abandons the write.
/// The file registry records the inode in its owner manifest there, so that a crash cannot
/// leave a visible entry that no manifest names.
pub(crate) fn write_atomic_then(
    path: &Path,
    data: &[u8],
    before_rename: impl FnOnce(u64) -> Result<(), RegistryError>,
) -> Result<u64, RegistryError> {
    let parent = path.parent().ok_or_else(|| RegistryError::Io {
        path: path.display().to_string(),
        reason: "no parent directory".to_owned(),
    })?;
    std::fs::create_dir_all(parent).map_err(|e| RegistryError::io(parent, &e))?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A leading dot keeps the temporary out of the listings readers take. Process, thread and
    // clock make the name unique without a shared counter: one thread writes one file at a time.
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
    let tmp = parent.join(format!(
        ".{}.tmp-{}-{thread}-{nanos}",
        truncate(&file_name, 80),
        std::process::id(),
    ));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp).map_err(|e| RegistryError::io(&tmp, &e))?;
        f.write_all(data).map_err(|e| RegistryError::io(&tmp, &e))?;
        let ino = inode(&f.metadata().map_err(|e| RegistryError::io(&tmp, &e))?);
        drop(f);
        before_rename(ino)?;
        std::fs::rename(&tmp, path).map_err(|e| RegistryError::io(path, &e))?;
        Ok(ino)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Takes an exclusive `flock` on the lock file `path` (created with its parents if missing)
/// without waiting: `Ok(None)` when another holder has it. The lock lasts as long as the
/// returned file is open.
#[cfg(unix)]
pub(crate) fn try_lock(path: &Path) -> Result<Option<std::fs::File>, RegistryError> {
    use rustix::fs::{flock, FlockOperation};
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| RegistryError::io(parent, &e))?;
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| RegistryError::io(path, &e))?;
    Ok(flock(&lock, FlockOperation::NonBlockingLockExclusive)
        .is_ok()
        .then_some(lock))
}

/// The inode number on Unix (renames keep it, rewrites change it); 0 elsewhere.
pub(crate) fn inode(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::ino(meta)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_whole_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.txt");
        let i1 = write_atomic(&p, b"one").unwrap();
        let i2 = write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        assert_ne!(i1, i2);
        assert_eq!(inode(&std::fs::metadata(&p).unwrap()), i2);
        assert_eq!(std::fs::read_dir(p.parent().unwrap()).unwrap().count(), 1);
    }
}
