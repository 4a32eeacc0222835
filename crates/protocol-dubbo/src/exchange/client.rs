//! The consumer side: long-lived, request-id multiplexed connections to one provider address,
//! with heartbeats, readonly handling and lazy reconnection.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use bytes::Bytes;
use dubbo_core::{ErrorCode, Invocation, RpcError, RpcResponse, RpcResult};
use futures::StreamExt;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_util::codec::FramedRead;
use tokio_util::sync::CancellationToken;

use crate::body::{self, EventData};
use crate::codec::{Frame, FrameDecoder, Inbound};
use crate::config::ClientConfig;
use crate::exchange::availability::{Availability, ConnFlags};
use crate::exchange::backoff::{self, Backoff};
use crate::exchange::handle::Handle;
use crate::exchange::pending::{next_request_id, PendingCalls, SWEEP_TICK};
use crate::exchange::{write_loop, WRITE_QUEUE};
use crate::header::HEADER_LEN;
use crate::serialization::Serialization;
use crate::status::{error_for_status, Status};

/// A client for one provider address: `connections` long-lived TCP connections (default one),
/// each carrying any number of concurrent calls matched by request id.
///
/// Cloning is cheap and shares the connections. They are opened at [`connect`](Self::connect)
/// (or on the first call when `lazy`), re-opened on the next call after one dies (with a
/// bounded backoff between failed attempts), and closed by [`close`](Self::close) or when the
/// last clone is dropped.
#[derive(Clone)]
pub struct DubboClient {
    inner: Arc<ClientInner>,
}

pub(crate) struct ClientInner {
    address: String,
    config: ClientConfig,
    slots: Vec<Slot>,
    next: AtomicUsize,
    /// The client's closed flag and its count of usable connections, shared with the
    /// connections (which keep the count) and the invokers (which read it).
    availability: Arc<Availability>,
}

#[derive(Default)]
struct Slot {
    current: Handle<Arc<Connection>>,
    connecting: tokio::sync::Mutex<()>,
    /// Shared with the slot's connection reader, which counts a connection refused right
    /// after it opened as a failed attempt.
    backoff: Arc<Mutex<Backoff>>,
}

/// A connected socket, before it is split between the reader and the writer.
enum Transport {
    Plain(TcpStream),
    Tls(Box<dubbo_tls::ClientTlsStream<TcpStream>>),
}

/// One TCP connection.
struct Connection {
    tx: mpsc::Sender<Bytes>,
    state: Arc<ConnState>,
    peer: Option<SocketAddr>,
}

/// What the connection's reader task shares with callers.
struct ConnState {
    pending: Arc<PendingCalls>,
    close: CancellationToken,
    /// Closed (set with every close of the connection) and read-only. Callers test liveness
    /// on every call; the token's own `is_cancelled` takes a mutex, this is one atomic load.
    flags: ConnFlags,
}

impl ConnState {
    /// Closes the connection: callers see it dead at once, its reader and writer stop.
    fn shut(&self) {
        self.flags.close();
        self.close.cancel();
    }
}

impl Connection {
    /// Whether the connection can still carry calls. A writer that failed cancels the token
    /// only; the reader, which waits on the token first, then shuts the state.
    fn is_alive(&self) -> bool {
        !self.state.flags.is_closed()
    }

    fn is_readonly(&self) -> bool {
        self.state.flags.is_readonly()
    }
}

impl std::fmt::Debug for DubboClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DubboClient")
            .field("address", &self.inner.address)
            .field("connections", &self.inner.slots.len())
            .finish()
    }
}

impl DubboClient {
    /// A client for `address` (`host:port`) that connects now unless `config.lazy`; fails with
    /// [`ErrorCode::Network`] naming the address when a connection cannot be made.
    pub async fn connect(
        address: impl Into<String>,
        config: ClientConfig,
    ) -> Result<Self, RpcError> {
        let client = Self::new(address, config);
        if !client.inner.config.lazy {
            client.ensure_connected().await?;
        }
        Ok(client)
    }

