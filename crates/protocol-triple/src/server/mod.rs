//! The Triple server: HTTP/2 gRPC and HTTP/1.1 JSON on one port.
//!
//! Each accepted connection is classified by its first bytes: the HTTP/2 client preface
//! (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`) goes to the gRPC side, anything else to the HTTP/1.1
//! JSON side. The bytes read for that decision are replayed to the chosen protocol.

mod descriptors;
pub mod grpc;
pub mod health;
pub mod http1_json;
pub mod idl;
pub mod interface;
pub mod interface_stream;
pub mod reflection;
mod refuse;
pub mod rest;
mod route_select;
pub mod routing;
pub mod shutdown;
mod write_batch;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use dubbo_core::{ExportTable, Exporter, Invoker, ServiceKey};
use dubbo_url::Url;

use crate::config::TripleConfig;
use crate::status::Status;
use idl::IdlEntry;
pub use idl::{IdlInvoker, IdlServerCall};
use route_select::java_fallback;
use routing::Router;
pub use routing::{BoxFuture, IdlService, MethodKind, ServerCall, ServerReply};
use shutdown::ShutdownSignal;

/// The HTTP/2 client connection preface.
pub const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// State every connection of a server shares.
pub(crate) struct ServerShared {
    pub(crate) config: TripleConfig,
    pub(crate) router: Router,
    pub(crate) exporters: ExportTable,
    /// The REST routes of the exports that have a mapping.
    pub(crate) rest: rest::routes::RestRoutes,
    /// Most connections open at once (`accepts`); 0: no limit.
    pub(crate) accepts: AtomicUsize,
    /// Connections closed at once because `accepts` were already open.
    pub(crate) refused: AtomicU64,
    /// Refused connections being told why (bounded by [`refuse::MAX_PENDING_REFUSALS`]).
    pub(crate) refusing: Arc<AtomicUsize>,
    /// Whether the server takes calls, as its health service reports it.
    pub(crate) serving: health::ServingState,
}

impl ServerShared {
    /// Whether `service` (a full IDL service name or an interface name) is served here.
    pub(crate) fn serves(&self, service: &str) -> bool {
        self.router.serves(service)
            || self
                .exporters
                .keys()
                .iter()
                .any(|k| k.interface() == service)
    }

    /// The names of every service served here, the server's own included, for reflection.
    pub(crate) fn service_names(&self) -> Vec<String> {
        let idl = self.router.idl_services();
        let mut names: Vec<String> = Vec::with_capacity(idl.len());
        // Exports of one name under several keys (versions, groups) are named once.
        for s in &idl {
            if !names.iter().any(|n| n == s.service_name()) {
                names.push(s.service_name().to_owned());
            }
        }
        // An interface with streaming methods is both an IDL entry and an exporter: named once.
        for key in self.exporters.keys().iter() {
            if !names.iter().any(|n| n == key.interface()) {
                names.push(key.interface().to_owned());
            }
        }
        names
    }

