//! The client side: TLS over a connected TCP stream, checking the server's certificate against
//! the configured CAs and the dialled host.

use std::sync::Arc;

use arc_swap::ArcSwap;
use rustls::crypto::CryptoProvider;
use rustls::RootCertStore;
use rustls_pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::error::TlsError;
use crate::reload::{CertSide, ReloadingCert};
use crate::settings::ClientTlsSettings;
use crate::trust::TrustFile;
use crate::validity::Validity;
use crate::{keys, provider};

/// A client's TLS, shared by every connection it opens. Its trust collection and its own
/// certificate are re-read when their files change, for new connections.
#[derive(Clone)]
pub struct ClientTls {
    inner: Arc<ClientInner>,
}

struct ClientInner {
    /// The configuration new connections get; replaced when the trust collection changes.
    config: ArcSwap<rustls::ClientConfig>,
    trust: TrustFile,
    cert: Option<Arc<ReloadingCert>>,
    alpn: Vec<Vec<u8>>,
    provider: Arc<CryptoProvider>,
}

impl std::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTls")
            .field("trust", &self.inner.trust)
            .field("cert", &self.inner.cert)
            .finish()
    }
}

/// A rustls client configuration trusting `roots`, presenting `cert` when a server asks,
/// offering `alpn`.
fn client_config(
    provider: &Arc<CryptoProvider>,
    roots: RootCertStore,
    cert: Option<Arc<ReloadingCert>>,
    alpn: &[Vec<u8>],
) -> Result<rustls::ClientConfig, TlsError> {
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Invalid {
            key: keys::CLIENT_TRUST_CERT_COLLECTION_PATH,
            reason: e.to_string(),
        })?
        .with_root_certificates(roots);
    let mut config = match cert {
        Some(cert) => builder.with_client_cert_resolver(cert),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = alpn.to_vec();
    Ok(config)
}

impl ClientTls {
    /// Loads the trust collection (required) and the client's certificate and key (optional,
    /// both or neither) of `settings`, offering `alpn` (empty: no ALPN).
    pub fn new(settings: &ClientTlsSettings, alpn: &[&[u8]]) -> Result<Self, TlsError> {
        let provider = provider();
        let Some(trust_path) = &settings.trust else {
            return Err(TlsError::Invalid {
                key: keys::CLIENT_TRUST_CERT_COLLECTION_PATH,
                reason:
                    "a TLS client needs the CA certificates that sign its servers' certificates"
                        .into(),
            });
        };
        let (trust, roots) = TrustFile::load(
            CertSide::Client,
            keys::CLIENT_TRUST_CERT_COLLECTION_PATH,
            trust_path,
            settings.reload_interval,
        )?;
        let cert = match (&settings.cert_chain, &settings.private_key) {
            (Some(chain_path), Some(key_path)) => Some(Arc::new(ReloadingCert::load(
                CertSide::Client,
                chain_path,
                key_path,
                settings.key_password.clone(),
                settings.reload_interval,
                provider.clone(),
            )?)),
            (None, None) => None,
            (Some(_), None) => {
                return Err(TlsError::Invalid {
                    key: keys::CLIENT_PRIVATE_KEY_PATH,
                    reason: format!("required with {}", keys::CLIENT_KEY_CERT_CHAIN_PATH),
                })
            }
            (None, Some(_)) => {
                return Err(TlsError::Invalid {
                    key: keys::CLIENT_KEY_CERT_CHAIN_PATH,
                    reason: format!("required with {}", keys::CLIENT_PRIVATE_KEY_PATH),
                })
            }
        };
        let alpn: Vec<Vec<u8>> = alpn.iter().map(|p| p.to_vec()).collect();
        let config = client_config(&provider, roots, cert.clone(), &alpn)?;
        Ok(Self {
            inner: Arc::new(ClientInner {
                config: ArcSwap::from_pointee(config),
                trust,
                cert,
                alpn,
                provider,
            }),
        })
    }

    /// The dates of the client certificate presented now, if there is one.
    pub fn certificate_validity(&self) -> Option<Validity> {
        self.inner.cert.as_ref()?.validity()
    }

    /// How many times changed client certificate files were loaded.
    pub fn reloads(&self) -> u64 {
        self.inner.cert.as_ref().map_or(0, |c| c.reloads())
    }

    /// Looks at the trust collection and the client's certificate files now (if the reload
    /// interval has passed) rather than at the next connection; what changed and loads is used
    /// for new connections, what does not load is logged and the previous material kept.
    pub fn refresh(&self) {
        let inner = &self.inner;
        if let Some(cert) = &inner.cert {
            cert.refresh();
        }
        if let Some(config) = inner
            .trust
            .refresh(|roots| client_config(&inner.provider, roots, inner.cert.clone(), &inner.alpn))
        {
            inner.config.store(Arc::new(config));
        }
    }

    /// Runs the TLS handshake over `tcp`, checking the server's certificate for the host of
    /// `address` (`host:port`, `[v6]:port`; an IP address must be among the certificate's IP
    /// subject alternative names, a name among its DNS names).
    pub async fn connect(
        &self,
        address: &str,
        tcp: TcpStream,
    ) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
        self.handshake(address, tcp, None).await
    }

    /// As [`connect`](Self::connect), offering `alpn` in place of the ALPN this client was
    /// made with (a client of several HTTP versions chooses per connection).
    pub async fn connect_with_alpn(
        &self,
        address: &str,
        tcp: TcpStream,
        alpn: &[&[u8]],
    ) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
        self.handshake(address, tcp, Some(alpn)).await
    }

    async fn handshake(
        &self,
        address: &str,
        tcp: TcpStream,
        alpn: Option<&[&[u8]]>,
    ) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
        let host = host_of(address);
        let name = ServerName::try_from(host.to_owned()).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{host:?} is not a host name TLS can check: {e}"),
            )
        })?;
        // Changed files apply from this connection on.
        self.refresh();
        let mut config = self.inner.config.load_full();
        if let Some(alpn) = alpn {
            let mut own = (*config).clone();
            own.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
            config = Arc::new(own);
        }
        let connector = TlsConnector::from(config);
        connector.connect(name, tcp).await.map_err(|e| {
            std::io::Error::new(e.kind(), format!("TLS handshake with {address}: {e}"))
        })
    }
}

/// The host part of `host:port` or `[v6]:port`; an IPv4-mapped IPv6 address
/// (`::ffff:127.0.0.1`, as Java providers register themselves) becomes its IPv4 address, which
/// is what certificates name.
pub fn host_of(address: &str) -> &str {
    let host = if let Some(rest) = address.strip_prefix('[') {
        rest.split(']').next().unwrap_or(rest)
    } else {
        match address.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') && p.parse::<u16>().is_ok() => h,
            _ => address,
        }
    };
    host.strip_prefix("::ffff:")
        .filter(|v4| v4.parse::<std::net::Ipv4Addr>().is_ok())
        .unwrap_or(host)
}
