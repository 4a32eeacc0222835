//! `--tls-ca FILE [--tls-cert FILE --tls-key FILE]`: the TLS a `dubbo` command dials providers
//! with, the flags the interop programs take (CONTRACT.md §5) and grpcurl's `-cacert`, `-cert`,
//! `-key` under the project's names. Without `--tls-ca` every connection is plaintext.

use std::path::PathBuf;

use dubbo_rs::config::SslConfig;
use dubbo_rs::protocol_triple::TripleConfig;
use dubbo_rs::tls::{ClientTls, ClientTlsSettings, ALPN_H2};

use crate::dubbo::CliError;

/// The TLS flags of one command; all `None` dials plaintext.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsFlags {
    /// `--tls-ca`: the CA certificates (PEM) the provider's certificate must chain to.
    pub ca: Option<PathBuf>,
    /// `--tls-cert`: the client certificate chain (PEM) to present, for mutual TLS.
    pub cert: Option<PathBuf>,
    /// `--tls-key`: the private key (PEM) of `--tls-cert`.
    pub key: Option<PathBuf>,
}

impl TlsFlags {
    /// Whether TLS is asked for.
    pub fn enabled(&self) -> bool {
        self.ca.is_some()
    }

    /// The flags checked: a certificate needs its key and the CA, and the other way round.
    pub fn checked(self) -> Result<Self, CliError> {
        match (&self.ca, &self.cert, &self.key) {
            (_, Some(_), None) | (_, None, Some(_)) => Err(CliError::bad(
                "--tls-cert/--tls-key",
                "a client certificate and its key go together",
            )),
            (None, Some(_), Some(_)) => Err(CliError::bad(
                "--tls-cert",
                "a client certificate needs --tls-ca, the CA that signs the provider's certificate",
            )),
            _ => Ok(self),
        }
    }

    /// The application's `dubbo.ssl` for generic calls (dubbo:// and tri://), `None` without
    /// TLS.
    pub fn ssl(&self) -> Option<SslConfig> {
        let text = |p: &Option<PathBuf>| p.as_ref().map(|p| p.to_string_lossy().into_owned());
        self.ca.as_ref()?;
        Some(SslConfig {
            client_trust_cert_collection_path: text(&self.ca),
            client_key_cert_chain_path: text(&self.cert),
            client_private_key_path: text(&self.key),
            ..SslConfig::default()
        })
    }

    /// The Triple channel settings for reflection and IDL calls: TLS offering ALPN `h2` when
    /// asked for.
    pub fn triple_config(&self) -> Result<TripleConfig, CliError> {
        let mut config = TripleConfig::default();
        if let Some(ca) = &self.ca {
            let mut settings = ClientTlsSettings::new(ca.clone());
            if let (Some(cert), Some(key)) = (&self.cert, &self.key) {
                settings = settings.with_identity(cert.clone(), key.clone());
            }
            config.client_tls = Some(ClientTls::new(&settings, &[ALPN_H2])?);
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(ca: Option<&str>, cert: Option<&str>, key: Option<&str>) -> TlsFlags {
        TlsFlags {
            ca: ca.map(PathBuf::from),
            cert: cert.map(PathBuf::from),
            key: key.map(PathBuf::from),
        }
    }

    #[test]
    fn pairs_are_checked() {
        assert!(flags(None, None, None).checked().is_ok());
        assert!(flags(Some("ca"), None, None).checked().is_ok());
        assert!(flags(Some("ca"), Some("c"), Some("k")).checked().is_ok());
        assert!(flags(Some("ca"), Some("c"), None).checked().is_err());
        assert!(flags(Some("ca"), None, Some("k")).checked().is_err());
        assert!(flags(None, Some("c"), Some("k")).checked().is_err());
    }

    #[test]
    fn ssl_settings_follow_the_flags() {
        assert!(flags(None, None, None).ssl().is_none());
        let ssl = flags(Some("ca.pem"), Some("c.pem"), Some("k.pem"))
            .ssl()
            .unwrap();
        assert_eq!(
            ssl.client_trust_cert_collection_path.as_deref(),
            Some("ca.pem")
        );
        assert_eq!(ssl.client_key_cert_chain_path.as_deref(), Some("c.pem"));
        assert_eq!(ssl.client_private_key_path.as_deref(), Some("k.pem"));
        assert!(flags(None, None, None)
            .triple_config()
            .unwrap()
            .client_tls
            .is_none());
        let missing = flags(Some("/nonexistent/ca.pem"), None, None).triple_config();
        assert!(matches!(missing, Err(CliError::Tls(_))));
    }
}
