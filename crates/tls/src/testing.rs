//! Certificates for tests (feature `testing`): a CA, a server certificate for `localhost` and
//! `127.0.0.1`, and a client certificate, written as PEM files into a directory.

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};

/// PEM files of a small test PKI.
#[derive(Debug, Clone)]
pub struct TestPki {
    /// The CA certificate (the trust collection of both sides).
    pub ca: PathBuf,
    /// The server's certificate.
    pub server_cert: PathBuf,
    /// The server's key.
    pub server_key: PathBuf,
    /// The client's certificate.
    pub client_cert: PathBuf,
    /// The client's key.
    pub client_key: PathBuf,
}

/// Why a test PKI could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TestPkiError {
    /// Certificate generation failed.
    #[error("certificate generation: {0}")]
    Generate(#[from] rcgen::Error),
    /// A file could not be written.
    #[error("writing test certificates: {0}")]
    Write(#[from] std::io::Error),
}

impl TestPki {
    /// Makes the CA and both certificates (valid from a day ago for a year) in `dir`.
    pub fn create(dir: &Path) -> Result<TestPki, TestPkiError> {
        std::fs::create_dir_all(dir)?;
        let mut ca = CertificateParams::new(Vec::<String>::new())?;
        ca.distinguished_name
            .push(DnType::CommonName, "dubbo-rs test CA");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_key = KeyPair::generate()?;
        let ca_cert = ca.self_signed(&ca_key)?;
        let leaf = |cn: &str| -> Result<(String, String), TestPkiError> {
            let mut p = CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()])?;
            p.distinguished_name.push(DnType::CommonName, cn);
            let now = time::OffsetDateTime::now_utc();
            p.not_before = now - time::Duration::days(1);
            p.not_after = now + time::Duration::days(365);
            let key = KeyPair::generate()?;
            let cert = p.signed_by(&key, &ca_cert, &ca_key)?;
            Ok((cert.pem(), key.serialize_pem()))
        };
        let (sc, sk) = leaf("server")?;
        let (cc, ck) = leaf("client")?;
        let write = |name: &str, text: &str| -> Result<PathBuf, TestPkiError> {
            let p = dir.join(name);
            std::fs::write(&p, text)?;
            Ok(p)
        };
        Ok(TestPki {
            ca: write("ca.pem", &ca_cert.pem())?,
            server_cert: write("server.pem", &sc)?,
            server_key: write("server.key", &sk)?,
            client_cert: write("client.pem", &cc)?,
            client_key: write("client.key", &ck)?,
        })
    }
}