    /// Finds the handler for a call and starts it.
    pub(crate) fn dispatch(&self, call: ServerCall) -> BoxFuture<Result<ServerReply, Status>> {
        let service = call.service.clone();
        let method = call.method.clone();
        let idl = self.router.idl(&service, &call.metadata).or_else(|| {
            service
                .rsplit_once('/')
                .and_then(|(_, last)| self.router.idl(last, &call.metadata))
        });
        // A method the IDL entry does not have may be a unary method of the same interface
        // (a `#[dubbo_rs::service]` trait with streaming methods is served by both).
        let idl_has_method = idl
            .as_ref()
            .map(|e| e.service.method_kind(&method).is_some());
        if let (Some(entry), Some(true)) = (idl, idl_has_method) {
            if entry.invoker.is_none() {
                return entry.service.call(&method, call);
            }
            return Box::pin(idl::serve(entry, call));
        }
        let mut key = interface::request_service_key(&service, &call.metadata);
        let mut invoker = self.exporters.get_with_fallback(&key).or_else(|| {
            let (_, last) = service.rsplit_once('/')?;
            self.exporters
                .get_with_fallback(&interface::request_service_key(last, &call.metadata))
        });
        if invoker.is_none() {
            // Several exports of the interface and none named exactly: the one Java's Triple
            // server falls back to (the group's 1.0.0, else the one with neither), as streams
            // of the same interface choose.
            if let Some((chosen, found)) = java_fallback(&self.exporters, &key) {
                key = chosen;
                invoker = Some(found);
            }
        }
        match (invoker, idl_has_method) {
            (Some(invoker), _) => Box::pin(interface::serve(invoker, key, call)),
            (None, Some(false)) => Box::pin(async move {
                Err(Status::unimplemented(format!(
                    "method {method} not found in service {service}"
                )))
            }),
            (None, _) => Box::pin(async move {
                Err(Status::unimplemented(format!(
                    "service {key} not found (method {method})"
                )))
            }),
        }
    }
}

/// A running Triple server.
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// use dubbo_protocol_triple::{TripleConfig, TripleServer};
/// let server = TripleServer::bind("127.0.0.1:0".parse().unwrap(), TripleConfig::default()).await?;
/// println!("listening on {}", server.local_addr());
/// // server.add_idl_service(GreeterServer::new(MyGreeter));
/// server.shutdown(std::time::Duration::from_secs(10)).await;
/// # Ok(()) }
/// ```
pub struct TripleServer {
    shared: Arc<ServerShared>,
    local_addr: SocketAddr,
    signal: ShutdownSignal,
    accept_task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    grace: Arc<Mutex<Duration>>,
}

impl std::fmt::Debug for TripleServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TripleServer")
            .field("local_addr", &self.local_addr)
            .finish()
    }
}

impl TripleServer {
    /// Binds `addr` and starts serving. Services can be added before or after.
    pub async fn bind(addr: SocketAddr, config: TripleConfig) -> io::Result<TripleServer> {
        let listener = TcpListener::bind(addr).await?;
        Ok(Self::from_listener(listener, config))
    }

