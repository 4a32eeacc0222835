//! The provider side: accept loop, per-connection reader, dispatch to a bounded worker pool or
//! inline, heartbeats, idle closing and graceful shutdown.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use dubbo_core::{ErrorCode, ExportTable, Invocation, RpcError, RpcResult};
use futures::{FutureExt, StreamExt};
use tokio::net::{TcpListener, TcpStream, ToSocketAddrs};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use crate::body::{self, EventData, SignatureCache};
use crate::codec::{Frame, FrameDecoder, Inbound};
use crate::config::{Dispatcher, ServerConfig};
use crate::exchange::pending::next_request_id;
use crate::exchange::{write_loop, WRITE_QUEUE};
use crate::header::HEADER_LEN;
use crate::serialization::Serialization;
use crate::status::{status_for_error, Status, NOT_FOUND_EXPORTED, REMOTING_EXCEPTION};

/// Requests a connection's reader dispatches before it steps behind their handlers.
const PIPELINE_RUN: usize = 16;

/// A dubbo:// server on one address, serving the invokers of an [`ExportTable`].
///
/// Requests are looked up by service key (`path`, `group` and `version` from the
/// attachments) and handed to the exported invoker; the invoker is called as registered, so
/// wrap it in provider filters first (as [`DubboProtocol::export`](crate::DubboProtocol) does).
pub struct DubboServer {
    shared: Arc<ServerShared>,
    accept_task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

struct ServerShared {
    exports: ExportTable,
    config: ServerConfig,
    local_addr: SocketAddr,
    signatures: SignatureCache,
    workers: Option<Arc<Semaphore>>,
    queue: Option<Arc<Semaphore>>,
    connections: Mutex<HashMap<u64, ConnHandle>>,
    next_conn: AtomicU64,
    /// Connections accepted and not yet closed, counted in the accept loop itself so that the
    /// `accepts` limit sees connections whose task has not started yet.
    open: AtomicUsize,
    /// Connections closed at once because `accepts` were already open.
    refused: AtomicU64,
    inflight: AtomicUsize,
    /// Requests holding a worker now, and the most that ever did (thread-pool metrics).
    running: AtomicUsize,
    largest: AtomicUsize,
    /// Requests refused with status 100.
    rejected: AtomicU64,
    shutting_down: AtomicBool,
    /// Stops the accept loop.
    stop_accept: CancellationToken,
    /// Parent of every connection's close token.
    stop_connections: CancellationToken,
}

struct ConnHandle {
    tx: mpsc::Sender<Bytes>,
    peer: SocketAddr,
    local: SocketAddr,
}

/// One accepted connection, as its request handlers see it.
struct Conn {
    tx: mpsc::Sender<Bytes>,
    peer: SocketAddr,
    local: SocketAddr,
}

impl Conn {
    async fn send(&self, frame: Bytes) {
        if self.tx.send(frame).await.is_err() {
            tracing::debug!(consumer = %self.peer, "connection closed before the response could be sent");
        }
    }
}

impl std::fmt::Debug for DubboServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DubboServer")
            .field("local_addr", &self.shared.local_addr)
            .field("services", &self.shared.exports)
            .finish()
    }
}

