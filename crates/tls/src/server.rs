//! The server side: one port that serves TLS and, when allowed, plaintext, told apart by the
//! connection's first byte (port unification, as Java Dubbo's does).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use rustls::crypto::CryptoProvider;
use rustls::server::WebPkiClientVerifier;
use rustls::RootCertStore;
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;

use crate::error::TlsError;
use crate::reload::{CertSide, ReloadingCert};
use crate::settings::ServerTlsSettings;
use crate::trust::TrustFile;
use crate::validity::Validity;
use crate::{keys, provider};

/// The first byte of a TLS record carrying a handshake message (a ClientHello opens with it).
pub const TLS_HANDSHAKE_RECORD: u8 = 0x16;

/// What a connection's first byte says it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstByte {
    /// A TLS handshake record.
    Tls,
    /// Anything else: plaintext (the protocol's own bytes, or garbage).
    Plain,
}

/// Classifies a connection by its first byte.
pub fn sniff(first: u8) -> FirstByte {
    if first == TLS_HANDSHAKE_RECORD {
        FirstByte::Tls
    } else {
        FirstByte::Plain
    }
}

/// A connection accepted by [`ServerTls::accept`].
#[derive(Debug)]
pub enum Accepted {
    /// Plaintext (only when the port allows it).
    Plain(TcpStream),
    /// TLS, handshake done.
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

/// A server's TLS, shared by every connection of one port. Its certificate and its trust
/// collection are re-read when their files change, for new connections.
#[derive(Clone)]
pub struct ServerTls {
    inner: Arc<ServerInner>,
}

struct ServerInner {
    /// The configuration new connections get; replaced when the trust collection changes.
    config: ArcSwap<rustls::ServerConfig>,
    cert: Arc<ReloadingCert>,
    trust: Option<TrustFile>,
    alpn: Vec<Vec<u8>>,
    provider: Arc<CryptoProvider>,
    allow_plaintext: bool,
    mutual: bool,
    handshake_timeout: Duration,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls")
            .field("cert", &self.inner.cert)
            .field("trust", &self.inner.trust)
            .field("allow_plaintext", &self.inner.allow_plaintext)
            .field("mutual", &self.inner.mutual)
            .finish()
    }
}

/// A rustls server configuration serving `cert`, checking client certificates against
/// `roots` when given (mutual TLS), offering `alpn`.
fn server_config(
    provider: &Arc<CryptoProvider>,
    roots: Option<RootCertStore>,
    cert: Arc<ReloadingCert>,
    alpn: &[Vec<u8>],
) -> Result<rustls::ServerConfig, TlsError> {
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Invalid {
            key: keys::SERVER_KEY_CERT_CHAIN_PATH,
            reason: e.to_string(),
        })?;
    let builder = match roots {
        Some(roots) => {
            let verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                    .build()
                    .map_err(|e| TlsError::Invalid {
                        key: keys::SERVER_TRUST_CERT_COLLECTION_PATH,
                        reason: e.to_string(),
                    })?;
            builder.with_client_cert_verifier(verifier)
        }
        None => builder.with_no_client_auth(),
    };
    let mut config = builder.with_cert_resolver(cert);
    config.alpn_protocols = alpn.to_vec();
    Ok(config)
}

impl ServerTls {
    /// Loads the certificate, key and trust collection of `settings` and offers `alpn` (in
    /// order of preference; empty: no ALPN). Fails, naming the key and file, when any of them
    /// cannot be used.
    pub fn new(settings: &ServerTlsSettings, alpn: &[&[u8]]) -> Result<Self, TlsError> {
        let provider = provider();
        let cert = Arc::new(ReloadingCert::load(
            CertSide::Server,
            &settings.cert_chain,
            &settings.private_key,
            settings.key_password.clone(),
            settings.reload_interval,
            provider.clone(),
        )?);
        let alpn: Vec<Vec<u8>> = alpn.iter().map(|p| p.to_vec()).collect();
        let (trust, roots) = match &settings.trust {
            Some(path) => {
                let (file, roots) = TrustFile::load(
                    CertSide::Server,
                    keys::SERVER_TRUST_CERT_COLLECTION_PATH,
                    path,
                    settings.reload_interval,
                )?;
                (Some(file), Some(roots))
            }
            None => (None, None),
        };
        let config = server_config(&provider, roots, cert.clone(), &alpn).map_err(|e| {
            match (e, &settings.trust) {
                (TlsError::Invalid { key, reason }, Some(path))
                    if key == keys::SERVER_TRUST_CERT_COLLECTION_PATH =>
                {
                    TlsError::Invalid {
                        key,
                        reason: format!("{}: {reason}", path.display()),
                    }
                }
                (e, _) => e,
            }
        })?;
        let mutual = settings.trust.is_some();
        if mutual && settings.allow_plaintext {
            tracing::warn!("plaintext is not allowed on a port that requires client certificates (mutual TLS); refusing plaintext connections");
        }
        Ok(Self {
            inner: Arc::new(ServerInner {
                config: ArcSwap::from_pointee(config),
                cert,
                trust,
                alpn,
                provider,
                allow_plaintext: settings.allow_plaintext && !mutual,
                mutual,
                handshake_timeout: settings.handshake_timeout,
            }),
        })
    }