    /// Serves on an already bound listener.
    pub fn from_listener(listener: TcpListener, config: TripleConfig) -> TripleServer {
        let local_addr = listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)));
        let shared = Arc::new(ServerShared {
            config,
            router: Router::default(),
            exporters: ExportTable::new(),
            rest: Default::default(),
            accepts: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            refusing: Arc::new(AtomicUsize::new(0)),
            serving: health::ServingState::default(),
        });
        // The server's own services: health and reflection, served directly (no filters, as
        // they tell about the server rather than being one of its applications' services).
        let own = Arc::downgrade(&shared);
        let health = health::service(own.clone(), shared.serving.clone());
        for service in std::iter::once(health).chain(reflection::services(&own)) {
            let key = ServiceKey::interface_only(service.service_name());
            shared.router.add_idl(IdlEntry::new(service, None, key));
        }
        let signal = ShutdownSignal::new();
        let grace = Arc::new(Mutex::new(Duration::from_secs(10)));
        let task = tokio::spawn(accept_loop(
            listener,
            shared.clone(),
            signal.clone(),
            signal.subscribe(),
            grace.clone(),
        ));
        TripleServer {
            shared,
            local_addr,
            signal,
            accept_task: Mutex::new(Some(task)),
            grace,
        }
    }

    /// The bound address (with the real port when bound to port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The server's settings.
    pub fn config(&self) -> &TripleConfig {
        &self.shared.config
    }

    /// Limits the connections open at once to `accepts` (Java's `accepts`): one more is closed
    /// as soon as it is accepted, and counted; an HTTP/2 client that sends its preface at once
    /// is first told why (a GOAWAY with REFUSED_STREAM and the reason as debug data). 0 (the
    /// default) means no limit.
    pub fn set_accepts(&self, accepts: usize) {
        self.shared.accepts.store(accepts, Ordering::Relaxed);
    }

    /// How many connections were closed at once because `accepts` connections were open.
    pub fn refused_connections(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// Serves an IDL service (a generated `...Server<T>`) under its full name, with no
    /// filters. Applications export IDL services with [`export_idl`](Self::export_idl), which
    /// runs their calls through the provider's filter chain.
    pub fn add_idl_service<S: IdlService>(&self, service: S) {
        self.add_idl_service_arc(Arc::new(service));
    }

    /// Serves an already shared IDL service, with no filters.
    pub fn add_idl_service_arc(&self, service: Arc<dyn IdlService>) {
        let key = ServiceKey::interface_only(service.service_name());
        self.shared
            .router
            .add_idl(IdlEntry::new(service, None, key));
    }

    /// Serves `service` with every call going through `invoker`, which must end in an
    /// [`IdlInvoker`] for the same service (typically a provider
    /// [`FilterChain`](dubbo_core::FilterChain) around one), and returns the handle that
    /// withdraws it. `url` describes the export (with the port to advertise); its group and
    /// version make the export's key, so that several versions or groups of one service name
    /// are served side by side, a request picking one with `tri-service-group` and
    /// `tri-service-version` as Java does (exact key, else the group's `1.0.0`, else the export
    /// with neither, else the earliest). Withdrawing it leaves the other keys served.
    pub fn export_idl(
        &self,
        service: Arc<dyn IdlService>,
        invoker: Arc<dyn Invoker>,
        url: Url,
    ) -> Exporter {
        let name = service.service_name().to_owned();
        let key = ServiceKey::new(name.as_str(), url.group(), url.version());
        self.shared
            .router
            .add_idl(IdlEntry::new(service, Some(invoker.clone()), key.clone()));
        let router = self.shared.router.clone();
        Exporter::new(key, url, move || {
            router.remove_idl(&name, Some(&invoker));
        })
    }

    /// Stops serving the IDL service named `name`; returns whether it was served.
    pub fn remove_idl_service(&self, name: &str) -> bool {
        self.shared.router.remove_idl(name, None)
    }

    /// The interface-mode services this server answers (wrapper mode and HTTP/1.1 JSON),
    /// keyed by service key. [`TripleProtocol`](crate::TripleProtocol) exports into it.
    pub fn exporters(&self) -> &ExportTable {
        &self.shared.exporters
    }

    /// Serves an interface-mode invoker under `key` as it is (no filters added; see
    /// [`TripleProtocol`](crate::TripleProtocol) for the filtered export).
    pub fn export_invoker(&self, key: ServiceKey, invoker: Arc<dyn Invoker>) {
        self.shared.exporters.insert(key, invoker);
    }

    /// Serves the export `key` over REST too, as `mapping` maps it (over HTTP/1.1 and h2c on
    /// this port); replaces an earlier mapping of the same key. Routes of a key no longer
    /// exported answer 404. The error names a path template that does not compile, or a
    /// method whose `#[cross_origin]` cannot be applied over the server's CORS settings.
    pub fn add_rest(
        &self,
        key: &ServiceKey,
        mapping: &'static dubbo_core::rest::RestService,
    ) -> Result<(), String> {
        self.shared
            .rest
            .register(key, mapping, self.shared.config.rest_cors.as_ref())
    }

    /// Whether [`shutdown`](Self::shutdown) has started.
    pub fn is_shutting_down(&self) -> bool {
        self.signal.is_triggered()
    }

    /// Says whether the server takes calls, as `grpc.health.v1.Health` reports it: an
    /// application starting its graceful shutdown says `false` before it unregisters, so that
    /// health probes take the instance out as early as registries do. [`shutdown`]
    /// (Self::shutdown) says it too.
    pub fn set_serving(&self, serving: bool) {
        self.shared.serving.set_serving(serving);
    }

    /// Whether the server reports itself serving.
    pub fn is_serving(&self) -> bool {
        self.shared.serving.is_serving()
    }

    /// Graceful shutdown: stops accepting connections, sends the two-phase GOAWAY on every
    /// HTTP/2 connection, lets in-flight calls finish for up to `grace`, then closes whatever
    /// is left. Returns when every connection is closed.
    pub async fn shutdown(&self, grace: Duration) {
        self.shared.serving.close();
        if let Ok(mut g) = self.grace.lock() {
            *g = grace;
        }
        self.signal.trigger();
        let task = self.accept_task.lock().ok().and_then(|mut t| t.take());
        if let Some(task) = task {
            let _ = task.await;
        }
    }
}

