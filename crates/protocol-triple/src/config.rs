//! Settings shared by the Triple server and client.

use std::time::Duration;

use crate::compression::Encoding;

/// 8 MiB, Java Triple's default for windows and message size.
pub const MIB_8: u32 = 8 * 1024 * 1024;

/// 16 MiB, the default connection window: twice the stream window, about what a Java Triple
/// server advertises (65,535 + a WINDOW_UPDATE of 16,646,146 bytes). It must stay larger than the
/// stream window: Java Dubbo 3.2's Triple client (its `TriHttp2RemoteFlowController`) fails the
/// whole connection (GOAWAY INTERNAL_ERROR, "TotalPendingBytes size overflow") whenever its
/// connection send window reaches exactly zero. With the connection window the larger, one
/// stream's window runs out first, so a single request larger than the stream window (such as
/// one this side refuses as oversize) can never drain the connection window.
pub const DEFAULT_CONNECTION_WINDOW: u32 = 2 * MIB_8;

/// Settings of a Triple server or client.
#[derive(Debug, Clone)]
pub struct TripleConfig {
    /// HTTP/2 initial stream window (`SETTINGS_INITIAL_WINDOW_SIZE`) advertised to the peer:
    /// how many bytes the peer may send on one stream before this side's application has
    /// consumed them. Default 8 MiB.
    pub initial_stream_window: u32,
    /// HTTP/2 connection window advertised to the peer: the most bytes buffered for all streams
    /// of one connection. Default [`DEFAULT_CONNECTION_WINDOW`] (16 MiB); keep it larger than
    /// `initial_stream_window` for Java Dubbo 3.2 peers (see there).
    pub initial_connection_window: u32,
    /// Largest HTTP/2 DATA frame this side accepts. Default 16 KiB (the protocol minimum).
    pub max_frame_size: u32,
    /// Largest gRPC message (after decompression) accepted; larger ones fail with
    /// `RESOURCE_EXHAUSTED`. Default 8 MiB.
    pub max_message_size: usize,
    /// Largest header list accepted. Default 64 KiB.
    pub max_header_list_size: u32,
    /// Most concurrent streams a server lets one client open. Default unlimited (`None`).
    pub max_concurrent_streams: Option<u32>,
    /// How long a unary sender waits for the peer's flow-control window before failing with
    /// `RESOURCE_EXHAUSTED`. Streaming senders wait as long as the call lasts. Default 3 s.
    pub unary_send_window_timeout: Duration,
    /// Encoding used for messages this side sends. Default identity.
    pub send_encoding: Encoding,
    /// Time allowed to connect to a provider. Default 3 s.
    pub connect_timeout: Duration,
    /// Largest request body of the plain-HTTP forms (REST and the JSON form, over HTTP/1.1 and
    /// h2c) accepted; a larger one is answered 413. Default 8 MiB.
    pub max_http1_body: usize,
    /// Client: wait after a failed connect before the next attempt; it doubles with each
    /// further failure up to `reconnect_backoff_max` and resets once a connect succeeds.
    /// Calls made during the wait fail at once with `UNAVAILABLE`. Default 100 ms.
    pub reconnect_backoff: Duration,
    /// Client: the longest wait between connect attempts. Default 3 s.
    pub reconnect_backoff_max: Duration,
    /// Server: TLS on the port, offering ALPN `h2` and `http/1.1` (build it with
    /// [`SERVER_ALPN`](crate::SERVER_ALPN)); plaintext too when it allows it. `None`: plaintext.
    pub server_tls: Option<dubbo_tls::ServerTls>,
    /// Client: TLS on every connection, offering ALPN `h2` (build it with
    /// [`CLIENT_ALPN`](crate::CLIENT_ALPN)); requests then say `:scheme https`. `None`:
    /// plaintext.
    pub client_tls: Option<dubbo_tls::ClientTls>,
    /// Server: CORS of the REST forms ([`CorsSettings::policy`](crate::cors::CorsSettings::policy));
    /// `None` (the default): no CORS headers, and preflight requests are refused with 403.
    pub rest_cors: Option<std::sync::Arc<crate::cors::CorsPolicy>>,
    /// Server: where the Swagger UI page at `/dubbo/openapi/swagger-ui/` takes Swagger UI
    /// from ([`SwaggerUi`](crate::SwaggerUi)); the default loads it from a public CDN.
    pub swagger_ui: std::sync::Arc<crate::SwaggerUi>,
}

impl Default for TripleConfig {
    fn default() -> Self {
        Self {
            initial_stream_window: MIB_8,
            initial_connection_window: DEFAULT_CONNECTION_WINDOW,
            max_frame_size: 16 * 1024,
            max_message_size: MIB_8 as usize,
            max_header_list_size: 64 * 1024,
            max_concurrent_streams: None,
            unary_send_window_timeout: Duration::from_secs(3),
            send_encoding: Encoding::Identity,
            connect_timeout: Duration::from_secs(3),
            max_http1_body: MIB_8 as usize,
            reconnect_backoff: Duration::from_millis(100),
            reconnect_backoff_max: Duration::from_secs(3),
            server_tls: None,
            client_tls: None,
            rest_cors: None,
            swagger_ui: Default::default(),
        }
    }
}

impl TripleConfig {
    /// Sets both initial windows.
    pub fn with_windows(mut self, stream: u32, connection: u32) -> Self {
        self.initial_stream_window = stream;
        self.initial_connection_window = connection;
        self
    }

    /// Sets the maximum message size.
    pub fn with_max_message_size(mut self, max: usize) -> Self {
        self.max_message_size = max;
        self
    }

    /// Sets the encoding of sent messages.
    pub fn with_send_encoding(mut self, encoding: Encoding) -> Self {
        self.send_encoding = encoding;
        self
    }
}
