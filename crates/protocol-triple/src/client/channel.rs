//! [`TripleChannel`]: one shared HTTP/2 connection to a provider, carrying every call's stream.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex as SyncMutex, Weak};
use std::time::Instant;

use bytes::Bytes;
use h2::client::{ResponseFuture, SendRequest};
use h2::SendStream;
use tokio::net::TcpStream;
use tokio::sync::Mutex;

use super::backoff::Backoff;
use super::first_read::{lock, FirstRead};
use crate::config::TripleConfig;
use crate::status::Status;

/// A connected socket, before HTTP/2 runs on it.
enum Transport {
    Plain(TcpStream),
    Tls(Box<dubbo_tls::ClientTlsStream<TcpStream>>),
}

/// Runs the HTTP/2 handshake over `io` and spawns the connection's driver, which marks `alive`
/// false when the connection ends. The first byte the server sends resets `inner`'s backoff;
/// a connection that fails before the server sent anything was refused (mutual TLS without a
/// client certificate), and counts as a failed connect attempt.
async fn h2_handshake<IO>(
    builder: &h2::client::Builder,
    io: IO,
    inner: &Inner,
    alive: Arc<AtomicBool>,
) -> Result<(SendRequest<Bytes>, tokio::task::JoinHandle<()>), Status>
where
    IO: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let addr = inner.addr.clone();
    let answered = Arc::new(AtomicBool::new(false));
    let io = FirstRead::new(io, inner.backoff.clone(), answered.clone());
    let (send, connection) = builder
        .handshake::<_, Bytes>(io)
        .await
        .map_err(|e| Status::unavailable(format!("HTTP/2 handshake with {addr}: {e}")))?;
    let backoff = inner.backoff.clone();
    let (base, max) = (
        inner.config.reconnect_backoff,
        inner.config.reconnect_backoff_max,
    );
    let task = tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!(%addr, "HTTP/2 connection ended: {e}");
            if !answered.load(Ordering::Acquire) {
                let why = format!("connection to {addr} refused right after it opened: {e}");
                lock(&backoff).failed(base, max, why);
            }
        }
        alive.store(false, Ordering::Release);
    });
    Ok((send, task))
}

struct Conn {
    gen: u64,
    send: SendRequest<Bytes>,
    alive: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Conn {
    fn drop(&mut self) {
        // Only the connection driver is stopped; streams still running keep their own handles
        // and fail with UNAVAILABLE if the connection goes.
        if !self.alive.load(Ordering::Acquire) {
            self.task.abort();
        }
    }
}

pub(crate) struct Inner {
    addr: String,
    config: TripleConfig,
    conn: Mutex<Option<Conn>>,
    next_gen: AtomicU64,
    /// Shared with the connection's driver and IO (see [`h2_handshake`]).
    backoff: Arc<SyncMutex<Backoff>>,
    closed: AtomicBool,
}

/// A connection to one provider (`host:port`), shared by every call made through it: generated
/// stubs, [`TripleClient`](crate::TripleClient) and the interface-mode invoker. Cloning is
/// cheap and shares the connection.
///
/// The connection is opened on first use (or by [`connect`](Self::connect)). When it breaks or
/// the server sends GOAWAY, the next call opens a new one; a call that could not even be started
/// on a connection that was going away is retried once on the new connection, since it never
/// reached the server. After a failed connect, calls fail at once with `UNAVAILABLE` for
/// [`TripleConfig::reconnect_backoff`] (doubling with each further failure, up to
/// [`TripleConfig::reconnect_backoff_max`]); the first call after the wait tries again, so a
/// provider that comes back is used again by the same channel.
///
/// The connection is closed by [`close`](Self::close), or once the last clone is dropped and
/// the calls still running on it have finished.
#[derive(Clone)]
pub struct TripleChannel {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for TripleChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TripleChannel")
            .field("addr", &self.inner.addr)
            .finish()
    }
}

impl TripleChannel {
    /// A channel to `addr` (`host:port`) that connects on first use.
    pub fn lazy(addr: impl Into<String>, config: TripleConfig) -> TripleChannel {
        TripleChannel {
            inner: Arc::new(Inner {
                addr: addr.into(),
                config,
                conn: Mutex::new(None),
                next_gen: AtomicU64::new(1),
                backoff: Arc::new(SyncMutex::new(Backoff::default())),
                closed: AtomicBool::new(false),
            }),
        }
    }

    /// A channel to `addr` (`host:port`), connected now; a failure is `UNAVAILABLE`.
    pub async fn connect(
        addr: impl Into<String>,
        config: TripleConfig,
    ) -> Result<TripleChannel, Status> {
        let ch = Self::lazy(addr, config);
        ch.sender().await?;
        Ok(ch)
    }

    /// Opens the connection now if none is open; a failure is `UNAVAILABLE`.
    pub async fn ensure_connected(&self) -> Result<(), Status> {
        self.sender().await.map(|_| ())
    }

    /// The provider's `host:port`.
    pub fn addr(&self) -> &str {
        &self.inner.addr
    }

    /// The channel's settings.
    pub fn config(&self) -> &TripleConfig {
        &self.inner.config
    }

    /// Whether calls can go out now: the channel is not closed and is not waiting out a
    /// reconnect backoff (a lost connection is re-opened by the next call, so it does not make
    /// the channel unavailable by itself; a failed attempt to re-open it does, for the wait).
    pub fn is_available(&self) -> bool {
        !self.inner.closed.load(Ordering::Acquire)
            && self.inner.backoff().remaining(Instant::now()).is_none()
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.load(Ordering::Acquire)
    }

