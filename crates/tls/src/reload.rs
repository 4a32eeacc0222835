//! The server's certificate, re-read from disk when its files change: new connections get the
//! new certificate, open connections keep theirs (a TLS session never changes certificate).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use arc_swap::ArcSwap;
use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use crate::error::TlsError;
use crate::keys;
use crate::pem;
use crate::validity::{check_chain, Validity};

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

struct Watch {
    checked: Instant,
    chain: Option<Stamp>,
    key: Option<Stamp>,
}

/// A [`ResolvesServerCert`] that serves one certificate and key, and loads them again when the
/// files' modification time or size change (looked at no more often than `interval`, when a
/// handshake asks). A pair that fails to load (a file half written, a key that does not match
/// the certificate) is reported and the previous one kept; the next look tries again.
pub struct ReloadingCert {
    chain_path: PathBuf,
    key_path: PathBuf,
    password: Option<String>,
    interval: Duration,
    provider: Arc<CryptoProvider>,
    current: ArcSwap<CertifiedKey>,
    validity: ArcSwap<Option<Validity>>,
    watch: Mutex<Watch>,
    reloads: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for ReloadingCert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReloadingCert")
            .field("chain", &self.chain_path)
            .field("key", &self.key_path)
            .field("interval", &self.interval)
            .finish()
    }
}

impl ReloadingCert {
    /// Loads the pair now; fails when it cannot be used.
    pub fn load(
        chain_path: &Path,
        key_path: &Path,
        password: Option<String>,
        interval: Duration,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self, TlsError> {
        let chain = stamp(chain_path);
        let key = stamp(key_path);
        let (certified, validity) =
            load_pair(chain_path, key_path, password.as_deref(), &provider)?;
        Ok(Self {
            chain_path: chain_path.to_owned(),
            key_path: key_path.to_owned(),
            password,
            interval,
            provider,
            current: ArcSwap::from_pointee(certified),
            validity: ArcSwap::from_pointee(validity),
            watch: Mutex::new(Watch {
                checked: Instant::now(),
                chain,
                key,
            }),
            reloads: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The dates of the leaf certificate served now.
    pub fn validity(&self) -> Option<Validity> {
        (**self.validity.load()).clone()
    }

    /// How many times a changed pair was loaded.
    pub fn reloads(&self) -> u64 {
        self.reloads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Looks at the files if `interval` has passed since the last look, and loads them again
    /// if they changed. Never blocks on another handshake doing the same.
    pub fn refresh(&self) {
        if self.interval.is_zero() {
            return;
        }
        let Ok(mut watch) = self.watch.try_lock() else {
            return;
        };
        if watch.checked.elapsed() < self.interval {
            return;
        }
        watch.checked = Instant::now();
        let chain = stamp(&self.chain_path);
        let key = stamp(&self.key_path);
        if chain == watch.chain && key == watch.key {
            return;
        }
        match load_pair(
            &self.chain_path,
            &self.key_path,
            self.password.as_deref(),
            &self.provider,
        ) {
            Ok((certified, validity)) => {
                self.current.store(Arc::new(certified));
                self.validity.store(Arc::new(validity));
                watch.chain = chain;
                watch.key = key;
                self.reloads
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tracing::info!(
                    chain = %self.chain_path.display(),
                    key = %self.key_path.display(),
                    "server certificate reloaded; new connections use it"
                );
            }
            Err(e) => {
                // Keep serving the previous pair; the next look tries again (the files may
                // be in the middle of being replaced).
                tracing::warn!(error = %e, code = e.code(), "changed server certificate not loaded; still serving the previous one");
            }
        }
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.refresh();
        Some(self.current.load_full())
    }
}

fn load_pair(
    chain_path: &Path,
    key_path: &Path,
    password: Option<&str>,
    provider: &CryptoProvider,
) -> Result<(CertifiedKey, Option<Validity>), TlsError> {
    let chain = pem::load_certs(chain_path, keys::SERVER_KEY_CERT_CHAIN_PATH)?;
    let key = pem::load_key(
        key_path,
        keys::SERVER_PRIVATE_KEY_PATH,
        password,
        keys::SERVER_KEY_PASSWORD,
    )?;
    let validity = check_chain(
        &chain,
        chain_path,
        keys::SERVER_KEY_CERT_CHAIN_PATH,
        SystemTime::now(),
    );
    let certified =
        CertifiedKey::from_der(chain, key, provider).map_err(|e| TlsError::Invalid {
            key: keys::SERVER_PRIVATE_KEY_PATH,
            reason: format!(
                "{} does not go with {}: {e}",
                key_path.display(),
                chain_path.display()
            ),
        })?;
    Ok((certified, validity))
}