impl Drop for TripleServer {
    fn drop(&mut self) {
        self.signal.trigger();
        if let Ok(mut t) = self.accept_task.lock() {
            if let Some(task) = t.take() {
                task.abort();
            }
        }
    }
}

/// `stop` is subscribed before the loop is spawned: a receiver made inside it, after a
/// shutdown that came before its first poll, would take that shutdown as already seen and
/// wait for another (a server shut down right after it was bound never stopped).
async fn accept_loop(
    listener: TcpListener,
    shared: Arc<ServerShared>,
    signal: ShutdownSignal,
    mut stop: tokio::sync::watch::Receiver<bool>,
    grace: Arc<Mutex<Duration>>,
) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, remote)) => {
                    // Finished connections still in the set would count against the limit.
                    while connections.try_join_next().is_some() {}
                    let limit = shared.accepts.load(Ordering::Relaxed);
                    if limit > 0 && connections.len() >= limit {
                        // Java closes the channel and logs; an HTTP/2 client is also told why
                        // (GOAWAY with the reason), other connections just see it close.
                        shared.refused.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(consumer = %remote, limit, "connection refused: `accepts` connections are already open");
                        refuse_in_background(
                            stream,
                            remote,
                            refuse::Refusal::TooManyConnections { accepts: limit },
                            &shared.refusing,
                        );
                        continue;
                    }
                    let _ = stream.set_nodelay(true);
                    let shared = shared.clone();
                    let rx = signal.subscribe();
                    connections.spawn(serve_connection(stream, remote, shared, rx));
                }
                Err(e) => {
                    tracing::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = stop.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let grace = grace.lock().map(|g| *g).unwrap_or(Duration::from_secs(10));
    shutdown::drain(&mut connections, grace).await;
}

/// Serves one accepted connection: as is, or through the port's TLS (port unification: the
/// first byte says which; refused ones are logged and closed by
/// [`ServerTls::accept`](dubbo_tls::ServerTls::accept)). Over TLS the same classification by
/// the first bytes follows, so ALPN `h2`, ALPN `http/1.1` and no ALPN (Java's TLS clients
/// offer none) all work.
async fn serve_connection(
    stream: TcpStream,
    remote: SocketAddr,
    shared: Arc<ServerShared>,
    shutdown: tokio::sync::watch::Receiver<bool>,
) {
    let local = stream.local_addr().ok();
    let Some(tls) = shared.config.server_tls.clone() else {
        return serve_stream(stream, remote, local, false, shared, shutdown).await;
    };
    if !tls.allows_plaintext() {
        match first_byte(&stream).await {
            Some(b) if dubbo_tls::sniff(b) == dubbo_tls::FirstByte::Tls => {}
            Some(b) => {
                // Refused here rather than by `accept`, so that an HTTP/2 client learns why.
                refuse_plaintext(stream, remote, b, tls.is_mutual()).await;
                return;
            }
            None => {
                tracing::info!(consumer = %remote, timeout_ms = FIRST_BYTE_WAIT.as_millis() as u64, "connection closed: nothing received in time (or closed by the consumer)");
                return;
            }
        }
    }
    match tls.accept(stream, remote).await {
        Some(dubbo_tls::Accepted::Plain(s)) => {
            serve_stream(s, remote, local, false, shared, shutdown).await
        }
        Some(dubbo_tls::Accepted::Tls(s)) => {
            serve_stream(*s, remote, local, true, shared, shutdown).await
        }
        None => {}
    }
}

