//! Reading PEM certificate chains, trust collections and private keys (plain or encrypted
//! PKCS#8) from files.

use std::path::Path;

use pkcs8::der::Document;
use pkcs8::EncryptedPrivateKeyInfo;
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

use crate::error::TlsError;

const ENCRYPTED_LABEL: &str = "ENCRYPTED PRIVATE KEY";

fn read(path: &Path, key: &'static str) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read {
        key,
        path: path.to_owned(),
        source,
    })
}

/// Every certificate of a PEM file, in order; at least one.
pub fn load_certs(
    path: &Path,
    key: &'static str,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let bytes = read(path, key)?;
    certs_from_pem(&bytes, path, key)
}

/// Every certificate of PEM text read from `path`; at least one.
pub fn certs_from_pem(
    bytes: &[u8],
    path: &Path,
    key: &'static str,
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let certs = CertificateDer::pem_slice_iter(bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::BadPem {
            key,
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(TlsError::NoCertificate {
            key,
            path: path.to_owned(),
        });
    }
    Ok(certs)
}

/// A root store of every certificate of a PEM trust collection.
pub fn load_roots(path: &Path, key: &'static str) -> Result<RootCertStore, TlsError> {
    roots_of(load_certs(path, key)?, path, key)
}

/// A root store of `certs`, read from `path` (named by configuration key `key` in errors).
pub fn roots_of(
    certs: Vec<CertificateDer<'static>>,
    path: &Path,
    key: &'static str,
) -> Result<RootCertStore, TlsError> {
    let mut roots = RootCertStore::empty();
    for cert in certs {
        roots.add(cert).map_err(|e| TlsError::Invalid {
            key,
            reason: format!("{}: not a usable CA certificate: {e}", path.display()),
        })?;
    }
    Ok(roots)
}

/// The private key of a PEM file: PKCS#8, PKCS#1 (RSA) or SEC1 (EC), or PKCS#8 encrypted with
/// `password` (PBES2, as `openssl pkcs8 -topk8 -v2 aes-256-cbc` writes it).
pub fn load_key(
    path: &Path,
    key: &'static str,
    password: Option<&str>,
    password_key: &'static str,
) -> Result<PrivateKeyDer<'static>, TlsError> {
    let bytes = read(path, key)?;
    key_from_pem(&bytes, path, key, password, password_key)
}

/// The private key of PEM text read from `path` (see [`load_key`]).
pub fn key_from_pem(
    bytes: &[u8],
    path: &Path,
    key: &'static str,
    password: Option<&str>,
    password_key: &'static str,
) -> Result<PrivateKeyDer<'static>, TlsError> {
    let text = String::from_utf8_lossy(bytes);
    let decrypt_error = |reason: String| TlsError::Decrypt {
        key,
        path: path.to_owned(),
        password_key,
        reason,
    };
    if text.contains(&format!("-----BEGIN {ENCRYPTED_LABEL}-----")) {
        let Some(password) = password else {
            return Err(decrypt_error(format!("{password_key} is not set")));
        };
        let start = text
            .find(&format!("-----BEGIN {ENCRYPTED_LABEL}-----"))
            .unwrap_or(0);
        let end_marker = format!("-----END {ENCRYPTED_LABEL}-----");
        let end = text[start..]
            .find(&end_marker)
            .map(|e| start + e + end_marker.len())
            .unwrap_or(text.len());
        let (_, doc) = Document::from_pem(&text[start..end]).map_err(|e| TlsError::BadPem {
            key,
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        let info = EncryptedPrivateKeyInfo::try_from(doc.as_bytes())
            .map_err(|e| decrypt_error(format!("not an encrypted PKCS#8 key: {e}")))?;
        let plain = info
            .decrypt(password)
            .map_err(|e| decrypt_error(format!("{e} (wrong password or unsupported scheme)")))?;
        return Ok(PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
            plain.as_bytes().to_vec(),
        )));
    }
    if text.contains("Proc-Type: 4,ENCRYPTED") {
        return Err(decrypt_error(
            "legacy OpenSSL-encrypted PEM is not read; convert the key with `openssl pkcs8 -topk8 -v2 aes-256-cbc`".into(),
        ));
    }
    PrivateKeyDer::from_pem_slice(bytes).map_err(|_| TlsError::NoPrivateKey {
        key,
        path: path.to_owned(),
    })
}