impl DubboServer {
    /// Binds `addr` (port 0 picks a free port) and starts serving `exports`.
    pub async fn bind(
        addr: impl ToSocketAddrs,
        config: ServerConfig,
        exports: ExportTable,
    ) -> std::io::Result<DubboServer> {
        let listener = TcpListener::bind(addr).await?;
        let local_addr = listener.local_addr()?;
        let workers = config.threads.map(|n| Arc::new(Semaphore::new(n)));
        let queue = (config.queues > 0 && workers.is_some())
            .then(|| Arc::new(Semaphore::new(config.queues)));
        let shared = Arc::new(ServerShared {
            exports,
            config,
            local_addr,
            signatures: SignatureCache::new(),
            workers,
            queue,
            connections: Mutex::new(HashMap::new()),
            next_conn: AtomicU64::new(0),
            open: AtomicUsize::new(0),
            refused: AtomicU64::new(0),
            inflight: AtomicUsize::new(0),
            running: AtomicUsize::new(0),
            largest: AtomicUsize::new(0),
            rejected: AtomicU64::new(0),
            shutting_down: AtomicBool::new(false),
            stop_accept: CancellationToken::new(),
            stop_connections: CancellationToken::new(),
        });
        let task = tokio::spawn(accept_loop(listener, shared.clone()));
        tracing::info!(address = %local_addr, "dubbo server listening");
        Ok(DubboServer {
            shared,
            accept_task: Mutex::new(Some(task)),
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.shared.local_addr
    }

    /// The exported services.
    pub fn exports(&self) -> &ExportTable {
        &self.shared.exports
    }

    /// The settings.
    pub fn config(&self) -> &ServerConfig {
        &self.shared.config
    }

    /// The request pool as Java's thread-pool metrics describe one (`DubboServerHandler-
    /// {host}:{port}`); requests dispatched `direct` run on the connection and are not counted.
    pub fn thread_pool(&self) -> dubbo_core::ThreadPoolStats {
        let s = &self.shared;
        let bound = s.config.threads;
        let queued = match (&s.queue, s.config.queues) {
            (Some(q), total) => total.saturating_sub(q.available_permits()),
            (None, _) => 0,
        };
        let largest = s.largest.load(Ordering::Acquire);
        dubbo_core::ThreadPoolStats {
            name: format!("DubboServerHandler-{}", s.local_addr),
            core_size: bound.unwrap_or(0),
            max_size: bound.unwrap_or(i32::MAX as usize),
            largest_size: largest,
            active_size: s.running.load(Ordering::Acquire),
            thread_count: largest,
            queue_size: queued,
            rejected: s.rejected.load(Ordering::Relaxed),
        }
    }

    /// Number of open connections.
    pub fn connection_count(&self) -> usize {
        self.shared.connections.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// How many connections were closed at once because `accepts` connections were already
    /// open.
    pub fn refused_connections(&self) -> u64 {
        self.shared.refused.load(Ordering::Relaxed)
    }

    /// The open connections: each consumer's address and the local address it reached.
    pub fn connections(&self) -> Vec<(SocketAddr, SocketAddr)> {
        let mut conns: Vec<(SocketAddr, SocketAddr)> = self
            .shared
            .connections
            .lock()
            .map(|c| c.values().map(|h| (h.peer, h.local)).collect())
            .unwrap_or_default();
        conns.sort();
        conns
    }

    /// Number of requests being handled.
    pub fn inflight(&self) -> usize {
        self.shared.inflight.load(Ordering::Acquire)
    }

    /// Whether [`shutdown`](Self::shutdown) has started.
    pub fn is_shutting_down(&self) -> bool {
        self.shared.shutting_down.load(Ordering::Acquire)
    }

    /// Graceful shutdown, as Java's `HeaderExchangeServer.close(timeout)`: stops accepting
    /// connections, sends the readonly event (`"R"`) on every connection so consumers stop
    /// choosing this provider, keeps serving until no request is in flight or `grace` has
    /// passed, then closes every connection.
    pub async fn shutdown(&self, grace: Duration) {
        if self.shared.shutting_down.swap(true, Ordering::AcqRel) {
            // A second caller just waits for the first one's grace period to end.
            let deadline = Instant::now() + grace;
            while !self.shared.stop_connections.is_cancelled() && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            return;
        }
        self.shared.stop_accept.cancel();
        self.send_readonly();
        let deadline = Instant::now() + grace;
        while self.inflight() > 0 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        if self.inflight() > 0 {
            tracing::warn!(
                address = %self.shared.local_addr,
                inflight = self.inflight(),
                "grace period over; closing connections with requests still in flight"
            );
        }
        self.shared.stop_connections.cancel();
        let task = self.accept_task.lock().ok().and_then(|mut t| t.take());
        if let Some(task) = task {
            let _ = task.await;
        }
        tracing::info!(address = %self.shared.local_addr, "dubbo server closed");
    }

    /// Sends the readonly event (`"R"`) on every open connection, so consumers stop choosing
    /// this provider; the server keeps serving.
    pub fn send_readonly(&self) {
        let handles: Vec<(mpsc::Sender<Bytes>, SocketAddr)> = self
            .shared
            .connections
            .lock()
            .map(|c| c.values().map(|h| (h.tx.clone(), h.peer)).collect())
            .unwrap_or_default();
        // In the port's first serialization, as Java writes events.
        let ser = self.shared.config.serialization.id();
        for (tx, peer) in handles {
            // Never wait on a consumer that does not read: a full queue just misses the event.
            let event = body::readonly_event(next_request_id(), ser);
            if tx.try_send(event).is_err() {
                tracing::debug!(consumer = %peer, "could not send readonly event");
            }
        }
    }

    /// Closes at once: [`shutdown`](Self::shutdown) with no grace period.
    pub async fn close(&self) {
        self.shutdown(Duration::ZERO).await
    }
}

impl Drop for DubboServer {
    fn drop(&mut self) {
        self.shared.stop_accept.cancel();
        self.shared.stop_connections.cancel();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<ServerShared>) {
    loop {
        let accepted = tokio::select! {
            biased;
            _ = shared.stop_accept.cancelled() => break,
            r = listener.accept() => r,
        };
        match accepted {
            Ok((stream, peer)) => {
                let limit = shared.config.accepts;
                if limit > 0 && shared.open.load(Ordering::Acquire) >= limit {
                    // Java closes the channel and logs; the consumer sees the connection close.
                    shared.refused.fetch_add(1, Ordering::Relaxed);
                    tracing::warn!(consumer = %peer, limit, "connection refused: `accepts` connections are already open");
                    drop(stream);
                    continue;
                }
                shared.open.fetch_add(1, Ordering::AcqRel);
                let guard = OpenGuard(shared.clone());
                tokio::spawn(async move {
                    start_connection(guard.0.clone(), stream, peer).await;
                    drop(guard);
                });
            }
            Err(e) => {
                // Typically out of file descriptors: back off instead of spinning.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Counts a request holding a worker, for the thread-pool metrics. Borrows the server state
/// the request's task already owns, so counting costs no reference-count traffic.
struct Running<'a>(&'a ServerShared);

impl<'a> Running<'a> {
    fn new(shared: &'a ServerShared) -> Self {
        let now = shared.running.fetch_add(1, Ordering::AcqRel) + 1;
        shared.largest.fetch_max(now, Ordering::AcqRel);
        Running(shared)
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Counts an accepted connection as open until its task ends.
struct OpenGuard(Arc<ServerShared>);

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Counts a request in flight for graceful shutdown.
struct InflightGuard(Arc<ServerShared>);

impl InflightGuard {
    fn new(shared: &Arc<ServerShared>) -> Self {
        shared.inflight.fetch_add(1, Ordering::AcqRel);
        InflightGuard(shared.clone())
    }
}

impl Drop for InflightGuard {
    fn drop(&mut self) {
        self.0.inflight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves one accepted connection: plaintext as is (its own read and write halves), or through
/// the port's TLS (port unification: the first byte says which; refused ones are logged and
/// closed by [`ServerTls::accept`](dubbo_tls::ServerTls::accept)).
async fn start_connection(shared: Arc<ServerShared>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    let local = stream.local_addr().unwrap_or(shared.local_addr);
    let Some(tls) = &shared.config.tls else {
        let (rd, wr) = stream.into_split();
        return serve_connection(shared, rd, wr, peer, local).await;
    };
    match tls.accept(stream, peer).await {
        Some(dubbo_tls::Accepted::Plain(stream)) => {
            let (rd, wr) = stream.into_split();
            serve_connection(shared, rd, wr, peer, local).await
        }
        Some(dubbo_tls::Accepted::Tls(stream)) => {
            let (rd, wr) = tokio::io::split(*stream);
            serve_connection(shared, rd, wr, peer, local).await
        }
        None => {}
    }
}

async fn serve_connection<R, W>(
    shared: Arc<ServerShared>,
    rd: R,
    wr: W,
    peer: SocketAddr,
    local: SocketAddr,
) where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel(WRITE_QUEUE);
    let close = shared.stop_connections.child_token();
    let conn_id = shared.next_conn.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut conns) = shared.connections.lock() {
        conns.insert(
            conn_id,
            ConnHandle {
                tx: tx.clone(),
                peer,
                local,
            },
        );
    }
    tracing::debug!(consumer = %peer, "connection accepted");
    tokio::spawn(write_loop(wr, rx, close.clone()));
    let conn = Arc::new(Conn { tx, peer, local });

    let idle = shared.config.idle_timeout;
    let mut frames =
        FramedRead::with_capacity(rd, FrameDecoder::new(shared.config.payload), 16 * 1024);
    let mut last_read = Instant::now();
    let far = Duration::from_secs(3600);
    let check_every = if idle.is_zero() { far } else { idle };
    let timer = tokio::time::sleep(check_every);
    tokio::pin!(timer);
    let mut abort = false;
    let mut since_yield = 0usize;
    // Made once rather than per frame: a fresh `cancelled()` takes the token's mutex and
    // registers a waiter each time.
    let closed = close.cancelled();
    tokio::pin!(closed);
    loop {
        tokio::select! {
            biased;
            _ = &mut closed => break,
            item = frames.next() => {
                last_read = Instant::now();
                match item {
                    None => break,
                    Some(Ok(Inbound::Frame(f))) => {
                        on_frame(&shared, &conn, f).await;
                        // Pipelining: after a run of requests, let their handlers and the writer
                        // go before decoding more, so the first responses leave while later
                        // requests are still being read (the consumer works on them meanwhile)
                        // instead of one whole read's worth of responses at the end.
                        since_yield += 1;
                        if since_yield >= PIPELINE_RUN {
                            since_yield = 0;
                            tokio::task::yield_now().await;
                        }
                    }
                    Some(Ok(Inbound::Oversize(_))) => {
                        // Not produced by a server-side decoder; treat like a framing error.
                        abort = true;
                        break;
                    }
                    Some(Err(e)) if e.is_peer_close() => {
                        tracing::debug!(consumer = %peer, error = %e, "connection closed by consumer");
                        abort = true;
                        break;
                    }
                    Some(Err(e)) => {
                        tracing::warn!(consumer = %peer, error = %e, "bad data from consumer; closing connection");
                        abort = true;
                        break;
                    }
                }
            }
            _ = &mut timer => {
                let silent = last_read.elapsed();
                if !idle.is_zero() && silent >= idle {
                    tracing::info!(consumer = %peer, silent_ms = silent.as_millis() as u64, "closing idle connection");
                    abort = true;
                    break;
                }
                let next = last_read + check_every;
                timer.as_mut().reset(tokio::time::Instant::from_std(next.max(Instant::now() + Duration::from_millis(5))));
            }
        }
    }
    if let Ok(mut conns) = shared.connections.lock() {
        conns.remove(&conn_id);
    }
    if abort {
        close.cancel();
    }
    // Otherwise the writer ends once the handlers still running have sent their responses and
    // dropped their handles on the connection.
    tracing::debug!(consumer = %peer, "connection closed");
}

enum Slot {
    /// A worker is free.
    Run(Option<OwnedSemaphorePermit>),
    /// All workers are busy but the queue has room: wait for a worker.
    Queue(OwnedSemaphorePermit),
    /// Pool and queue are full.
    Full,
}

impl ServerShared {
    fn reserve(&self) -> Slot {
        let Some(workers) = &self.workers else {
            return Slot::Run(None);
        };
        if let Ok(p) = workers.clone().try_acquire_owned() {
            return Slot::Run(Some(p));
        }
        match &self.queue {
            Some(q) => match q.clone().try_acquire_owned() {
                Ok(p) => Slot::Queue(p),
                Err(_) => Slot::Full,
            },
            None => Slot::Full,
        }
    }

    fn exhausted_message(&self) -> String {
        let threads = self.config.threads.unwrap_or(0);
        let active = self
            .workers
            .as_ref()
            .map(|w| threads.saturating_sub(w.available_permits()))
            .unwrap_or(0);
        let addr = self.local_addr;
        format!(
            "Server side({},{}) thread pool is exhausted, detail msg:Thread pool is EXHAUSTED! \
             Thread Name: DubboServerHandler-{addr}, Pool Size: {threads} (active: {active}, core: {threads}, \
             max: {threads}, largest: {threads}), queues: {}, in dubbo://{addr}!",
            addr.ip(),
            addr.port(),
            self.config.queues
        )
    }
}

async fn on_frame(shared: &Arc<ServerShared>, conn: &Arc<Conn>, f: Frame) {
    let h = f.header;
    if !h.is_request() {
        tracing::debug!(consumer = %conn.peer, id = h.id, "response frame from a consumer ignored");
        return;
    }
    if h.is_event() {
        match body::decode_event(h.serialization_id(), &f.body) {
            Ok(EventData::Heartbeat) => {
                if h.is_two_way() {
                    conn.send(body::heartbeat_response(h.id, h.serialization_id()))
                        .await;
                }
            }
            Ok(other) => {
                tracing::debug!(consumer = %conn.peer, event = ?other, "event ignored");
            }
            Err(e) => {
                tracing::warn!(consumer = %conn.peer, error = %e, "bad event");
                if h.is_two_way() {
                    conn.send(body::encode_status_response(
                        h.id,
                        Status::BadRequest,
                        &format!("Fail to decode request due to: {e}"),
                    ))
                    .await;
                }
            }
        }
        return;
    }
    if Serialization::from_id(h.serialization_id()).is_none() {
        tracing::warn!(consumer = %conn.peer, serialization = h.serialization_id(), "request in unsupported serialization");
        if h.is_two_way() {
            conn.send(body::encode_status_response(
                h.id,
                Status::BadRequest,
                &unexpected_serialization(h.serialization_id(), "hessian2 (2) and fastjson2 (23)"),
            ))
            .await;
        }
        return;
    }
    let received = Instant::now();
    match shared.config.dispatcher {
        Dispatcher::Direct => {
            let _guard = InflightGuard::new(shared);
            if let Some(resp) = process(shared, conn, f, received).await {
                conn.send(resp).await;
            }
        }
        Dispatcher::All => {
            let slot = shared.reserve();
            if let Slot::Full = slot {
                shared.rejected.fetch_add(1, Ordering::Relaxed);
                let msg = shared.exhausted_message();
                tracing::warn!(consumer = %conn.peer, "{msg}");
                if h.is_two_way() {
                    conn.send(body::encode_status_response_in(
                        Serialization::from_id(h.serialization_id()).unwrap_or_default(),
                        h.id,
                        Status::ThreadPoolExhausted,
                        &msg,
                    ))
                    .await;
                }
                return;
            }
            let guard = InflightGuard::new(shared);
            let shared = shared.clone();
            let conn = conn.clone();
            tokio::spawn(async move {
                let _guard = guard;
                let _permit = match slot {
                    Slot::Run(p) => p,
                    Slot::Queue(queued) => {
                        let workers = shared.workers.clone();
                        let p = match workers {
                            Some(w) => w.acquire_owned().await.ok(),
                            None => None,
                        };
                        drop(queued);
                        p
                    }
                    Slot::Full => None,
                };
                let _running = Running::new(&shared);
                if let Some(resp) = process(&shared, &conn, f, received).await {
                    conn.send(resp).await;
                }
            });
        }
    }
}

/// Decodes, looks up, invokes and encodes one request; `None` for one-way requests.
async fn process(
    shared: &Arc<ServerShared>,
    conn: &Conn,
    f: Frame,
    received: Instant,
) -> Option<Bytes> {
    let h = f.header;
    let id = h.id;
    let two_way = h.is_two_way();
    // on_frame let through only the serializations this provider speaks.
    let ser = Serialization::from_id(h.serialization_id()).unwrap_or_default();
    let req = match body::decode_request_in(ser, &f.body, &shared.signatures) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(consumer = %conn.peer, error = %e, "Decode rpc invocation failed");
            return two_way.then(|| {
                body::encode_status_response_in(
                    ser,
                    id,
                    Status::BadRequest,
                    &format!("Fail to decode request due to: {e}"),
                )
            });
        }
    };
    let key = req.service_key();
    let Some(invoker) = shared.exports.get(&key) else {
        let msg = not_found_message(shared, conn, &key, &method_text(&req.method));
        tracing::warn!(consumer = %conn.peer, "{msg}");
        return two_way.then(|| {
            body::encode_status_response_in(
                ser,
                id,
                Status::ServiceError,
                &format!("{REMOTING_EXCEPTION}: {msg}"),
            )
        });
    };
    // Java's PermittedSerializationKeeper: per service, what its URL advertises plus hessian2.
    if !Serialization::permitted(invoker.url(), ser.id()) {
        tracing::warn!(consumer = %conn.peer, service = %key, serialization = ser.name(), "serialization not permitted for this service");
        return two_way.then(|| {
            body::encode_status_response_in(
                ser,
                id,
                Status::BadRequest,
                &unexpected_serialization(ser.id(), &permitted_text(invoker.url())),
            )
        });
    }
    let timeout = req.timeout_ms();
    let dubbo_version = req.dubbo_version;
    let mut inv = Invocation::with_payloads(key, req.method, req.args);
    *inv.attachments_mut() = req.attachments;
    {
        let cx = inv.context_mut();
        cx.set_remote_addr(conn.peer);
        cx.set_local_addr(conn.local);
        if let Some(ms) = timeout {
            cx.set_deadline(received + Duration::from_millis(ms));
        }
    }
    let method = inv.method().clone();
    let call = invoker.invoke(inv);
    let result: RpcResult = match AssertUnwindSafe(call).catch_unwind().await {
        Ok(r) => r,
        Err(_) => {
            tracing::error!(method = method.name(), "service handler panicked");
            Err(RpcError::framework(
                ErrorCode::Internal,
                format!("service handler of {} panicked", method.name()),
            ))
        }
    };
    if !two_way {
        return None;
    }
    Some(encode_result(
        shared,
        conn,
        (id, ser),
        result,
        &dubbo_version,
    ))
}

/// Java's refusal of a serialization id, then what this provider or service permits.
fn unexpected_serialization(id: u8, permits: &str) -> String {
    format!(
        "Fail to decode request due to: java.io.IOException: Unexpected serialization id:{id} received from network, please check if the peer send the right id. ({} is not permitted; this provider accepts {permits} only)",
        crate::header::serialization_name(id).unwrap_or("unknown")
    )
}

/// The serializations a service's URL permits, as `name (id)` joined with "and".
fn permitted_text(url: &dubbo_url::Url) -> String {
    let mut names = vec![Serialization::Hessian2];
    if Serialization::permitted(url, Serialization::Fastjson2.id()) {
        names.push(Serialization::Fastjson2);
    }
    names
        .iter()
        .map(|s| format!("{} ({})", s.name(), s.id()))
        .collect::<Vec<_>>()
        .join(" and ")
}

/// Encodes the outcome of call `id` in the serialization its request came in (Java's
/// `DubboCodecSupport.getResponseSerialization`).
fn encode_result(
    shared: &ServerShared,
    conn: &Conn,
    (id, ser): (i64, Serialization),
    result: RpcResult,
    dubbo_version: &str,
) -> Bytes {
    let encoded = match &result {
        Ok(resp) => body::encode_ok_response_in(ser, id, Ok(resp), dubbo_version),
        Err(RpcError::Business(b)) => body::encode_ok_response_in(ser, id, Err(b), dubbo_version),
        Err(e) => {
            let (status, msg) =
                status_for_error(e.code().unwrap_or(ErrorCode::Internal), e.message());
            return body::encode_status_response_in(ser, id, status, &msg);
        }
    };
    match encoded {
        Ok(frame) => {
            let len = frame.len() - HEADER_LEN;
            let limit = shared.config.payload;
            if len > limit {
                let msg = format!(
                    "Data length too large: {len}, max payload: {limit}, channel: {} -> {}",
                    conn.local, conn.peer
                );
                tracing::warn!(consumer = %conn.peer, "{msg}");
                body::encode_status_response_in(ser, id, Status::SerializationError, &msg)
            } else {
                frame
            }
        }
        Err(e) => {
            tracing::warn!(consumer = %conn.peer, error = %e, "failed to encode response");
            body::encode_status_response_in(
                ser,
                id,
                Status::BadResponse,
                &format!("Failed to send response: id {id}, cause: {e}"),
            )
        }
    }
}

fn not_found_message(
    shared: &ServerShared,
    conn: &Conn,
    key: &dubbo_core::ServiceKey,
    method: &str,
) -> String {
    const MAX_LISTED: usize = 20;
    let port = shared.local_addr.port();
    let mut keys: Vec<String> = shared
        .exports
        .keys()
        .iter()
        .map(|k| format!("{k}:{port}"))
        .collect();
    keys.sort();
    let more = keys.len().saturating_sub(MAX_LISTED);
    keys.truncate(MAX_LISTED);
    let listed = if more > 0 {
        format!("[{}, ... {more} more]", keys.join(", "))
    } else {
        format!("[{}]", keys.join(", "))
    };
    format!(
        "{NOT_FOUND_EXPORTED}: {key}:{port} in {listed}, may be version or group mismatch , \
         channel: consumer: {} --> provider: {}, message:RpcInvocation [methodName={method}]",
        conn.peer, conn.local
    )
}

fn method_text(m: &dubbo_core::MethodSignature) -> String {
    format!("{}({})", m.name(), m.parameter_types().join(","))
}
