//! The application's TLS (`dubbo.ssl`), loaded at start from the configuration's settings:
//! what the dubbo:// and tri:// servers and clients of the application use. Each piece re-reads
//! its files when they change (`cert-reload-interval`).

use crate::config::ConfigError;
use crate::config::DubboConfig;

/// The application's TLS, loaded at start: the ports' server TLS for each protocol (ALPN
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
    /// `cert-reload-interval`: how often the files are looked at.
    reload_interval: std::time::Duration,
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

    /// What a protocol named `name` (canonical: `dubbo`, `tri`, `rest`) is created with;
    /// nothing for other protocols (their ALPN and framing are not known here). `rest` (a
    /// consumer only) gets the tri clients' TLS, whose ALPN it sets per connection.
    pub(crate) fn for_protocol(&self, name: &str) -> crate::ProtocolTls {
        let (server, client) = match name {
            "dubbo" => (&self.dubbo_server, &self.dubbo_client),
            "tri" => (&self.tri_server, &self.tri_client),
            "rest" => (&None, &self.tri_client),
            _ => return crate::ProtocolTls::default(),
        };
        crate::ProtocolTls {
            server: server.clone(),
            client: client.clone(),
        }
    }

    /// The client TLS of each protocol that has one.
    pub(crate) fn clients(&self) -> Vec<(&'static str, &dubbo_tls::ClientTls)> {
        [("dubbo", &self.dubbo_client), ("tri", &self.tri_client)]
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
        let mut tls = AppTls {
            reload_interval: ssl.cert_reload_interval.map_or(
                dubbo_tls::settings::DEFAULT_RELOAD_INTERVAL,
                std::time::Duration::from_millis,
            ),
            ..AppTls::default()
        };
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

impl AppTls {
    /// Looks at every file now (each piece only if its interval has passed); what changed and
    /// loads is used by new connections, and is logged.
    pub(crate) fn refresh(&self) {
        for (_, server) in self.servers() {
            server.refresh();
        }
        for (_, client) in self.clients() {
            client.refresh();
        }
    }

    /// Looks at the files every `cert-reload-interval` in a background task of `app`, so a
    /// change is loaded (and logged, and shown by the gauges) when it happens rather than at
    /// the next connection, which may be long in coming when connections last. Without a Tokio
    /// runtime at start, or with reloading off, changes are still picked up by new connections.
    pub(crate) fn watch(&self, app: &crate::Application) {
        if self.reload_interval.is_zero()
            || (self.servers().is_empty() && self.clients().is_empty())
            || tokio::runtime::Handle::try_current().is_err()
        {
            return;
        }
        let tls = self.clone();
        app.tasks().spawn("tls reload", move |cancel| async move {
            let mut tick = tokio::time::interval(tls.reload_interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = cancel.cancelled() => return,
                    _ = tick.tick() => tls.refresh(),
                }
            }
        });
    }
}
