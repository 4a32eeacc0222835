//! [`TripleProtocol`]: the core [`Protocol`] for `tri://`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use dubbo_core::{BoxFuture, ErrorCode, Exporter, Invoker, Protocol, RpcError};
use dubbo_url::Url;

use crate::client::channel::Inner as ChannelInner;
use crate::client::invoker::TripleInvoker;
use crate::client::{TripleChannel, TripleClient};
use crate::config::TripleConfig;
use crate::server::TripleServer;

/// The URL parameter that turns TLS off (`false`) or demands it (`true`) for one export or
/// reference (Java's `ssl-enabled` protocol key).
pub const SSL_ENABLED: &str = "ssl-enabled";

/// Triple's default port.
pub const DEFAULT_PORT: u16 = 50051;

/// `tri://` as a core [`Protocol`].
///
/// `export` serves an interface-mode invoker (already wrapped in its provider filter chain by
/// the caller) on the port of its URL, sharing one [`TripleServer`] per port;
/// the same server answers IDL services added with [`server_for`](Self::server_for) and the
/// HTTP/1.1 JSON form. `refer` returns a [`TripleInvoker`] (wrapper mode, or IDL mode for calls
/// from generated clients) over a channel shared by every reference to the same `host:port`,
/// whatever else their URLs say. The protocol holds channels weakly: a channel's connection is
/// closed once the last invoker using it is destroyed or dropped, and the next `refer` to that
/// address opens a new one.
pub struct TripleProtocol {
    config: TripleConfig,
    servers: tokio::sync::Mutex<HashMap<String, Arc<TripleServer>>>,
    channels: Mutex<HashMap<String, Weak<ChannelInner>>>,
}

impl Default for TripleProtocol {
    fn default() -> Self {
        Self::new(TripleConfig::default())
    }
}

impl std::fmt::Debug for TripleProtocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TripleProtocol").finish()
    }
}

/// The service key an exported URL serves (shared by every protocol).
pub use dubbo_core::exported_service_key;

