//! How the `rest` client reaches a base URL: TCP (hyper-util's connector, no Nagle delay), then
//! for an `https` URI the TLS handshake with the application's client TLS (`dubbo.ssl`'s
//! `client-*` keys: the trust collection the server's certificate must chain to, the client
//! certificate for mutual TLS), offering the ALPN of the pool (`http/1.1` or `h2`).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use dubbo_tls::{ClientTls, ClientTlsStream, ALPN_H2};
use http::Uri;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// What a failed connect is told as.
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Dials `http` URIs in plaintext and `https` URIs with TLS.
#[derive(Clone)]
pub(crate) struct RestConnector {
    tcp: HttpConnector,
    tls: Option<ClientTls>,
    alpn: &'static [u8],
}

impl RestConnector {
    /// A connector with the client TLS `tls` (none: `https` URIs fail to connect), offering
    /// `alpn` in its handshakes.
    pub(crate) fn new(tls: Option<ClientTls>, alpn: &'static [u8]) -> Self {
        let mut tcp = HttpConnector::new();
        // Calls are small request/answer exchanges: no Nagle delay.
        tcp.set_nodelay(true);
        // `https` URIs reach the TCP connect too; the TLS is this connector's.
        tcp.enforce_http(false);
        Self { tcp, tls, alpn }
    }
}

impl tower_service::Service<Uri> for RestConnector {
    type Response = TokioIo<RestStream>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.tcp.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let mut tcp = self.tcp.clone();
        let tls = self.tls.clone();
        let alpn = self.alpn;
        Box::pin(async move {
            let https = uri.scheme() == Some(&http::uri::Scheme::HTTPS);
            let address = uri
                .authority()
                .map(|a| a.as_str().to_owned())
                .unwrap_or_default();
            let stream = tcp.call(uri).await?.into_inner();
            if !https {
                return Ok(TokioIo::new(RestStream::Plain(stream)));
            }
            let tls = tls.ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "https://{address} needs client TLS: set {}",
                        dubbo_tls::keys::CLIENT_TRUST_CERT_COLLECTION_PATH
                    ),
                )
            })?;
            let stream = tls.connect_with_alpn(&address, stream, &[alpn]).await?;
            Ok(TokioIo::new(RestStream::Tls(Box::new(stream))))
        })
    }
}

/// A connection of the `rest` client: plaintext or TLS.
pub(crate) enum RestStream {
    /// `http`.
    Plain(TcpStream),
    /// `https`.
    Tls(Box<ClientTlsStream<TcpStream>>),
}

impl Connection for RestStream {
    fn connected(&self) -> Connected {
        match self {
            RestStream::Plain(s) => s.connected(),
            RestStream::Tls(s) => {
                let (tcp, session) = s.get_ref();
                let connected = tcp.connected();
                if session.alpn_protocol() == Some(ALPN_H2) {
                    connected.negotiated_h2()
                } else {
                    connected
                }
            }
        }
    }
}

impl AsyncRead for RestStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            RestStream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            RestStream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for RestStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            RestStream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            RestStream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            RestStream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            RestStream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            RestStream::Plain(s) => s.is_write_vectored(),
            RestStream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            RestStream::Plain(s) => Pin::new(s).poll_flush(cx),
            RestStream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            RestStream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            RestStream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