    /// Opens every connection that is not open yet; fails with [`ErrorCode::Network`] naming
    /// the address when one cannot be made.
    pub async fn ensure_connected(&self) -> Result<(), RpcError> {
        for slot in &self.inner.slots {
            self.inner.connection(slot).await?;
        }
        Ok(())
    }

    /// A client for `address` that connects on its first call.
    pub fn new(address: impl Into<String>, config: ClientConfig) -> Self {
        let n = config.connections.max(1);
        DubboClient {
            inner: Arc::new(ClientInner {
                address: address.into(),
                slots: (0..n).map(|_| Slot::default()).collect(),
                config,
                next: AtomicUsize::new(0),
                availability: Availability::new(),
            }),
        }
    }

    /// The provider address, `host:port`.
    pub fn address(&self) -> &str {
        &self.inner.address
    }

    /// The settings.
    pub fn config(&self) -> &ClientConfig {
        &self.inner.config
    }

    /// Whether calls can go out now: not closed, and some connection is up and not read-only,
    /// or could be (re)opened (not waiting out a connect backoff).
    pub fn is_available(&self) -> bool {
        self.inner.availability.surely_available()
            || (!self.inner.availability.is_closed()
                && self.inner.slots.iter().any(|s| s.is_available()))
    }

    /// The client's closed flag and usable-connection count, which a holder can read without
    /// keeping the connections open.
    pub(crate) fn availability(&self) -> Arc<Availability> {
        self.inner.availability.clone()
    }

    /// Whether every open connection received the provider's readonly event.
    pub fn is_readonly(&self) -> bool {
        let mut any = false;
        for s in &self.inner.slots {
            if let Some(c) = s.current.get() {
                if c.is_alive() {
                    if !c.is_readonly() {
                        return false;
                    }
                    any = true;
                }
            }
        }
        any
    }

    /// Number of calls waiting for a response, over all connections.
    pub fn pending_calls(&self) -> usize {
        self.inner
            .slots
            .iter()
            .filter_map(|s| s.current.get())
            .map(|c| c.state.pending.len())
            .sum()
    }

    /// Closes every connection; waiting calls fail with [`ErrorCode::Network`] and later calls
    /// are refused.
    pub fn close(&self) {
        self.inner.close();
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.inner.availability.is_closed()
    }

    /// Sends `invocation` and waits for its result.
    ///
    /// The timeout is the invocation's deadline ([`CallContext`](dubbo_core::CallContext)) when it
    /// has one, else the config's `timeout`; it is sent along as the `timeout` attachment. On
    /// expiry the call fails with [`ErrorCode::Timeout`] and a late response is dropped.
    pub async fn invoke(&self, invocation: Invocation) -> RpcResult {
        let timeout = invocation
            .context()
            .remaining()
            .unwrap_or(self.inner.config.timeout);
        self.clone()
            .invoke_with_timeout(invocation, timeout, true, Serialization::Hessian2)
            .await
    }

    /// [`invoke`](Self::invoke) with the request body in `serialization`.
    pub async fn invoke_in(
        &self,
        invocation: Invocation,
        serialization: Serialization,
    ) -> RpcResult {
        let timeout = invocation
            .context()
            .remaining()
            .unwrap_or(self.inner.config.timeout);
        self.clone()
            .invoke_with_timeout(invocation, timeout, true, serialization)
            .await
    }

    /// Sends `invocation` without waiting for a response (a one-way call); succeeds once the
    /// frame is queued on a connection.
    pub async fn send_oneway(&self, invocation: Invocation) -> RpcResult {
        let timeout = invocation
            .context()
            .remaining()
            .unwrap_or(self.inner.config.timeout);
        self.clone()
            .invoke_with_timeout(invocation, timeout, false, Serialization::Hessian2)
            .await
    }

