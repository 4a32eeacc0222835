//! Client and server settings, read from URL parameters with Java Dubbo's names and defaults.

use std::str::FromStr;
use std::time::Duration;

use dubbo_url::Url;

use crate::codec::DEFAULT_PAYLOAD;
use crate::serialization::Serialization;

/// Default heartbeat interval (`heartbeat`, 60 s).
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(60);
/// Default consumer call timeout (`timeout`, 1000 ms).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1000);
/// Default connect timeout (`connect.timeout`, 3000 ms).
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_millis(3000);
/// Default size of the provider's worker pool (`threads`, 200).
pub const DEFAULT_THREADS: usize = 200;
/// Default time a provider waits for in-flight calls on shutdown (10 s).
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a provider runs its handlers (`dispatcher`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dispatcher {
    /// `all` (default; also `message`, `execution`, `connection`): every request runs as its
    /// own task, bounded by the worker pool.
    All,
    /// `direct`: requests run inline on the connection's task, one at a time per connection.
    Direct,
}

/// Consumer-side settings for the connections to one provider address.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Connections to open to the address (`connections`, default 1); calls pick one
    /// round-robin.
    pub connections: usize,
    /// Connect on the first call instead of at creation (`lazy`, default false).
    pub lazy: bool,
    /// Send a heartbeat after this long without reading anything (`heartbeat`, default 60 s;
    /// zero disables heartbeats).
    pub heartbeat: Duration,
    /// Close the connection after this long without reading anything (`heartbeat.timeout`,
    /// default 3 × `heartbeat`); the next call reconnects.
    pub idle_timeout: Duration,
    /// Largest request body sent and response body accepted (`payload`, default 8 MiB).
    pub payload: usize,
    /// How long to wait for a connection (`connect.timeout`, default 3 s).
    pub connect_timeout: Duration,
    /// Call timeout when neither the call's context nor the URL gives one (default 1 s).
    pub timeout: Duration,
    /// First wait after a failed connect before the next attempt (doubling up to
    /// `reconnect_backoff_max`). Calls made during the wait fail at once.
    pub reconnect_backoff: Duration,
    /// Longest wait between connect attempts.
    pub reconnect_backoff_max: Duration,
    /// TLS on every connection (the handshake counts against `connect_timeout`); `None`:
    /// plaintext.
    pub tls: Option<dubbo_tls::ClientTls>,
    /// What the client's heartbeats are written in: the reference's first serialization
    /// (`prefer.serialization`, then `serialization`, else Hessian 2), as Java writes them.
    pub serialization: Serialization,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            connections: 1,
            lazy: false,
            heartbeat: DEFAULT_HEARTBEAT,
            idle_timeout: DEFAULT_HEARTBEAT * 3,
            payload: DEFAULT_PAYLOAD,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            timeout: DEFAULT_TIMEOUT,
            reconnect_backoff: Duration::from_millis(100),
            reconnect_backoff_max: Duration::from_secs(3),
            tls: None,
            serialization: Serialization::Hessian2,
        }
    }
}

impl ClientConfig {
    /// Settings from a consumer URL's parameters, defaults for the rest.
    pub fn from_url(url: &Url) -> Self {
        let d = ClientConfig::default();
        let heartbeat = millis(url, "heartbeat").unwrap_or(d.heartbeat);
        ClientConfig {
            connections: param::<usize>(url, "connections")
                .filter(|&n| n > 0)
                .unwrap_or(d.connections),
            lazy: param::<bool>(url, "lazy").unwrap_or(false),
            heartbeat,
            idle_timeout: millis(url, "heartbeat.timeout").unwrap_or(heartbeat * 3),
            payload: payload(url),
            connect_timeout: millis(url, "connect.timeout").unwrap_or(d.connect_timeout),
            timeout: millis(url, "timeout").unwrap_or(d.timeout),
            serialization: Serialization::for_channel(url),
            ..d
        }
    }
}