fn bind_address(url: &Url) -> String {
    let host = url
        .parameter("bind.ip")
        .or_else(|| (url.parameter("anyhost") == Some("true")).then_some("0.0.0.0"))
        .or_else(|| url.host())
        .unwrap_or("0.0.0.0");
    let port = url
        .parameter("bind.port")
        .and_then(|p| p.parse::<u16>().ok())
        .unwrap_or_else(|| match url.port() {
            0 => DEFAULT_PORT,
            p => p,
        });
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

fn client_address(url: &Url) -> String {
    let host = url.host().unwrap_or("127.0.0.1");
    let port = match url.port() {
        0 => DEFAULT_PORT,
        p => p,
    };
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

impl TripleProtocol {
    /// A protocol whose servers and channels use `config`.
    pub fn new(config: TripleConfig) -> Self {
        Self {
            config,
            servers: tokio::sync::Mutex::new(HashMap::new()),
            channels: Mutex::new(HashMap::new()),
        }
    }

    /// The server for `url`'s bind address, started on first use. Add IDL services to it.
    pub async fn server_for(&self, url: &Url) -> Result<Arc<TripleServer>, RpcError> {
        let addr = bind_address(url);
        let mut servers = self.servers.lock().await;
        if let Some(s) = servers.get(&addr) {
            return Ok(s.clone());
        }
        let sock = tokio::net::lookup_host(&addr)
            .await
            .map_err(|e| {
                RpcError::framework(ErrorCode::Config, format!("bad bind address {addr}: {e}"))
            })?
            .next()
            .ok_or_else(|| {
                RpcError::framework(ErrorCode::Config, format!("bad bind address {addr}"))
            })?;
        let mut config = self.config.clone();
        // `ssl-enabled=false` on the first export of an address keeps its port plaintext.
        if url.parameter(SSL_ENABLED) == Some("false") {
            config.server_tls = None;
        }
        let server = TripleServer::bind(sock, config).await.map_err(|e| {
            RpcError::framework(ErrorCode::Network, format!("cannot bind {addr}: {e}"))
        })?;
        // `accepts` belongs to the bind address: the first export on it sets it, as in Java.
        let accepts = url
            .parameter("accepts")
            .and_then(|a| a.trim().parse::<usize>().ok())
            .unwrap_or(0);
        server.set_accepts(accepts);
        let server = Arc::new(server);
        servers.insert(addr, server.clone());
        Ok(server)
    }

    /// Says on every server of this protocol whether it takes calls, as their
    /// `grpc.health.v1.Health` reports it ([`TripleServer::set_serving`]).
    pub async fn set_serving(&self, serving: bool) {
        for server in self.servers.lock().await.values() {
            server.set_serving(serving);
        }
    }

    /// The channel shared by every reference to `addr` (`host:port`) while one is in use; a
    /// new (lazy) channel when none is.
    pub fn channel_for(&self, addr: &str) -> TripleChannel {
        self.channel_with(addr, self.config.clone())
    }

    /// The shared channel to `addr` with `config` (TLS and plaintext channels to one address
    /// are kept apart).
    fn channel_with(&self, addr: &str, config: TripleConfig) -> TripleChannel {
        let key = if config.client_tls.is_some() {
            format!("tls:{addr}")
        } else {
            addr.to_owned()
        };
        let Ok(mut channels) = self.channels.lock() else {
            return TripleChannel::lazy(addr, config);
        };
        if let Some(c) = channels.get(&key).and_then(TripleChannel::upgrade) {
            if !c.is_closed() {
                return c;
            }
        }
        channels.retain(|_, w| w.strong_count() > 0);
        let c = TripleChannel::lazy(addr, config);
        channels.insert(key, c.downgrade());
        c
    }

    /// The client settings of a reference to `url`: the protocol's, without TLS when the URL
    /// says `ssl-enabled=false`; `ssl-enabled=true` without client TLS is an error.
    fn client_config(&self, url: &Url) -> Result<TripleConfig, RpcError> {
        let mut config = self.config.clone();
        if !client_uses_tls(url, config.client_tls.is_some())? {
            config.client_tls = None;
        }
        Ok(config)
    }

    /// How many channels are in use (held by some invoker or client), for monitoring.
    pub fn open_channels(&self) -> usize {
        self.channels
            .lock()
            .map(|c| c.values().filter(|w| w.strong_count() > 0).count())
            .unwrap_or(0)
    }
}

/// Whether a reference to `url` dials TLS, by its `ssl-enabled`: `false` plaintext, `true`
/// TLS (an error without client TLS configured), unset whether client TLS is configured
/// (every connection of an application with it uses TLS). Triple and `rest://` references
/// decide alike.
pub(crate) fn client_uses_tls(url: &Url, configured: bool) -> Result<bool, RpcError> {
    match url.parameter(SSL_ENABLED).map(str::trim) {
        Some("false") => Ok(false),
        Some("true") if !configured => Err(RpcError::framework(
            ErrorCode::Config,
            format!(
                "{} asks for TLS ({SSL_ENABLED}=true) but no client TLS is configured (set {})",
                url.address(),
                dubbo_tls::keys::CLIENT_TRUST_CERT_COLLECTION_PATH
            ),
        )),
        Some("true") => Ok(true),
        _ => Ok(configured),
    }
}

impl Protocol for TripleProtocol {
    fn name(&self) -> &'static str {
        "tri"
    }

    fn default_port(&self) -> u16 {
        DEFAULT_PORT
    }

    fn export(
        &self,
        url: Url,
        invoker: Arc<dyn Invoker>,
    ) -> BoxFuture<'_, Result<Exporter, RpcError>> {
        Box::pin(async move {
            let server = self.server_for(&url).await?;
            let bound = server.local_addr();
            let exporter = server.exporters().export(url, invoker, bound.port())?;
            tracing::info!(service = %exporter.key(), address = %bound, "exported over tri://");
            Ok(exporter)
        })
    }

    fn export_rest<'a>(
        &'a self,
        url: &'a Url,
        rest: &'static dubbo_core::rest::RestService,
    ) -> BoxFuture<'a, Result<(), RpcError>> {
        Box::pin(async move {
            let server = self.server_for(url).await?;
            let key = dubbo_core::exported_service_key(url);
            server
                .add_rest(&key, rest)
                .map_err(|e| RpcError::framework(ErrorCode::Config, e))
        })
    }

    fn refer(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>> {
        Box::pin(async move {
            let addr = client_address(&url);
            let channel = self.channel_with(&addr, self.client_config(&url)?);
            // Connects now unless `lazy`; with `check` (the default) an unreachable provider
            // fails the refer, with `check=false` calls fail until it is up, as in Java.
            if !url.parameter_bool_or("lazy", false) {
                if let Err(status) = channel.ensure_connected().await {
                    if url.parameter_bool_or("check", true) {
                        return Err(RpcError::framework(
                            ErrorCode::Network,
                            format!("cannot connect to provider {addr}: {}", status.message()),
                        ));
                    }
                    tracing::warn!(address = %addr, "provider not reachable; check=false, referring anyway");
                }
            }
            let invoker: Arc<dyn Invoker> =
                Arc::new(TripleInvoker::new(url, TripleClient::new(channel)));
            Ok(invoker)
        })
    }

    fn shutdown(&self, grace: Duration) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let servers: Vec<Arc<TripleServer>> =
                self.servers.lock().await.drain().map(|(_, s)| s).collect();
            futures::future::join_all(servers.iter().map(|s| s.shutdown(grace))).await;
            let channels: Vec<TripleChannel> = self
                .channels
                .lock()
                .map(|mut c| {
                    c.drain()
                        .filter_map(|(_, w)| TripleChannel::upgrade(&w))
                        .collect()
                })
                .unwrap_or_default();
            for c in channels {
                c.close().await;
            }
        })
    }
}