/// The connection's first byte, left unread; `None` when nothing came within
/// [`FIRST_BYTE_WAIT`] or the connection closed.
async fn first_byte(stream: &TcpStream) -> Option<u8> {
    let mut first = [0u8; 1];
    match tokio::time::timeout(FIRST_BYTE_WAIT, stream.peek(&mut first)).await {
        Ok(Ok(1)) => Some(first[0]),
        _ => None,
    }
}

/// How long a connection to a TLS port may stay silent (TLS's default handshake timeout).
const FIRST_BYTE_WAIT: Duration = Duration::from_secs(10);

/// Refuses plaintext on a port that requires TLS: logged, and an HTTP/2 client gets a GOAWAY
/// saying TLS is required.
async fn refuse_plaintext(stream: TcpStream, remote: SocketAddr, first: u8, mutual: bool) {
    tracing::warn!(
        consumer = %remote,
        first_byte = first,
        mutual,
        "plaintext connection refused: this port requires TLS (first byte 0x{first:02x}, a TLS handshake starts with 0x16)"
    );
    refuse::refuse(stream, refuse::Refusal::TlsRequired, remote).await;
}

/// Tells a refused connection why in a task of its own, unless too many are being told
/// already (then it is closed at once).
fn refuse_in_background(
    stream: TcpStream,
    remote: SocketAddr,
    refusal: refuse::Refusal,
    pending: &Arc<AtomicUsize>,
) {
    if pending.fetch_add(1, Ordering::AcqRel) >= refuse::MAX_PENDING_REFUSALS {
        pending.fetch_sub(1, Ordering::AcqRel);
        drop(stream);
        return;
    }
    let pending = pending.clone();
    tokio::spawn(async move {
        refuse::refuse(stream, refusal, remote).await;
        pending.fetch_sub(1, Ordering::AcqRel);
    });
}

/// Serves a connection (`tls`: inside TLS) as HTTP/2 or HTTP/1.1, by its first bytes.
async fn serve_stream<S>(
    mut stream: S,
    remote: SocketAddr,
    local: Option<SocketAddr>,
    tls: bool,
    shared: Arc<ServerShared>,
    shutdown: tokio::sync::watch::Receiver<bool>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let mut head = Vec::with_capacity(H2_PREFACE.len());
    let mut buf = [0u8; 24];
    let is_h2 = loop {
        let want = H2_PREFACE.len() - head.len();
        let n = match tokio::time::timeout(Duration::from_secs(30), stream.read(&mut buf[..want]))
            .await
        {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return,
            Ok(Ok(n)) => n,
        };
        head.extend_from_slice(&buf[..n]);
        if !H2_PREFACE.starts_with(&head) {
            break false;
        }
        if head.len() == H2_PREFACE.len() {
            break true;
        }
    };
    let io = Rewind::new(Bytes::from(head), stream);
    if is_h2 {
        grpc::serve_h2(io, shared, Some(remote), local, shutdown).await;
    } else {
        http1_json::serve_http1(io, shared, remote, tls, shutdown).await;
    }
}

/// An I/O stream that first replays bytes already read from it.
#[derive(Debug)]
pub(crate) struct Rewind<T> {
    pre: Option<Bytes>,
    inner: T,
}

impl<T> Rewind<T> {
    pub(crate) fn new(pre: Bytes, inner: T) -> Self {
        Self {
            pre: if pre.is_empty() { None } else { Some(pre) },
            inner,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Rewind<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(mut pre) = self.pre.take() {
            let n = pre.len().min(buf.remaining());
            buf.put_slice(&pre.split_to(n));
            if !pre.is_empty() {
                self.pre = Some(pre);
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Rewind<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