    /// The call as [`invoke`](Self::invoke) and [`send_oneway`](Self::send_oneway) make it.
    /// It takes its own handle of the client, so that an invoker can hand this future out
    /// as the call's whole future, without an `async` block around it holding another copy of
    /// the invocation.
    pub(crate) async fn invoke_with_timeout(
        self,
        invocation: Invocation,
        timeout: Duration,
        two_way: bool,
        serialization: Serialization,
    ) -> RpcResult {
        let inner = &self.inner;
        let started = Instant::now();
        let method = invocation.method_name();
        if timeout.is_zero() {
            return Err(inner.timeout_error(method, started, timeout));
        }
        let id = next_request_id();
        let timeout_ms = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        let frame =
            body::encode_request_in(serialization, id, &invocation, Some(timeout_ms), two_way)?;
        let body_len = frame.len() - HEADER_LEN;
        if body_len > inner.config.payload {
            return Err(RpcError::framework(
                ErrorCode::PayloadTooLarge,
                format!(
                    "Data length too large: {body_len}, max payload: {}, request {}.{} to {}",
                    inner.config.payload,
                    invocation.service(),
                    method,
                    inner.address
                ),
            ));
        }
        // A timeout too large for the clock means no deadline in practice.
        let deadline = started
            .checked_add(timeout)
            .unwrap_or_else(|| started + Duration::from_secs(100 * 365 * 24 * 3600));
        let timed_out = || inner.timeout_error(method, started, timeout);
        // Only the steps that may wait (connecting, a full write queue) get a timer of their
        // own; the wait for the response is bounded by the reader's sweep of the pending map.
        let conn = match inner.pick_live() {
            Some(c) => c,
            // Rare (no open connection): boxed, so that the timer and the connecting future
            // are not part of every call's future.
            None => Box::pin(tokio::time::timeout_at(deadline.into(), inner.pick()))
                .await
                .map_err(|_| timed_out())??,
        };
        if !two_way {
            conn.send_before(frame, deadline)
                .await
                .map_err(|e| e.unwrap_or_else(timed_out))?;
            return Ok(RpcResponse::new(dubbo_core::Value::Null));
        }
        let mut call = conn.state.pending.register(id, deadline)?;
        conn.send_before(frame, deadline)
            .await
            .map_err(|e| e.unwrap_or_else(timed_out))?;
        match call.wait().await {
            Some(Ok(frame)) => decode_response(frame, &invocation, &inner.address),
            // Only the sweep answers a waiting call with a timeout.
            Some(Err(e)) if e.code() == Some(ErrorCode::Timeout) => Err(timed_out()),
            Some(Err(e)) => Err(e),
            None => Err(RpcError::framework(
                ErrorCode::Network,
                format!("connection to {} closed", inner.address),
            )),
        }
    }

    /// Sends a heartbeat request on every open connection (normally done by the connection
    /// itself after `heartbeat` without reads).
    pub async fn send_heartbeat(&self) {
        let ser = self.inner.config.serialization.id();
        for s in &self.inner.slots {
            if let Some(c) = s.current.get() {
                let _ =
                    c.tx.send(body::heartbeat_request(next_request_id(), ser))
                        .await;
            }
        }
    }

    /// A handle that does not keep the connections open.
    pub(crate) fn downgrade(&self) -> Weak<ClientInner> {
        Arc::downgrade(&self.inner)
    }

    /// The client behind a weak handle, while some clone is alive.
    pub(crate) fn upgrade(weak: &Weak<ClientInner>) -> Option<Self> {
        weak.upgrade().map(|inner| DubboClient { inner })
    }
}

impl Slot {
    fn is_available(&self) -> bool {
        match self.current.get() {
            Some(c) if c.is_alive() => !c.is_readonly(),
            _ => {
                let b = backoff::lock(&self.backoff);
                !matches!(b.retry_at, Some(at) if Instant::now() < at)
            }
        }
    }

