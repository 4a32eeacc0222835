//! Why TLS could not be set up: every variant names the configuration key and the file.

use std::path::PathBuf;

/// A TLS setup failure. [`code`](Self::code) is stable for each variant; the message names the
/// `dubbo.ssl.*` key and the file it read, so a user knows what to fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// The file could not be read.
    #[error("{key} ({}): cannot read: {source}", path.display())]
    Read {
        /// The configuration key that named the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The file holds no PEM certificate.
    #[error("{key} ({}): no PEM certificate found (expected -----BEGIN CERTIFICATE-----)", path.display())]
    NoCertificate {
        /// The configuration key that named the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
    },
    /// The file's PEM could not be parsed.
    #[error("{key} ({}): bad PEM: {reason}", path.display())]
    BadPem {
        /// The configuration key that named the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// What the parser said.
        reason: String,
    },
    /// The file holds no private key this implementation reads.
    #[error("{key} ({}): no private key found (expected PEM PKCS#8, PKCS#1 or SEC1; an encrypted key must be PKCS#8 -----BEGIN ENCRYPTED PRIVATE KEY-----)", path.display())]
    NoPrivateKey {
        /// The configuration key that named the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
    },
    /// The key is encrypted and could not be decrypted (no password, a wrong one, or an
    /// encryption scheme this implementation does not read).
    #[error("{key} ({}): the private key is encrypted and could not be decrypted with {password_key}: {reason}", path.display())]
    Decrypt {
        /// The configuration key that named the file.
        key: &'static str,
        /// The file.
        path: PathBuf,
        /// The key that carries the password.
        password_key: &'static str,
        /// Why.
        reason: String,
    },
    /// The certificates and key were read but do not make a usable TLS configuration (a key
    /// that does not match the certificate, an unusable trust collection, ...).
    #[error("{key}: {reason}")]
    Invalid {
        /// The configuration key at fault.
        key: &'static str,
        /// Why.
        reason: String,
    },
}

impl TlsError {
    /// The stable code of this failure.
    pub fn code(&self) -> &'static str {
        match self {
            TlsError::Read { .. } => "tls.read",
            TlsError::NoCertificate { .. } => "tls.no-certificate",
            TlsError::BadPem { .. } => "tls.bad-pem",
            TlsError::NoPrivateKey { .. } => "tls.no-private-key",
            TlsError::Decrypt { .. } => "tls.decrypt",
            TlsError::Invalid { .. } => "tls.invalid",
        }
    }

    /// The configuration key the failure is about.
    pub fn key(&self) -> &'static str {
        match self {
            TlsError::Read { key, .. }
            | TlsError::NoCertificate { key, .. }
            | TlsError::BadPem { key, .. }
            | TlsError::NoPrivateKey { key, .. }
            | TlsError::Decrypt { key, .. }
            | TlsError::Invalid { key, .. } => key,
        }
    }
}
