//! [`DubboProtocol`]: core's [`Protocol`] for dubbo://.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use dubbo_core::{BoxFuture, ErrorCode, ExportTable, Exporter, Invoker, Protocol, RpcError};
use dubbo_url::Url;

use crate::config::{ClientConfig, ServerConfig};
use crate::exchange::client::{ClientInner, DubboClient};
use crate::exchange::server::DubboServer;
use crate::invoker::{client_address, DubboInvoker};

/// The default dubbo:// port.
pub const DEFAULT_PORT: u16 = 20880;

/// dubbo:// as a [`Protocol`]: one [`DubboServer`] per bind address shared by every service
/// exported on it, and one shared [`DubboClient`] per provider address for every invoker that
/// refers to it (unless the URL asks for dedicated `connections`).
///
/// **Provider filters.** [`export`](Protocol::export) serves the invoker as given: the
/// application wraps it in the provider filter chain it selects from the framework's
/// extension table (echo, generic, token, ...). Code that uses the protocol alone wraps it with
/// [`dubbo_core::FilterChain`]. [`DubboServer`] and an [`ExportTable`] can be used directly.
///
/// **Bind address.** `bind.ip`/`bind.port` when present, else the URL's host and port
/// (`anyhost=true` binds `0.0.0.0`); a URL without a port (port `0`) binds 20880. `bind.port=0`
/// picks a free port; [`server_addr`](Self::server_addr) tells which, and so does the
/// exporter's URL: its `bind.port` is the bound port, and so is its port unless the URL named
/// another one to advertise.
///
/// **TLS** ([`with_tls`](Self::with_tls)). Servers serve TLS when the protocol has a server
/// TLS configuration, unless the first URL exported on the address says `ssl-enabled=false`.
/// Clients dial TLS when the protocol has a client TLS configuration, unless the reference's
/// URL says `ssl-enabled=false`; a URL that says `ssl-enabled=true` without one fails to refer.
#[derive(Default)]
pub struct DubboProtocol {
    tls: crate::tls::ProtocolTls,
    servers: Mutex<HashMap<String, Arc<DubboServer>>>,
    binding: tokio::sync::Mutex<()>,
    clients: Mutex<HashMap<String, Weak<ClientInner>>>,
    dedicated: Mutex<Vec<Weak<ClientInner>>>,
}

impl std::fmt::Debug for DubboProtocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers: Vec<String> = self
            .servers
            .lock()
            .map(|s| s.keys().cloned().collect())
            .unwrap_or_default();
        f.debug_struct("DubboProtocol")
            .field("servers", &servers)
            .finish()
    }
}

impl DubboProtocol {
    /// A protocol with no server and no client yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A protocol whose servers use `server` and whose clients use `client` for TLS.
    pub fn with_tls(
        server: Option<dubbo_tls::ServerTls>,
        client: Option<dubbo_tls::ClientTls>,
    ) -> Self {
        Self {
            tls: crate::tls::ProtocolTls { server, client },
            ..Self::default()
        }
    }

    /// The address actually bound for the server `url` exports on, once it is open.
    pub fn server_addr(&self, url: &Url) -> Option<SocketAddr> {
        let key = bind_address(url);
        self.servers.lock().ok()?.get(&key).map(|s| s.local_addr())
    }

    /// Every open server.
    pub fn servers(&self) -> Vec<Arc<DubboServer>> {
        self.servers
            .lock()
            .map(|s| s.values().cloned().collect())
            .unwrap_or_default()
    }

    async fn server_for(&self, url: &Url) -> Result<Arc<DubboServer>, RpcError> {
        let key = bind_address(url);
        let _bind = self.binding.lock().await;
        if let Some(s) = self.servers.lock().ok().and_then(|s| s.get(&key).cloned()) {
            if !s.is_shutting_down() {
                return Ok(s);
            }
        }
        let mut config = ServerConfig::from_url(url);
        config.tls = self.tls.server_for(url);
        let server = DubboServer::bind(key.as_str(), config, ExportTable::new())
            .await
            .map_err(|e| {
                RpcError::framework(
                    ErrorCode::Network,
                    format!("Fail to start server on {key}: {e}"),
                )
            })?;
        let server = Arc::new(server);
        if let Ok(mut s) = self.servers.lock() {
            s.insert(key, server.clone());
        }
        Ok(server)
    }

