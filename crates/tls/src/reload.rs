//! A certificate and its key, re-read from disk when their files change: new connections get
//! the new pair, open connections keep theirs (a TLS session never changes certificate). The
//! same type serves a server's certificate ([`ResolvesServerCert`]) and a client's
//! ([`ResolvesClientCert`], mutual TLS).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use arc_swap::ArcSwap;
use rustls::client::ResolvesClientCert;
use rustls::crypto::CryptoProvider;
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::SignatureScheme;

use crate::error::TlsError;
use crate::keys;
use crate::pem;
use crate::validity::{check_chain, Validity};
use crate::watch::FileWatch;

/// Which side a certificate is for: the configuration keys named in errors and the words of
/// the log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CertSide {
    /// A server's certificate (`server-key-cert-chain-path`, ...).
    Server,
    /// A client's certificate for mutual TLS (`client-key-cert-chain-path`, ...).
    Client,
}

impl CertSide {
    fn keys(self) -> (&'static str, &'static str, &'static str) {
        match self {
            CertSide::Server => (
                keys::SERVER_KEY_CERT_CHAIN_PATH,
                keys::SERVER_PRIVATE_KEY_PATH,
                keys::SERVER_KEY_PASSWORD,
            ),
            CertSide::Client => (
                keys::CLIENT_KEY_CERT_CHAIN_PATH,
                keys::CLIENT_PRIVATE_KEY_PATH,
                keys::CLIENT_KEY_PASSWORD,
            ),
        }
    }

    /// `server` or `client`.
    pub fn as_str(self) -> &'static str {
        match self {
            CertSide::Server => "server",
            CertSide::Client => "client",
        }
    }
}

/// One certificate and key that are loaded again when the files' modification time or size
/// change (looked at no more often than `interval`, when a handshake asks or
/// [`refresh`](Self::refresh) is called). A pair that fails to load (a file half written, a key
/// that does not match the certificate) is reported and the previous one kept; the next look
/// tries again.
pub struct ReloadingCert {
    side: CertSide,
    chain_path: PathBuf,
    key_path: PathBuf,
    password: Option<String>,
    provider: Arc<CryptoProvider>,
    current: ArcSwap<CertifiedKey>,
    validity: ArcSwap<Option<Validity>>,
    watch: FileWatch,
    reloads: AtomicU64,
}

impl std::fmt::Debug for ReloadingCert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReloadingCert")
            .field("side", &self.side)
            .field("chain", &self.chain_path)
            .field("key", &self.key_path)
            .field("watch", &self.watch)
            .finish()
    }
}

impl ReloadingCert {
    /// Loads the pair now; fails, naming the `dubbo.ssl` key and file, when it cannot be used.
    pub fn load(
        side: CertSide,
        chain_path: &Path,
        key_path: &Path,
        password: Option<String>,
        interval: Duration,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self, TlsError> {
        let watch = FileWatch::new(vec![chain_path.to_owned(), key_path.to_owned()], interval);
        let (certified, validity) =
            load_pair(side, chain_path, key_path, password.as_deref(), &provider)?;
        Ok(Self {
            side,
            chain_path: chain_path.to_owned(),
            key_path: key_path.to_owned(),
            password,
            provider,
            current: ArcSwap::from_pointee(certified),
            validity: ArcSwap::from_pointee(validity),
            watch,
            reloads: AtomicU64::new(0),
        })
    }

    /// The dates of the leaf certificate used now.
    pub fn validity(&self) -> Option<Validity> {
        (**self.validity.load()).clone()
    }

    /// How many times a changed pair was loaded.
    pub fn reloads(&self) -> u64 {
        self.reloads.load(Ordering::Relaxed)
    }

    /// The pair used now.
    pub fn current(&self) -> Arc<CertifiedKey> {
        self.current.load_full()
    }

    /// Looks at the files if the interval has passed since the last look, and loads them
    /// again if they changed. Never blocks on another handshake doing the same.
    pub fn refresh(&self) {
        let side = self.side.as_str();
        let loaded = self.watch.poll(|| {
            load_pair(
                self.side,
                &self.chain_path,
                &self.key_path,
                self.password.as_deref(),
                &self.provider,
            )
        });
        match loaded {
            None => {}
            Some(Ok((certified, validity))) => {
                self.current.store(Arc::new(certified));
                self.validity.store(Arc::new(validity.clone()));
                self.reloads.fetch_add(1, Ordering::Relaxed);
                let (subject, not_after) = validity
                    .map(|v| (v.subject, v.not_after_text))
                    .unwrap_or_default();
                tracing::info!(
                    chain = %self.chain_path.display(),
                    key = %self.key_path.display(),
                    %subject,
                    %not_after,
                    "{side} certificate reloaded ({subject}, valid until {not_after}); new connections use it"
                );
            }
            Some(Err(e)) => {
                // Keep using the previous pair; the next look tries again (the files may be in
                // the middle of being replaced).
                tracing::warn!(error = %e, code = e.code(), "changed {side} certificate not loaded; still using the previous one: {e}");
            }
        }
    }
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.refresh();
        Some(self.current())
    }
}

impl ResolvesClientCert for ReloadingCert {
    fn resolve(
        &self,
        _root_hint_subjects: &[&[u8]],
        _sigschemes: &[SignatureScheme],
    ) -> Option<Arc<CertifiedKey>> {
        // The one configured certificate is sent whatever the hints say, as rustls's own
        // single-certificate resolver does: the server's verdict is clearer than silence.
        self.refresh();
        Some(self.current())
    }

    fn has_certs(&self) -> bool {
        true
    }
}

fn load_pair(
    side: CertSide,
    chain_path: &Path,
    key_path: &Path,
    password: Option<&str>,
    provider: &CryptoProvider,
) -> Result<(CertifiedKey, Option<Validity>), TlsError> {
    let (chain_key, key_key, password_key) = side.keys();
    let chain = pem::load_certs(chain_path, chain_key)?;
    let key = pem::load_key(key_path, key_key, password, password_key)?;
    let validity = check_chain(&chain, chain_path, chain_key, SystemTime::now());
    let certified =
        CertifiedKey::from_der(chain, key, provider).map_err(|e| TlsError::Invalid {
            key: key_key,
            reason: format!(
                "{} does not go with {}: {e}",
                key_path.display(),
                chain_path.display()
            ),
        })?;
    Ok((certified, validity))
}
