//! A trust collection (CA certificates, PEM) re-read from disk when its file changes: a server's
//! (the CAs client certificates must chain to) or a client's (the CAs server certificates must
//! chain to). Its owner rebuilds its rustls configuration from the new roots; connections
//! already open are not checked again.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rustls::RootCertStore;

use crate::error::TlsError;
use crate::pem;
use crate::reload::CertSide;
use crate::validity::check_chain;
use crate::watch::FileWatch;

/// One trust collection file and when it was last looked at.
#[derive(Debug)]
pub(crate) struct TrustFile {
    side: CertSide,
    key: &'static str,
    path: PathBuf,
    watch: FileWatch,
}

impl TrustFile {
    /// Loads the collection now (named by configuration key `key` in errors) and watches it;
    /// fails when it cannot be used.
    pub(crate) fn load(
        side: CertSide,
        key: &'static str,
        path: &Path,
        interval: Duration,
    ) -> Result<(Self, RootCertStore), TlsError> {
        let watch = FileWatch::new(vec![path.to_owned()], interval);
        let roots = load_roots(path, key)?;
        Ok((
            Self {
                side,
                key,
                path: path.to_owned(),
                watch,
            },
            roots,
        ))
    }

    /// When the interval has passed and the file changed, loads it and hands the roots to
    /// `build` (which makes the configuration that uses them). `None` when nothing changed,
    /// or when the new collection or what `build` made of it cannot be used: that is logged,
    /// the caller keeps what it has, and the next look tries again.
    pub(crate) fn refresh<T>(
        &self,
        build: impl FnOnce(RootCertStore) -> Result<T, TlsError>,
    ) -> Option<T> {
        let side = self.side.as_str();
        let mut count = 0;
        let built = self.watch.poll(|| {
            let roots = load_roots(&self.path, self.key)?;
            count = roots.len();
            build(roots)
        })?;
        match built {
            Ok(t) => {
                tracing::info!(
                    file = %self.path.display(),
                    certificates = count,
                    "{side} trust collection reloaded ({count} CA certificates from {}); new connections are checked against it",
                    self.path.display()
                );
                Some(t)
            }
            Err(e) => {
                tracing::warn!(error = %e, code = e.code(), "changed {side} trust collection not loaded; still using the previous one: {e}");
                None
            }
        }
    }
}

/// The roots of a PEM trust collection; CA certificates outside their dates are reported.
fn load_roots(path: &Path, key: &'static str) -> Result<RootCertStore, TlsError> {
    let certs = pem::load_certs(path, key)?;
    check_chain(&certs, path, key, SystemTime::now());
    pem::roots_of(certs, path, key)
}