    /// A handle that does not keep the connection open.
    pub(crate) fn downgrade(&self) -> Weak<Inner> {
        Arc::downgrade(&self.inner)
    }

    /// The channel behind a weak handle, while some clone of it is alive.
    pub(crate) fn upgrade(weak: &Weak<Inner>) -> Option<TripleChannel> {
        weak.upgrade().map(|inner| TripleChannel { inner })
    }

    /// Closes the connection; later calls fail with `UNAVAILABLE`.
    pub async fn close(&self) {
        self.inner.closed.store(true, Ordering::Release);
        let conn = self.inner.conn.lock().await.take();
        if let Some(c) = conn {
            c.task.abort();
        }
    }

    async fn open(&self) -> Result<Conn, Status> {
        let cfg = &self.inner.config;
        let addr = &self.inner.addr;
        // The TLS handshake, when there is one, counts against the connect timeout too.
        let connected = async {
            let tcp = TcpStream::connect(addr).await?;
            let _ = tcp.set_nodelay(true);
            match &cfg.client_tls {
                None => Ok::<_, std::io::Error>(Transport::Plain(tcp)),
                Some(tls) => Ok(Transport::Tls(Box::new(tls.connect(addr, tcp).await?))),
            }
        };
        let transport = tokio::time::timeout(cfg.connect_timeout, connected)
            .await
            .map_err(|_| Status::unavailable(format!("connect to {addr} timed out")))?
            .map_err(|e| Status::unavailable(format!("connect to {addr}: {e}")))?;
        let mut builder = h2::client::Builder::new();
        builder
            .initial_window_size(cfg.initial_stream_window)
            .initial_connection_window_size(cfg.initial_connection_window)
            .max_frame_size(cfg.max_frame_size)
            .max_header_list_size(cfg.max_header_list_size)
            .max_send_buffer_size(cfg.max_frame_size as usize * 4)
            .enable_push(false);
        let alive = Arc::new(AtomicBool::new(true));
        let (send, task) = match transport {
            Transport::Plain(io) => h2_handshake(&builder, io, &self.inner, alive.clone()).await?,
            Transport::Tls(io) => h2_handshake(&builder, *io, &self.inner, alive.clone()).await?,
        };
        let gen = self.inner.next_gen.fetch_add(1, Ordering::Relaxed);
        Ok(Conn {
            gen,
            send,
            alive,
            task,
        })
    }

    /// A handle to send requests on the current connection, opening one if needed.
    async fn sender(&self) -> Result<(SendRequest<Bytes>, u64), Status> {
        if self.inner.closed.load(Ordering::Acquire) {
            return Err(Status::unavailable("channel closed"));
        }
        let mut guard = self.inner.conn.lock().await;
        if let Some(c) = guard.as_ref() {
            if c.alive.load(Ordering::Acquire) {
                return Ok((c.send.clone(), c.gen));
            }
        }
        *guard = None;
        {
            let b = self.inner.backoff();
            if let Some(wait) = b.remaining(Instant::now()) {
                return Err(Status::unavailable(format!(
                    "{} (next connect attempt in {} ms)",
                    b.last_error(),
                    wait.as_millis()
                )));
            }
        }
        match self.open().await {
            Ok(c) => {
                // The backoff is reset by the server's first byte, not here (see
                // `h2_handshake`).
                let s = (c.send.clone(), c.gen);
                // A close that raced with the connect must not leave the connection open.
                if self.inner.closed.load(Ordering::Acquire) {
                    c.task.abort();
                    return Err(Status::unavailable("channel closed"));
                }
                *guard = Some(c);
                Ok(s)
            }
            Err(e) => {
                let cfg = &self.inner.config;
                self.inner.backoff().failed(
                    cfg.reconnect_backoff,
                    cfg.reconnect_backoff_max,
                    e.message().to_owned(),
                );
                Err(e)
            }
        }
    }

    async fn invalidate(&self, gen: u64) {
        let mut guard = self.inner.conn.lock().await;
        if guard.as_ref().map(|c| c.gen == gen).unwrap_or(false) {
            // Streams still open on it go on; new calls get a new connection.
            *guard = None;
        }
    }

    /// Starts a stream: sends the request headers, returning the response future and the
    /// request body sender.
    pub(crate) async fn start(
        &self,
        request: http::Request<()>,
    ) -> Result<(ResponseFuture, SendStream<Bytes>), Status> {
        let mut last_err = None;
        for _attempt in 0..2 {
            let (sender, gen) = self.sender().await?;
            let mut ready = match sender.ready().await {
                Ok(r) => r,
                Err(e) => {
                    last_err = Some(Status::from_h2_error(&e));
                    self.invalidate(gen).await;
                    continue;
                }
            };
            match ready.send_request(clone_request(&request), false) {
                Ok(pair) => return Ok(pair),
                Err(e) => {
                    // Refused before it reached the server (GOAWAY received, connection gone):
                    // safe to retry once on a fresh connection.
                    last_err = Some(Status::unavailable(format!(
                        "connection to {} not usable: {e}",
                        self.inner.addr
                    )));
                    self.invalidate(gen).await;
                }
            }
        }
        Err(last_err.unwrap_or_else(|| Status::unavailable("could not start stream")))
    }
}

impl Inner {
    fn backoff(&self) -> std::sync::MutexGuard<'_, Backoff> {
        lock(&self.backoff)
    }
}

fn clone_request(r: &http::Request<()>) -> http::Request<()> {
    let mut out = http::Request::new(());
    *out.method_mut() = r.method().clone();
    *out.uri_mut() = r.uri().clone();
    *out.version_mut() = r.version();
    *out.headers_mut() = r.headers().clone();
    out
}
