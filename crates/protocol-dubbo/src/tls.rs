//! Which connections of the protocol use TLS: the protocol's TLS configurations, narrowed by a
//! URL's `ssl-enabled`.

use dubbo_core::{ErrorCode, RpcError};
use dubbo_tls::{ClientTls, ServerTls};
use dubbo_url::Url;

/// The URL parameter that turns TLS off (`false`) or demands it (`true`) for one export or
/// reference (Java's `ssl-enabled` protocol key).
pub const SSL_ENABLED: &str = "ssl-enabled";

/// A protocol's TLS for its servers and its clients.
#[derive(Debug, Clone, Default)]
pub(crate) struct ProtocolTls {
    pub(crate) server: Option<ServerTls>,
    pub(crate) client: Option<ClientTls>,
}

impl ProtocolTls {
    /// The TLS of the server `url` binds: the protocol's, unless `ssl-enabled=false`.
    pub(crate) fn server_for(&self, url: &Url) -> Option<ServerTls> {
        if url.parameter(SSL_ENABLED) == Some("false") {
            return None;
        }
        self.server.clone()
    }

    /// The TLS of the client a reference to `url` dials with: the protocol's unless
    /// `ssl-enabled=false`; `ssl-enabled=true` without a client configuration is an error.
    pub(crate) fn client_for(&self, url: &Url) -> Result<Option<ClientTls>, RpcError> {
        match url.parameter(SSL_ENABLED) {
            Some("false") => Ok(None),
            Some("true") if self.client.is_none() => Err(RpcError::framework(
                ErrorCode::Config,
                format!(
                    "{} asks for TLS ({SSL_ENABLED}=true) but no client TLS is configured (set {})",
                    url.address(),
                    dubbo_tls::keys::CLIENT_TRUST_CERT_COLLECTION_PATH
                ),
            )),
            _ => Ok(self.client.clone()),
        }
    }
}