    fn shared_client(&self, address: &str, config: ClientConfig) -> DubboClient {
        let Ok(mut clients) = self.clients.lock() else {
            return DubboClient::new(address, config);
        };
        // A TLS and a plaintext reference to one address do not share connections.
        let key = if config.tls.is_some() {
            format!("tls:{address}")
        } else {
            address.to_owned()
        };
        if let Some(c) = clients.get(&key).and_then(DubboClient::upgrade) {
            if !c.is_closed() {
                return c;
            }
        }
        clients.retain(|_, w| w.strong_count() > 0);
        let c = DubboClient::new(address, config);
        clients.insert(key, c.downgrade());
        c
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
    let port = match url
        .parameter("bind.port")
        .and_then(|p| p.parse::<u16>().ok())
    {
        Some(p) => p,
        None => match url.port() {
            0 => DEFAULT_PORT,
            p => p,
        },
    };
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

impl Protocol for DubboProtocol {
    fn name(&self) -> &'static str {
        "dubbo"
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
            let exporter = server.exports().export(url, invoker, bound.port())?;
            tracing::info!(service = %exporter.key(), address = %bound, "exported over dubbo://");
            Ok(exporter)
        })
    }

    fn refer(&self, url: Url) -> BoxFuture<'_, Result<Arc<dyn Invoker>, RpcError>> {
        Box::pin(async move {
            let address = client_address(&url);
            let mut config = ClientConfig::from_url(&url);
            config.tls = self.tls.client_for(&url)?;
            let lazy = config.lazy;
            let dedicated = url
                .parameter("connections")
                .and_then(|c| c.parse::<usize>().ok())
                .is_some_and(|n| n > 0);
            let client = if dedicated {
                let c = DubboClient::new(address.clone(), config);
                if let Ok(mut d) = self.dedicated.lock() {
                    d.retain(|w| w.strong_count() > 0);
                    d.push(c.downgrade());
                }
                c
            } else {
                self.shared_client(&address, config)
            };
            if !lazy {
                if let Err(e) = client.ensure_connected().await {
                    // `check=false`: the reference is made anyway and calls fail until the
                    // provider is up (the client reconnects on the next call), as in Java.
                    if url.parameter_bool_or("check", true) {
                        return Err(e);
                    }
                    tracing::warn!(address = %address, error = %e, "provider not reachable; check=false, referring anyway");
                }
            }
            let invoker: Arc<dyn Invoker> = Arc::new(DubboInvoker::new(url, client));
            Ok(invoker)
        })
    }

    fn connections(&self, port: u16) -> Option<Vec<(SocketAddr, SocketAddr)>> {
        let servers = self.servers.lock().ok()?;
        let server = servers.values().find(|s| s.local_addr().port() == port)?;
        Some(server.connections())
    }

    fn thread_pools(&self) -> Vec<dubbo_core::ThreadPoolStats> {
        let servers: Vec<Arc<DubboServer>> = self
            .servers
            .lock()
            .map(|s| s.values().cloned().collect())
            .unwrap_or_default();
        servers.iter().map(|s| s.thread_pool()).collect()
    }

    fn readonly(&self) -> BoxFuture<'_, ()> {
        let servers: Vec<Arc<DubboServer>> = self
            .servers
            .lock()
            .map(|s| s.values().cloned().collect())
            .unwrap_or_default();
        for server in servers {
            server.send_readonly();
        }
        Box::pin(async {})
    }

    fn shutdown(&self, grace: Duration) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let servers: Vec<Arc<DubboServer>> = self
                .servers
                .lock()
                .map(|mut s| s.drain().map(|(_, v)| v).collect())
                .unwrap_or_default();
            futures::future::join_all(servers.iter().map(|s| s.shutdown(grace))).await;
            let mut clients: Vec<DubboClient> = self
                .clients
                .lock()
                .map(|mut c| {
                    c.drain()
                        .filter_map(|(_, w)| DubboClient::upgrade(&w))
                        .collect()
                })
                .unwrap_or_default();
            if let Ok(mut d) = self.dedicated.lock() {
                clients.extend(d.drain(..).filter_map(|w| DubboClient::upgrade(&w)));
            }
            for c in clients {
                c.close();
            }
        })
    }
}