    fn live(&self) -> Option<Arc<Connection>> {
        self.current.get().filter(|c| c.is_alive())
    }
}

impl ClientInner {
    fn close(&self) {
        self.availability.close();
        for s in &self.slots {
            if let Some(c) = s.current.replace(None) {
                c.state.shut();
            }
        }
    }

    fn timeout_error(&self, method: &str, started: Instant, timeout: Duration) -> RpcError {
        RpcError::framework(
            ErrorCode::Timeout,
            format!(
                "Invoke remote method timeout. method: {method}, provider: {}, elapsed: {} ms, timeout: {} ms",
                self.address,
                started.elapsed().as_millis(),
                timeout.as_millis()
            ),
        )
    }

    /// The next live connection that is not read-only, when one is open and the client is not
    /// closed: the usual case, with nothing to wait for.
    fn pick_live(&self) -> Option<Arc<Connection>> {
        if self.availability.is_closed() {
            return None;
        }
        let n = self.slots.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        (0..n)
            .filter_map(|i| self.slots[(start + i) % n].live())
            .find(|c| !c.is_readonly())
    }

    /// What a call waits for when [`pick_live`](Self::pick_live) found no connection to use:
    /// (re)connect the slot whose turn it is; use a live read-only connection only when that
    /// fails.
    async fn pick(&self) -> Result<Arc<Connection>, RpcError> {
        if self.availability.is_closed() {
            return Err(RpcError::framework(
                ErrorCode::Network,
                format!("client to {} is closed", self.address),
            ));
        }
        let n = self.slots.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        let fallback = (0..n).find_map(|i| self.slots[(start + i) % n].live());
        match self.connection(&self.slots[start]).await {
            Ok(c) => Ok(c),
            Err(e) => fallback.ok_or(e),
        }
    }

    async fn connection(&self, slot: &Slot) -> Result<Arc<Connection>, RpcError> {
        if let Some(c) = slot.live() {
            return Ok(c);
        }
        let _guard = slot.connecting.lock().await;
        if let Some(c) = slot.live() {
            return Ok(c);
        }
        {
            let b = backoff::lock(&slot.backoff);
            if let Some(at) = b.retry_at {
                let now = Instant::now();
                if now < at {
                    return Err(RpcError::framework(
                        ErrorCode::Network,
                        format!(
                            "Failed to connect to server {}: {} (next attempt in {} ms)",
                            self.address,
                            b.last_error,
                            (at - now).as_millis()
                        ),
                    ));
                }
            }
        }
        if self.availability.is_closed() {
            return Err(RpcError::framework(
                ErrorCode::Network,
                format!("client to {} is closed", self.address),
            ));
        }
        match Connection::open(
            &self.address,
            &self.config,
            &self.availability,
            &slot.backoff,
        )
        .await
        {
            Ok(c) => {
                // The first frame read resets the backoff, not this: a server may complete the
                // handshakes only to refuse (mutual TLS without a client certificate).
                drop(slot.current.replace(Some(c.clone())));
                // A close that raced with the connect must not leave the connection open.
                if self.availability.is_closed() {
                    c.state.shut();
                }
                Ok(c)
            }
            Err(e) => {
                backoff::lock(&slot.backoff).failed(
                    self.config.reconnect_backoff,
                    self.config.reconnect_backoff_max,
                    e.message().to_owned(),
                );
                Err(e)
            }
        }
    }
}

impl Drop for ClientInner {
    fn drop(&mut self) {
        self.close();
    }
}