    /// Whether plaintext connections are served too.
    pub fn allows_plaintext(&self) -> bool {
        self.inner.allow_plaintext
    }

    /// Whether client certificates are required.
    pub fn is_mutual(&self) -> bool {
        self.inner.mutual
    }

    /// The dates of the certificate served now (for warnings and gauges).
    pub fn certificate_validity(&self) -> Option<Validity> {
        self.inner.cert.validity()
    }

    /// How many times changed certificate files were loaded.
    pub fn reloads(&self) -> u64 {
        self.inner.cert.reloads()
    }

    /// Looks at the certificate, key and trust collection files now (if the reload interval
    /// has passed) rather than at the next handshake; what changed and loads is used for new
    /// connections, what does not load is logged and the previous material kept.
    pub fn refresh(&self) {
        let inner = &self.inner;
        inner.cert.refresh();
        if let Some(trust) = &inner.trust {
            if let Some(config) = trust.refresh(|roots| {
                server_config(
                    &inner.provider,
                    Some(roots),
                    inner.cert.clone(),
                    &inner.alpn,
                )
            }) {
                inner.config.store(Arc::new(config));
            }
        }
    }

    /// Takes a new connection through port unification: waits for its first byte, runs the
    /// TLS handshake when it is one, passes plaintext through when allowed. A connection that
    /// is refused (plaintext where TLS is required, a failed handshake, nothing sent in time)
    /// is logged with the peer's address and closed: `None`.
    pub async fn accept(&self, tcp: TcpStream, peer: SocketAddr) -> Option<Accepted> {
        let ServerInner {
            allow_plaintext,
            mutual,
            handshake_timeout,
            ..
        } = *self.inner;
        let mut first = [0u8; 1];
        let peeked = match tokio::time::timeout(handshake_timeout, tcp.peek(&mut first)).await {
            Ok(Ok(n)) => n,
            Ok(Err(e)) => {
                tracing::debug!(consumer = %peer, error = %e, "connection failed before its first byte");
                return None;
            }
            Err(_) => {
                tracing::info!(consumer = %peer, timeout_ms = handshake_timeout.as_millis() as u64, "connection closed: nothing received in time");
                return None;
            }
        };
        if peeked == 0 {
            return None;
        }
        match sniff(first[0]) {
            FirstByte::Plain if allow_plaintext => Some(Accepted::Plain(tcp)),
            FirstByte::Plain => {
                tracing::warn!(
                    consumer = %peer,
                    first_byte = first[0],
                    mutual,
                    "plaintext connection refused: this port requires TLS (first byte 0x{:02x}, a TLS handshake starts with 0x16)",
                    first[0]
                );
                None
            }
            FirstByte::Tls => {
                // A changed trust collection applies from this handshake on (the certificate
                // is looked at by the handshake itself).
                self.refresh();
                let acceptor = TlsAcceptor::from(self.inner.config.load_full());
                match tokio::time::timeout(handshake_timeout, acceptor.accept(tcp)).await {
                    Ok(Ok(stream)) => {
                        tracing::debug!(consumer = %peer, "TLS handshake done");
                        Some(Accepted::Tls(Box::new(stream)))
                    }
                    Ok(Err(e)) => {
                        if mutual {
                            tracing::warn!(consumer = %peer, error = %e, "TLS handshake failed; connection closed (this port requires a client certificate signed by a CA of {})", keys::SERVER_TRUST_CERT_COLLECTION_PATH);
                        } else {
                            tracing::warn!(consumer = %peer, error = %e, "TLS handshake failed; connection closed");
                        }
                        None
                    }
                    Err(_) => {
                        tracing::warn!(consumer = %peer, "TLS handshake timed out; connection closed");
                        None
                    }
                }
            }
        }
    }
}
