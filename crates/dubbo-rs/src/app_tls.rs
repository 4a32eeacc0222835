//! The application's TLS (`dubbo.ssl`), loaded once at start from the configuration's
//! settings: what the dubbo:// and tri:// servers and clients of the application use.

use crate::config::ConfigError;
use crate::config::DubboConfig;

/// The application's TLS, loaded once at start: the ports' server TLS for each protocol (ALPN
/// differs) and the client TLS of each protocol.
#[derive(Debug, Clone, Default)]
pub(crate) struct AppTls {
    /// dubbo:// servers (no ALPN).
    pub(crate) dubbo_server: Option<dubbo_tls::ServerTls>,
    /// dubbo:// clients (no ALPN).
    pub(crate) dubbo_client: Option<dubbo_tls::ClientTls>,
    /// tri:// servers (ALPN `h2`, `http/1.1`).
    pub(crate) tri_server: Option<dubbo_tls::ServerTls>,
    /// tri:// clients (ALPN `h2`).
    pub(crate) tri_client: Option<dubbo_tls::ClientTls>,
}

fn tls_error(e: dubbo_tls::TlsError) -> ConfigError {
    ConfigError::invalid(e.key(), e.to_string())
}

impl AppTls {
    /// The server TLS of each protocol that has one.
    pub(crate) fn servers(&self) -> Vec<(&'static str, &dubbo_tls::ServerTls)> {
        [("dubbo", &self.dubbo_server), ("tri", &self.tri_server)]
            .into_iter()
            .filter_map(|(p, t)| Some((p, t.as_ref()?)))
            .collect()
    }

    /// Loads every certificate and key `dubbo.ssl` names; a file that cannot be used fails the
    /// start with an error naming its key. Expired or not yet valid certificates are logged.
    pub(crate) fn load(config: &DubboConfig) -> Result<AppTls, ConfigError> {
        let Some(ssl) = &config.ssl else {
            return Ok(AppTls::default());
        };
        let mut tls = AppTls::default();
        if let Some(s) = ssl.server_settings()? {
            tls.dubbo_server = Some(dubbo_tls::ServerTls::new(&s, &[]).map_err(tls_error)?);
            tls.tri_server = Some(
                dubbo_tls::ServerTls::new(&s, &[dubbo_tls::ALPN_H2, dubbo_tls::ALPN_HTTP1])
                    .map_err(tls_error)?,
            );
        }
        if let Some(c) = ssl.client_settings()? {
            tls.dubbo_client = Some(dubbo_tls::ClientTls::new(&c, &[]).map_err(tls_error)?);
            tls.tri_client =
                Some(dubbo_tls::ClientTls::new(&c, &[dubbo_tls::ALPN_H2]).map_err(tls_error)?);
        }
        Ok(tls)
    }
}