impl Connection {
    async fn open(
        address: &str,
        config: &ClientConfig,
        availability: &Arc<Availability>,
        backoff: &Arc<Mutex<Backoff>>,
    ) -> Result<Arc<Connection>, RpcError> {
        let connect_error = |e: &dyn std::fmt::Display| {
            RpcError::framework(
                ErrorCode::Network,
                format!("Failed to connect to server {address}: {e}"),
            )
        };
        // The TLS handshake, when there is one, counts against the connect timeout too.
        let connected = async {
            let stream = TcpStream::connect(address).await?;
            let _ = stream.set_nodelay(true);
            let peer = stream.peer_addr().ok();
            let local = stream.local_addr().ok();
            let stream = match &config.tls {
                None => Transport::Plain(stream),
                Some(tls) => Transport::Tls(Box::new(tls.connect(address, stream).await?)),
            };
            Ok::<_, std::io::Error>((stream, peer, local))
        };
        let (stream, peer, local) =
            match tokio::time::timeout(config.connect_timeout, connected).await {
                Ok(Ok(s)) => s,
                Ok(Err(e)) => return Err(connect_error(&e)),
                Err(_) => {
                    return Err(connect_error(&format_args!(
                        "connect timed out after {} ms",
                        config.connect_timeout.as_millis()
                    )))
                }
            };
        let (tx, rx) = mpsc::channel(WRITE_QUEUE);
        let state = Arc::new(ConnState {
            pending: PendingCalls::new(),
            close: CancellationToken::new(),
            flags: ConnFlags::open(availability.clone()),
        });
        let reader = (
            tx.clone(),
            state.clone(),
            config.clone(),
            address.to_owned(),
            backoff.clone(),
        );
        match stream {
            // Plaintext keeps the socket's own halves: no lock between reader and writer.
            Transport::Plain(stream) => {
                let (rd, wr) = stream.into_split();
                tokio::spawn(write_loop(wr, rx, state.close.clone()));
                tokio::spawn(read_loop(rd, reader));
            }
            Transport::Tls(stream) => {
                let (rd, wr) = tokio::io::split(*stream);
                tokio::spawn(write_loop(wr, rx, state.close.clone()));
                tokio::spawn(read_loop(rd, reader));
            }
        }
        tracing::debug!(provider = address, ?local, "connected");
        Ok(Arc::new(Connection { tx, state, peer }))
    }

    /// Queues `frame` for the writer, waiting for room until `deadline`. `Err(None)` means
    /// the deadline passed first.
    async fn send_before(&self, frame: Bytes, deadline: Instant) -> Result<(), Option<RpcError>> {
        let closed = || {
            Some(RpcError::framework(
                ErrorCode::Network,
                format!("connection to {:?} is closed", self.peer),
            ))
        };
        match self.tx.try_send(frame) {
            Ok(()) => Ok(()),
            Err(mpsc::error::TrySendError::Closed(_)) => Err(closed()),
            Err(mpsc::error::TrySendError::Full(frame)) => {
                match tokio::time::timeout_at(deadline.into(), self.tx.send(frame)).await {
                    Ok(Ok(())) => Ok(()),
                    Ok(Err(_)) => Err(closed()),
                    Err(_) => Err(None),
                }
            }
        }
    }
}

/// A reader's writer queue, shared state, settings, provider address and slot backoff.
type Reader = (
    mpsc::Sender<Bytes>,
    Arc<ConnState>,
    ClientConfig,
    String,
    Arc<Mutex<Backoff>>,
);

