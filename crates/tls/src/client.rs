//! The client side: TLS over a connected TCP stream, checking the server's certificate against
//! the configured CAs and the dialled host.

use std::sync::Arc;

use rustls_pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::error::TlsError;
use crate::settings::ClientTlsSettings;
use crate::validity::check_chain;
use crate::{keys, pem, provider};

/// A client's TLS, shared by every connection it opens.
#[derive(Clone)]
pub struct ClientTls {
    connector: TlsConnector,
}

impl std::fmt::Debug for ClientTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientTls").finish_non_exhaustive()
    }
}

impl ClientTls {
    /// Loads the trust collection (required) and the client's certificate and key (optional,
    /// both or neither) of `settings`, offering `alpn` (empty: no ALPN).
    pub fn new(settings: &ClientTlsSettings, alpn: &[&[u8]]) -> Result<Self, TlsError> {
        let provider = provider();
        let Some(trust) = &settings.trust else {
            return Err(TlsError::Invalid {
                key: keys::CLIENT_TRUST_CERT_COLLECTION_PATH,
                reason:
                    "a TLS client needs the CA certificates that sign its servers' certificates"
                        .into(),
            });
        };
        let roots = pem::load_roots(trust, keys::CLIENT_TRUST_CERT_COLLECTION_PATH)?;
        let builder = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| TlsError::Invalid {
                key: keys::CLIENT_TRUST_CERT_COLLECTION_PATH,
                reason: e.to_string(),
            })?
            .with_root_certificates(roots);
        let mut config = match (&settings.cert_chain, &settings.private_key) {
            (Some(chain_path), Some(key_path)) => {
                let chain = pem::load_certs(chain_path, keys::CLIENT_KEY_CERT_CHAIN_PATH)?;
                check_chain(
                    &chain,
                    chain_path,
                    keys::CLIENT_KEY_CERT_CHAIN_PATH,
                    std::time::SystemTime::now(),
                );
                let key = pem::load_key(
                    key_path,
                    keys::CLIENT_PRIVATE_KEY_PATH,
                    settings.key_password.as_deref(),
                    keys::CLIENT_KEY_PASSWORD,
                )?;
                builder
                    .with_client_auth_cert(chain, key)
                    .map_err(|e| TlsError::Invalid {
                        key: keys::CLIENT_PRIVATE_KEY_PATH,
                        reason: format!(
                            "{} does not go with {}: {e}",
                            key_path.display(),
                            chain_path.display()
                        ),
                    })?
            }
            (None, None) => builder.with_no_client_auth(),
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
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(Self {
            connector: TlsConnector::from(Arc::new(config)),
        })
    }

    /// Runs the TLS handshake over `tcp`, checking the server's certificate for the host of
    /// `address` (`host:port`, `[v6]:port`; an IP address must be among the certificate's IP
    /// subject alternative names, a name among its DNS names).
    pub async fn connect(
        &self,
        address: &str,
        tcp: TcpStream,
    ) -> std::io::Result<tokio_rustls::client::TlsStream<TcpStream>> {
        let host = host_of(address);
        let name = ServerName::try_from(host.to_owned()).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{host:?} is not a host name TLS can check: {e}"),
            )
        })?;
        self.connector.connect(name, tcp).await.map_err(|e| {
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
