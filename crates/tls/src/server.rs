//! The server side: one port that serves TLS and, when allowed, plaintext, told apart by the
//! connection's first byte (port unification, as Java Dubbo's does).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use rustls::server::WebPkiClientVerifier;
use tokio::net::TcpStream;
use tokio_rustls::TlsAcceptor;

use crate::error::TlsError;
use crate::reload::ReloadingCert;
use crate::settings::ServerTlsSettings;
use crate::validity::Validity;
use crate::{keys, pem, provider};

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

/// A server's TLS, shared by every connection of one port.
#[derive(Clone)]
pub struct ServerTls {
    acceptor: TlsAcceptor,
    cert: Arc<ReloadingCert>,
    allow_plaintext: bool,
    mutual: bool,
    handshake_timeout: Duration,
}

impl std::fmt::Debug for ServerTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerTls")
            .field("cert", &self.cert)
            .field("allow_plaintext", &self.allow_plaintext)
            .field("mutual", &self.mutual)
            .finish()
    }
}

impl ServerTls {
    /// Loads the certificate, key and trust collection of `settings` and offers `alpn` (in
    /// order of preference; empty: no ALPN). Fails, naming the key and file, when any of them
    /// cannot be used.
    pub fn new(settings: &ServerTlsSettings, alpn: &[&[u8]]) -> Result<Self, TlsError> {
        let provider = provider();
        let cert = Arc::new(ReloadingCert::load(
            &settings.cert_chain,
            &settings.private_key,
            settings.key_password.clone(),
            settings.reload_interval,
            provider.clone(),
        )?);
        let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Invalid {
                key: keys::SERVER_KEY_CERT_CHAIN_PATH,
                reason: e.to_string(),
            })?;
        let builder = match &settings.trust {
            Some(trust) => {
                let roots = pem::load_roots(trust, keys::SERVER_TRUST_CERT_COLLECTION_PATH)?;
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                        .build()
                        .map_err(|e| TlsError::Invalid {
                            key: keys::SERVER_TRUST_CERT_COLLECTION_PATH,
                            reason: format!("{}: {e}", trust.display()),
                        })?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let mut config = builder.with_cert_resolver(cert.clone());
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        let mutual = settings.trust.is_some();
        if mutual && settings.allow_plaintext {
            tracing::warn!("plaintext is not allowed on a port that requires client certificates (mutual TLS); refusing plaintext connections");
        }
        Ok(Self {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            cert,
            allow_plaintext: settings.allow_plaintext && !mutual,
            mutual,
            handshake_timeout: settings.handshake_timeout,
        })
    }

    /// Whether plaintext connections are served too.
    pub fn allows_plaintext(&self) -> bool {
        self.allow_plaintext
    }

    /// Whether client certificates are required.
    pub fn is_mutual(&self) -> bool {
        self.mutual
    }

    /// The dates of the certificate served now (for warnings and gauges).
    pub fn certificate_validity(&self) -> Option<Validity> {
        self.cert.validity()
    }

    /// How many times changed certificate files were loaded.
    pub fn reloads(&self) -> u64 {
        self.cert.reloads()
    }

    /// Looks at the certificate files now (if the reload interval has passed) rather than at
    /// the next handshake.
    pub fn refresh(&self) {
        self.cert.refresh();
    }

    /// Takes a new connection through port unification: waits for its first byte, runs the
    /// TLS handshake when it is one, passes plaintext through when allowed. A connection that
    /// is refused (plaintext where TLS is required, a failed handshake, nothing sent in time)
    /// is logged with the peer's address and closed: `None`.
    pub async fn accept(&self, tcp: TcpStream, peer: SocketAddr) -> Option<Accepted> {
        let mut first = [0u8; 1];
        let peeked = match tokio::time::timeout(self.handshake_timeout, tcp.peek(&mut first)).await
        {
            Ok(Ok(n)) => n,
            Ok(Err(e)) => {
                tracing::debug!(consumer = %peer, error = %e, "connection failed before its first byte");
                return None;
            }
            Err(_) => {
                tracing::info!(consumer = %peer, timeout_ms = self.handshake_timeout.as_millis() as u64, "connection closed: nothing received in time");
                return None;
            }
        };
        if peeked == 0 {
            return None;
        }
        match sniff(first[0]) {
            FirstByte::Plain if self.allow_plaintext => Some(Accepted::Plain(tcp)),
            FirstByte::Plain => {
                tracing::warn!(
                    consumer = %peer,
                    first_byte = first[0],
                    mutual = self.mutual,
                    "plaintext connection refused: this port requires TLS (first byte 0x{:02x}, a TLS handshake starts with 0x16)",
                    first[0]
                );
                None
            }
            FirstByte::Tls => {
                match tokio::time::timeout(self.handshake_timeout, self.acceptor.accept(tcp)).await
                {
                    Ok(Ok(stream)) => {
                        tracing::debug!(consumer = %peer, "TLS handshake done");
                        Some(Accepted::Tls(Box::new(stream)))
                    }
                    Ok(Err(e)) => {
                        if self.mutual {
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