/// Reads frames until the connection ends: completes waiting calls, answers the provider's
/// heartbeats, records readonly events, sends heartbeats when idle and closes a connection
/// that stays silent past the idle timeout.
async fn read_loop<R>(rd: R, reader: Reader)
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    let (tx, state, config, address, backoff) = reader;
    // Whether the provider has sent anything: failing before that counts as a failed connect.
    let mut answered = false;
    let mut frames = FramedRead::with_capacity(
        rd,
        FrameDecoder::skipping_oversize(config.payload),
        16 * 1024,
    );
    let heartbeat = config.heartbeat;
    let idle = config.idle_timeout;
    let mut last_read = Instant::now();
    let mut last_heartbeat = last_read;
    // Frames only mark that something was read; the check that follows takes its own time as
    // the last read. That saves a clock read per response, and costs the idle state at most
    // one check interval (a quarter of the shorter period) of precision, finer than Java's
    // heartbeat timer (a third of the period).
    let mut read_since_check = false;
    let timer = tokio::time::sleep_until(tokio::time::Instant::from_std(next_check(
        last_read,
        last_heartbeat,
        heartbeat,
        idle,
        last_read,
    )));
    tokio::pin!(timer);
    // The pending map's sweep for calls past their deadline: armed while calls wait.
    let mut sweeping = false;
    let sweep = tokio::time::sleep(SWEEP_TICK);
    tokio::pin!(sweep);
    // The close and the sweeper's wake-up are waited on by futures made once, not once per
    // frame: a fresh `cancelled()` takes the token's mutex and registers (and on drop
    // unregisters) a waiter, so remaking both per response cost five lock round trips.
    let closed = state.close.cancelled();
    tokio::pin!(closed);
    let sweep_wanted = state.pending.sweep_needed();
    tokio::pin!(sweep_wanted);
    let reason = loop {
        tokio::select! {
            biased;
            _ = &mut closed => {
                break RpcError::framework(ErrorCode::Network, format!("connection to {address} closed"));
            }
            _ = &mut sweep_wanted, if !sweeping => {
                sweeping = true;
                sweep_wanted.set(state.pending.sweep_needed());
                sweep.as_mut().reset(tokio::time::Instant::now() + SWEEP_TICK);
            }
            _ = &mut sweep, if sweeping => {
                sweeping = state.pending.sweep(Instant::now());
                if sweeping {
                    sweep.as_mut().reset(tokio::time::Instant::now() + SWEEP_TICK);
                }
            }
            item = frames.next() => {
                read_since_check = true;
                match item {
                    None => break RpcError::framework(
                        ErrorCode::Network,
                        format!("connection closed by provider {address}"),
                    ),
                    Some(Err(e)) => {
                        if e.is_peer_close() {
                            tracing::debug!(provider = %address, error = %e, "connection closed by provider");
                        } else {
                            tracing::warn!(provider = %address, error = %e, "bad data from provider; closing connection");
                        }
                        let reason = e.to_rpc_error(&format!("reading from {address}"));
                        if !answered {
                            backoff::lock(&backoff).failed(
                                config.reconnect_backoff,
                                config.reconnect_backoff_max,
                                format!("connection refused right after it opened ({})", reason.message()),
                            );
                        }
                        break reason;
                    }
                    Some(Ok(Inbound::Oversize(h))) => {
                        tracing::warn!(provider = %address, id = h.id, len = h.body_len, limit = config.payload, "response exceeds payload limit");
                        if !h.is_request() {
                            state.pending.complete(h.id, Err(RpcError::framework(
                                ErrorCode::PayloadTooLarge,
                                format!("Data length too large: {}, max payload: {}, response from {address}", h.body_len, config.payload),
                            )));
                        }
                    }
                    Some(Ok(Inbound::Frame(f))) => {
                        if !answered {
                            answered = true;
                            *backoff::lock(&backoff) = Backoff::default();
                        }
                        on_frame(f, &tx, &state, &address);
                    }
                }
            }
            _ = &mut timer => {
                let now = Instant::now();
                if std::mem::take(&mut read_since_check) {
                    last_read = now;
                }
                let silent = now.saturating_duration_since(last_read);
                if !idle.is_zero() && silent >= idle {
                    tracing::warn!(provider = %address, silent_ms = silent.as_millis() as u64, "no data from provider within the idle timeout; closing connection");
                    break RpcError::framework(ErrorCode::Network, format!("connection to {address} idle for {} ms", silent.as_millis()));
                }
                if !heartbeat.is_zero() && silent >= heartbeat && now.saturating_duration_since(last_heartbeat) >= heartbeat {
                    last_heartbeat = now;
                    tracing::trace!(provider = %address, "sending heartbeat");
                    let _ = tx.try_send(body::heartbeat_request(next_request_id(), config.serialization.id()));
                }
                timer.as_mut().reset(tokio::time::Instant::from_std(next_check(last_read, last_heartbeat, heartbeat, idle, now)));
            }
        }
    };
    state.shut();
    state.pending.fail_all(&reason);
}

