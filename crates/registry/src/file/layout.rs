//! Where the file registry keeps what: a directory tree shaped like Dubbo's ZooKeeper tree,
//! so the same tools and habits apply (`ls`, `cat`, a file per node).
//!
//! ```text
//! {root}/dubbo/{encoded interface}/{category}/{encoded full URL}   one file per URL
//! {root}/services/{encoded app}/{host:port}                         Curator JSON per instance
//! {root}/dubbo/mapping/{encoded interface}                          "app1,app2"
//! {root}/dubbo/metadata/{encoded app}/{revision}                    MetadataInfo JSON
//! {root}/dubbo/metadata/{encoded interface}/{version}/{group}/{side}/{app}  service definition
//! {root}/dubbo/config/{encoded group}/{encoded key}                 config centre value
//! {root}/.owners/{owner}.lock, {owner}.manifest                     liveness (see owner.rs)
//! ```

use std::path::{Path, PathBuf};

use dubbo_url::{encode, Url};

use crate::error::RegistryError;
use crate::registry::Category;

/// File names longer than this are replaced by a hash (filesystems allow 255 bytes; provider
/// URLs with long method lists exceed it). Such files hold the encoded URL as content.
const MAX_NAME_LEN: usize = 240;

/// The prefix of hashed entry names; no URL starts with it.
pub(crate) const HASHED_PREFIX: char = '~';

/// The URL parameter holding the poll period in milliseconds.
pub const POLL_PERIOD_KEY: &str = "poll.period";

/// The default poll period.
pub const DEFAULT_POLL_PERIOD: std::time::Duration = std::time::Duration::from_millis(300);

/// The directory tree of one file registry.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    root: PathBuf,
}

impl Layout {
    /// The root a registry URL names: its absolute path (`file:///var/dubbo`,
    /// `file://localhost/var/dubbo`), else [`default_root`].
    pub(crate) fn from_url(url: &Url) -> Result<Self, RegistryError> {
        let root = match url.path().filter(|p| !p.is_empty()) {
            Some(p) => PathBuf::from(format!("/{p}")),
            None => default_root(),
        };
        if let Some(host) = url.host().filter(|h| !h.is_empty()) {
            if host != "localhost" && host != "127.0.0.1" {
                return Err(RegistryError::Config {
                    key: url.to_string(),
                    reason: format!(
                        "the file registry is local; host {host:?} is not this machine"
                    ),
                });
            }
        }
        Ok(Self { root })
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn owners_dir(&self) -> PathBuf {
        self.root.join(".owners")
    }

    pub(crate) fn category_dir(&self, interface: &str, category: Category) -> PathBuf {
        self.root
            .join("dubbo")
            .join(encode(interface))
            .join(category.as_str())
    }

    pub(crate) fn services_dir(&self, app: &str) -> PathBuf {
        self.root.join("services").join(encode(app))
    }

    pub(crate) fn mapping_file(&self, interface: &str) -> PathBuf {
        self.root
            .join("dubbo")
            .join("mapping")
            .join(encode(interface))
    }

    pub(crate) fn mapping_lock(&self, interface: &str) -> PathBuf {
        self.root
            .join("dubbo")
            .join("mapping")
            .join(format!(".{}.lock", encode(interface)))
    }

    pub(crate) fn config_file(&self, group: &str, key: &str) -> PathBuf {
        self.root
            .join("dubbo")
            .join("config")
            .join(encode(group))
            .join(encode(key))
    }

    pub(crate) fn config_lock(&self, group: &str, key: &str) -> PathBuf {
        self.root
            .join("dubbo")
            .join("config")
            .join(encode(group))
            .join(format!(".{}.lock", encode(key)))
    }

    /// `{root}/dubbo`: the interfaces' directories, beside `mapping`, `metadata` and `config`.
    pub(crate) fn interfaces_dir(&self) -> PathBuf {
        self.root.join("dubbo")
    }

    /// Where a service definition is kept: the ZooKeeper report's path under `{root}/dubbo`.
    pub(crate) fn definition_file(&self, id: &crate::DefinitionId) -> PathBuf {
        self.root.join("dubbo").join(id.path_key())
    }

    /// The directory of every application's entry of one service and side.
    pub(crate) fn definition_dir(&self, id: &crate::DefinitionId) -> PathBuf {
        self.root.join("dubbo").join(id.side_path_key())
    }

    pub(crate) fn metadata_file(&self, app: &str, revision: &str) -> PathBuf {
        self.root
            .join("dubbo")
            .join("metadata")
            .join(encode(app))
            .join(encode(revision))
    }
}

/// `$XDG_RUNTIME_DIR/dubbo-rs/registry` when that variable is set (a per-user directory that
/// the system empties at logout and reboot, like ZooKeeper's ephemeral data), else
/// `/tmp/dubbo-rs-registry-{uid}` (per user, so two users of a machine do not mix).
pub fn default_root() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("dubbo-rs").join("registry"),
        None => std::env::temp_dir().join(format!(
            "dubbo-rs-registry-{}",
            rustix::process::getuid().as_raw()
        )),
    }
}

/// The file name of a URL entry: the percent-encoded full URL (ZooKeeper's node name), or a
/// hash of it when that is too long for a file name.
pub(crate) fn entry_name(encoded: &str) -> String {
    if encoded.len() <= MAX_NAME_LEN {
        return encoded.to_owned();
    }
    use md5::Digest;
    let digest = md5::Md5::digest(encoded.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{HASHED_PREFIX}{hex}")
}

/// The poll period a registry URL asks for (`poll.period`, milliseconds, at least 10).
pub(crate) fn poll_period(url: &Url) -> std::time::Duration {
    url.parameter_u64(POLL_PERIOD_KEY)
        .ok()
        .flatten()
        .map(|ms| std::time::Duration::from_millis(ms.max(10)))
        .unwrap_or(DEFAULT_POLL_PERIOD)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_comes_from_the_url_path() {
        let l = Layout::from_url(&Url::parse("file:///tmp/reg?poll.period=50").unwrap()).unwrap();
        assert_eq!(l.root(), Path::new("/tmp/reg"));
        let l = Layout::from_url(&Url::parse("file://localhost/var/x/y").unwrap()).unwrap();
        assert_eq!(l.root(), Path::new("/var/x/y"));
        let l = Layout::from_url(&Url::parse("file://localhost").unwrap()).unwrap();
        assert_eq!(l.root(), default_root());
        assert!(Layout::from_url(&Url::parse("file://10.1.1.1/x").unwrap()).is_err());
        assert_eq!(
            poll_period(&Url::parse("file:///tmp/reg?poll.period=50").unwrap()).as_millis(),
            50
        );
    }

    #[test]
    fn long_names_are_hashed() {
        assert_eq!(entry_name("dubbo%3A%2F%2Fh"), "dubbo%3A%2F%2Fh");
        let long = "x".repeat(300);
        let n = entry_name(&long);
        assert!(n.starts_with('~') && n.len() == 33, "{n}");
    }
}