/// Provider-side settings of one server (one host:port).
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Expected heartbeat interval of consumers (`heartbeat`, default 60 s).
    pub heartbeat: Duration,
    /// Close a connection after this long without reading anything (`heartbeat.timeout`,
    /// default 3 × `heartbeat`, i.e. 180 s). Zero disables idle closing.
    pub idle_timeout: Duration,
    /// Largest request body accepted and response body sent (`payload`, default 8 MiB).
    pub payload: usize,
    /// Where handlers run (`dispatcher`, default `all`).
    pub dispatcher: Dispatcher,
    /// Most handlers running at once (`threads`, default 200); `None` for `threadpool=cached`
    /// (no bound).
    pub threads: Option<usize>,
    /// Requests allowed to wait for a worker when all are busy (`queues`, default 0: a request
    /// that finds the pool full is answered SERVER_THREADPOOL_EXHAUSTED at once).
    pub queues: usize,
    /// Most connections accepted at once (`accepts`, default 0 = no limit).
    pub accepts: usize,
    /// How long shutdown waits for in-flight calls (`shutdown.timeout`, default 10 s).
    pub shutdown_timeout: Duration,
    /// What the server's events (readonly) are written in: the first serialization of the
    /// first service exported on the port (`prefer.serialization`, then `serialization`, else
    /// Hessian 2), as Java writes them.
    pub serialization: Serialization,
    /// TLS on the port (with port unification when it allows plaintext); `None`: plaintext.
    pub tls: Option<dubbo_tls::ServerTls>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            heartbeat: DEFAULT_HEARTBEAT,
            idle_timeout: DEFAULT_HEARTBEAT * 3,
            payload: DEFAULT_PAYLOAD,
            dispatcher: Dispatcher::All,
            threads: Some(DEFAULT_THREADS),
            queues: 0,
            accepts: 0,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            tls: None,
            serialization: Serialization::Hessian2,
        }
    }
}

impl ServerConfig {
    /// Settings from a provider URL's parameters, defaults for the rest.
    pub fn from_url(url: &Url) -> Self {
        let d = ServerConfig::default();
        let heartbeat = millis(url, "heartbeat").unwrap_or(d.heartbeat);
        let dispatcher = match url
            .parameter("dispatcher")
            .or_else(|| url.parameter("dispather"))
        {
            Some("direct") => Dispatcher::Direct,
            Some("all") | Some("message") | Some("execution") | Some("connection") | None => {
                Dispatcher::All
            }
            Some(other) => {
                tracing::warn!(dispatcher = other, "unknown dispatcher, using \"all\"");
                Dispatcher::All
            }
        };
        let threads = match url.parameter("threadpool") {
            Some("cached") => None,
            _ => Some(
                param::<usize>(url, "threads")
                    .filter(|&n| n > 0)
                    .unwrap_or(DEFAULT_THREADS),
            ),
        };
        ServerConfig {
            heartbeat,
            idle_timeout: millis(url, "heartbeat.timeout").unwrap_or(heartbeat * 3),
            payload: payload(url),
            dispatcher,
            threads,
            queues: param::<usize>(url, "queues").unwrap_or(0),
            accepts: param::<usize>(url, "accepts").unwrap_or(0),
            shutdown_timeout: millis(url, "shutdown.timeout").unwrap_or(d.shutdown_timeout),
            tls: None,
            serialization: Serialization::for_channel(url),
        }
    }
}

fn payload(url: &Url) -> usize {
    param::<usize>(url, "payload")
        .filter(|&n| n > 0)
        .unwrap_or(DEFAULT_PAYLOAD)
}

pub(crate) fn param<T: FromStr>(url: &Url, key: &str) -> Option<T> {
    url.parameter(key).and_then(|v| v.trim().parse().ok())
}

pub(crate) fn millis(url: &Url, key: &str) -> Option<Duration> {
    param::<u64>(url, key).map(Duration::from_millis)
}

/// The call timeout a URL gives for `method`: `<method>.timeout`, then `timeout`.
pub(crate) fn method_timeout(url: &Url, method: &str) -> Option<Duration> {
    url.method_parameter(method, "timeout")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_url() {
        let url = Url::parse(
            "dubbo://127.0.0.1:20880/a.B?heartbeat=1000&payload=1024&connections=3&lazy=true&dispatcher=direct&threads=7&queues=2&sayHello.timeout=250&timeout=900",
        )
        .unwrap();
        let c = ClientConfig::from_url(&url);
        assert_eq!(c.connections, 3);
        assert!(c.lazy);
        assert_eq!(c.heartbeat, Duration::from_secs(1));
        assert_eq!(c.idle_timeout, Duration::from_secs(3));
        assert_eq!(c.payload, 1024);
        assert_eq!(c.timeout, Duration::from_millis(900));
        let s = ServerConfig::from_url(&url);
        assert_eq!(s.dispatcher, Dispatcher::Direct);
        assert_eq!(s.threads, Some(7));
        assert_eq!(s.queues, 2);
        assert_eq!(
            method_timeout(&url, "sayHello"),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            method_timeout(&url, "other"),
            Some(Duration::from_millis(900))
        );

        let url = Url::parse("dubbo://127.0.0.1:20880/a.B").unwrap();
        let s = ServerConfig::from_url(&url);
        assert_eq!(s.threads, Some(200));
        assert_eq!(s.idle_timeout, Duration::from_secs(180));
        assert_eq!(s.payload, 8 * 1024 * 1024);
        assert_eq!(ClientConfig::from_url(&url).timeout, DEFAULT_TIMEOUT);
    }
}