/// When the reader must next look at the idle state: when a heartbeat or the idle timeout
/// falls due, and at least every quarter of the shorter period, so that the last read (only
/// noted at checks) is never older than that.
fn next_check(
    last_read: Instant,
    last_heartbeat: Instant,
    heartbeat: Duration,
    idle: Duration,
    now: Instant,
) -> Instant {
    let far = Duration::from_secs(3600);
    let hb = if heartbeat.is_zero() { far } else { heartbeat };
    let idle = if idle.is_zero() { far } else { idle };
    let next_hb = last_read.max(last_heartbeat) + hb;
    let next_idle = last_read + idle;
    let tick = hb.min(idle) / 4;
    next_hb
        .min(next_idle)
        .min(now + tick)
        .max(now + Duration::from_millis(5))
}

fn on_frame(f: Frame, tx: &mpsc::Sender<Bytes>, state: &ConnState, address: &str) {
    let h = f.header;
    if h.is_request() {
        if !h.is_event() {
            tracing::warn!(provider = %address, id = h.id, "provider sent a request to a consumer; ignored");
            return;
        }
        match body::decode_event(h.serialization_id(), &f.body) {
            Ok(EventData::Heartbeat) => {
                if h.is_two_way() {
                    let _ = tx.try_send(body::heartbeat_response(h.id, h.serialization_id()));
                }
            }
            Ok(EventData::ReadOnly) => {
                tracing::info!(provider = %address, "provider is shutting down (readonly event)");
                state.flags.set_readonly(true);
            }
            Ok(EventData::Writable) => {
                tracing::info!(provider = %address, "provider is writable again");
                state.flags.set_readonly(false);
            }
            Ok(EventData::Other(s)) => {
                tracing::debug!(provider = %address, event = %s, "unknown event ignored");
            }
            Err(e) => {
                tracing::warn!(provider = %address, error = %e, "undecodable event ignored");
            }
        }
        return;
    }
    if h.is_event() {
        // A heartbeat response: its only effect was updating the read time.
        return;
    }
    let id = h.id;
    if !state.pending.complete(id, Ok(f)) {
        tracing::debug!(provider = %address, id, "response for no waiting call (timed out?) dropped");
    }
}

/// Turns a response frame into the call's outcome.
fn decode_response(frame: Frame, invocation: &Invocation, address: &str) -> RpcResult {
    let h = frame.header;
    let context = || {
        format!(
            "call {}.{} on {address}",
            invocation.service(),
            invocation.method_name()
        )
    };
    if h.status != Status::Ok.as_u8() {
        let msg = body::decode_status_message(h.serialization_id(), &frame.body);
        return Err(error_for_status(h.status, msg, &context()));
    }
    // The provider answers in the request's serialization; either one this client speaks is
    // read.
    let Some(ser) = Serialization::from_id(h.serialization_id()) else {
        return Err(RpcError::framework(
            ErrorCode::Codec,
            format!(
                "{}: response in unsupported serialization {} (id {})",
                context(),
                crate::header::serialization_name(h.serialization_id()).unwrap_or("unknown"),
                h.serialization_id()
            ),
        ));
    };
    // A Hessian 2 result stays encoded: a typed caller decodes it straight into its type, a
    // generic one into a tree, each only when it asks.
    match body::decode_ok_response_in(ser, &frame.body) {
        Ok(outcome) => outcome,
        Err(e) => Err(e.to_rpc_error(&format!("decoding response of {}", context()))),
    }
}
